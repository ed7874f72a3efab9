/**
 * The registry entries the simulated Harvester works with, looked up by apiVersion/kind so this code does not
 * depend on how emulator/kinds names its exports.
 */
import { KindInfo, KindRegistry } from '../api/types';

/** Kinds of the Harvester store used by controllers, webhooks and seed. */
export interface HarvesterKinds {
  namespace: KindInfo;
  node: KindInfo;
  secret: KindInfo;
  pvc: KindInfo;
  /** Core Pods (virt-launcher pods), Events and ResourceQuotas. */
  pod: KindInfo;
  event: KindInfo;
  resourceQuota: KindInfo;
  vm: KindInfo;
  vmi: KindInfo;
  /** KubeVirt live migrations (kubevirt.io/v1 VirtualMachineInstanceMigration). */
  vmim: KindInfo;
  image: KindInfo;
  keyPair: KindInfo;
  setting: KindInfo;
  nad: KindInfo;
  /** network.harvesterhci.io/v1beta1 ClusterNetwork and VlanConfig (the hosts a VM network rides on). */
  clusterNetwork: KindInfo;
  vlanConfig: KindInfo;
  loadBalancer: KindInfo;
  ipPool: KindInfo;
  /** Optional: created for images and seeded when the registry serves it. */
  storageClass?: KindInfo;
  /** Optional: only used to read namespaces' project annotation etc. */
  configMap?: KindInfo;
}

/** Kinds of a guest-cluster store. */
export interface GuestKinds {
  namespace: KindInfo;
  node: KindInfo;
  service: KindInfo;
}

function need(registry: KindRegistry, apiVersion: string, kind: string): KindInfo {
  const info = registry.byKind(apiVersion, kind);
  if (!info) {
    throw new Error(
      `The simulated Harvester needs kind ${kind} (${apiVersion}) but the store's registry does not serve it. ` +
        `Build the store with createHarvesterRegistry() (or createGuestRegistry() for a guest cluster).`,
    );
  }
  return info;
}

/** Resolves the Harvester kinds; throws naming the first missing one. */
export function harvesterKinds(registry: KindRegistry): HarvesterKinds {
  return {
    namespace: need(registry, 'v1', 'Namespace'),
    node: need(registry, 'v1', 'Node'),
    secret: need(registry, 'v1', 'Secret'),
    pvc: need(registry, 'v1', 'PersistentVolumeClaim'),
    pod: need(registry, 'v1', 'Pod'),
    event: need(registry, 'v1', 'Event'),
    resourceQuota: need(registry, 'v1', 'ResourceQuota'),
    vm: need(registry, 'kubevirt.io/v1', 'VirtualMachine'),
    vmi: need(registry, 'kubevirt.io/v1', 'VirtualMachineInstance'),
    vmim: need(registry, 'kubevirt.io/v1', 'VirtualMachineInstanceMigration'),
    image: need(registry, 'harvesterhci.io/v1beta1', 'VirtualMachineImage'),
    keyPair: need(registry, 'harvesterhci.io/v1beta1', 'KeyPair'),
    setting: need(registry, 'harvesterhci.io/v1beta1', 'Setting'),
    nad: need(registry, 'k8s.cni.cncf.io/v1', 'NetworkAttachmentDefinition'),
    clusterNetwork: need(registry, 'network.harvesterhci.io/v1beta1', 'ClusterNetwork'),
    vlanConfig: need(registry, 'network.harvesterhci.io/v1beta1', 'VlanConfig'),
    loadBalancer: need(registry, 'loadbalancer.harvesterhci.io/v1beta1', 'LoadBalancer'),
    ipPool: need(registry, 'loadbalancer.harvesterhci.io/v1beta1', 'IPPool'),
    storageClass: registry.byKind('storage.k8s.io/v1', 'StorageClass'),
    configMap: registry.byKind('v1', 'ConfigMap'),
  };
}

/** Resolves the guest-cluster kinds. */
export function guestKinds(registry: KindRegistry): GuestKinds {
  return {
    namespace: need(registry, 'v1', 'Namespace'),
    node: need(registry, 'v1', 'Node'),
    service: need(registry, 'v1', 'Service'),
  };
}
