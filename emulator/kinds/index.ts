/**
 * The kinds the emulator serves, with our own structural schemas, written from the real CRDs of Harvester
 * (harvester/harvester, harvester/load-balancer-harvester), KubeVirt 1.6/1.7 and Multus, and from the core
 * v1 API.
 *
 * Printer columns follow the CRD convention: the NAME column is implicit and comes first; `printerColumns`
 * lists the columns after it.
 */
import { deepFreeze } from '../api/store-json';
import { deploymentKind } from './apps/deployment';
import { KindInfo, KindRegistry } from '../api/types';
import { configMapKind } from './core/config-map';
import { namespaceKind } from './core/namespace';
import { nodeKind } from './core/node';
import { persistentVolumeClaimKind } from './core/persistent-volume-claim';
import { podKind } from './core/pod';
import { eventKind } from './core/event';
import { resourceQuotaKind } from './core/resource-quota';
import { secretKind } from './core/secret';
import { serviceKind } from './core/service';
import { serviceAccountKind } from './core/service-account';
import { clusterRoleBindingKind, clusterRoleKind, roleBindingKind, roleKind } from './rbac/rbac';
import { networkAttachmentDefinitionKind } from './cni/network-attachment-definition';
import { clusterNetworkKind } from './network/cluster-network';
import { vlanConfigKind } from './network/vlan-config';
import { keyPairKind } from './harvester/key-pair';
import { settingKind } from './harvester/setting';
import { virtualMachineImageKind } from './harvester/virtual-machine-image';
import { virtualMachineKind } from './kubevirt/virtual-machine';
import { virtualMachineInstanceKind } from './kubevirt/virtual-machine-instance';
import { virtualMachineInstanceMigrationKind } from './kubevirt/virtual-machine-instance-migration';
import { ipPoolKind } from './loadbalancer/ip-pool';
import { loadBalancerKind } from './loadbalancer/load-balancer';
import { StaticKindRegistry } from './registry';
import { storageClassKind } from './storage/storage-class';

export {
  clusterNetworkKind,
  configMapKind,
  deploymentKind,
  ipPoolKind,
  keyPairKind,
  loadBalancerKind,
  namespaceKind,
  networkAttachmentDefinitionKind,
  nodeKind,
  persistentVolumeClaimKind,
  podKind,
  eventKind,
  resourceQuotaKind,
  secretKind,
  serviceKind,
  serviceAccountKind,
  clusterRoleKind,
  clusterRoleBindingKind,
  roleKind,
  roleBindingKind,
  settingKind,
  StaticKindRegistry,
  storageClassKind,
  virtualMachineImageKind,
  virtualMachineInstanceKind,
  virtualMachineInstanceMigrationKind,
  virtualMachineKind,
  vlanConfigKind,
};

/** Every kind by a short name, for code that needs one entry (`KINDS.loadBalancer`). */
export const KINDS = {
  namespace: namespaceKind,
  node: nodeKind,
  service: serviceKind,
  secret: secretKind,
  configMap: configMapKind,
  persistentVolumeClaim: persistentVolumeClaimKind,
  pod: podKind,
  event: eventKind,
  resourceQuota: resourceQuotaKind,
  virtualMachine: virtualMachineKind,
  virtualMachineInstance: virtualMachineInstanceKind,
  virtualMachineInstanceMigration: virtualMachineInstanceMigrationKind,
  virtualMachineImage: virtualMachineImageKind,
  keyPair: keyPairKind,
  setting: settingKind,
  loadBalancer: loadBalancerKind,
  ipPool: ipPoolKind,
  networkAttachmentDefinition: networkAttachmentDefinitionKind,
  clusterNetwork: clusterNetworkKind,
  vlanConfig: vlanConfigKind,
  storageClass: storageClassKind,
  serviceAccount: serviceAccountKind,
  clusterRole: clusterRoleKind,
  clusterRoleBinding: clusterRoleBindingKind,
  role: roleKind,
  roleBinding: roleBindingKind,
} as const satisfies Record<string, KindInfo>;

// Every store, server and test shares these objects; freezing turns an accidental edit into a TypeError.
for (const k of Object.values(KINDS)) deepFreeze(k);

deepFreeze(deploymentKind);

/**
 * The kinds a guest RKE2 cluster serves to its cloud provider (core Namespace, Node, Service, Secret, ConfigMap),
 * plus apps/v1 Deployment, where the cloud provider itself runs (its image tag is its version).
 */
export const GUEST_KINDS: readonly KindInfo[] = [namespaceKind, nodeKind, serviceKind, secretKind, configMapKind, deploymentKind];

/**
 * A registry of everything the Harvester cluster serves: core kinds (with the launcher Pods, Events and
 * ResourceQuotas), StorageClass, KubeVirt, Harvester,
 * load balancer, Multus, Harvester's network kinds, and the ServiceAccount/RBAC kinds that guest-cluster credentials use.
 */
export function createHarvesterRegistry(): KindRegistry {
  return new StaticKindRegistry(Object.values(KINDS));
}

/** A registry of what a guest RKE2 cluster serves (see GUEST_KINDS). */
export function createGuestRegistry(): KindRegistry {
  return new StaticKindRegistry([...GUEST_KINDS]);
}
