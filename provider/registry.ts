/**
 * Every resource the package offers, once. From this list come: the permanent exports of harvester-iac/provider
 * (provider/index.ts), the SDK classes, `schema.json` and the reference pages (sdk/registry.ts → `npm run docs`),
 * the progress stamping of the host wrapper and the runner (a resource's object), and the checks that every
 * resource has a CDK for Terraform construct and a conformance fixture (tests).
 *
 * Adding a resource (docs/architecture.md "Adding a resource"): its model and its ManagedResource on the
 * reconciler under provider/resources/<r>/, an entry here, its page source docs/src/resources/<kebab-name>.md,
 * `npm run docs`, a CDKTF construct, a conformance fixture.
 *
 * This module loads the models only: a resource's handlers are required when its provider is first used (the SDK
 * and the generators read this list in programs and scripts that never call a handler).
 */
import type { z } from 'zod';
import { formatRef } from './core/object-ref';
import type { ManagedResource } from './core/reconciler/resource';
import { guestClusterCredentialsOutputsSchema, guestClusterCredentialsSchema } from './resources/guest-cluster-credentials/model';
import { imageOutputsSchema, imageSchema } from './resources/image/model';
import { ipPoolOutputsSchema, ipPoolSchema } from './resources/ip-pool/model';
import { keyPairOutputsSchema, keyPairSchema } from './resources/key-pair/model';
import { loadBalancerOutputsSchema, loadBalancerSchema } from './resources/load-balancer/model';
import { machinePoolSchema } from './resources/machine-pool/model';
import { machinePoolOutputsSchema } from './resources/machine-pool/outputs';
import { networkOutputsSchema, networkSchema } from './resources/network/model';
import { topologyLabelsOutputsSchema, topologyLabelsSchema } from './resources/topology-labels/model';
import { guestClusterIdentityOutputsSchema, guestClusterIdentitySchema } from './resources/guest-cluster-identity/model';
import { guestClusterReadyOutputsSchema, guestClusterReadySchema } from './resources/guest-cluster-ready/model';

/** One resource of the package. */
export interface ResourceEntry {
  /** SDK class name and schema.json type name, e.g. "HarvesterMachinePool" (permanent: in users' state as the type token). */
  className: string;
  /** Name of its handlers in harvester-iac/provider (permanent: serialized into users' state). */
  exportName: string;
  /** One paragraph for the class doc comment and schema.json. */
  description: string;
  inputs: z.ZodObject;
  outputs: z.ZodObject;
  /** Input whose default is the Pulumi resource name, if any. */
  nameInput?: string;
  /** The resource on the reconciler (its handlers' module is loaded on first use). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  load: () => ManagedResource<any, any, any>;
}

export const RESOURCES = [
  {
    className: 'HarvesterMachinePool',
    exportName: 'machinePool',
    load: () => (require('./resources/machine-pool/handlers') as typeof import('./resources/machine-pool/handlers')).machinePoolResource(),
    description:
      'A pool of Harvester VMs that become nodes of a guest Kubernetes cluster, built from a cloud image the way Rancher\'s Harvester node ' +
      'driver builds them (cloud-init Secret, qemu-guest-agent, zone affinity), scaled and rolled by diffing the live cluster against the inputs.',
    inputs: machinePoolSchema,
    outputs: machinePoolOutputsSchema,
    nameInput: 'name',
  },
  {
    className: 'TopologyLabels',
    exportName: 'topologyLabels',
    load: () => (require('./resources/topology-labels/handlers') as typeof import('./resources/topology-labels/handlers')).topologyLabelsResource,
    description:
      'topology.kubernetes.io/region and zone labels on Harvester hosts (only these two keys; every other label untouched, previous values ' +
      'restored on delete), optionally verified on the nodes of a guest cluster that the Harvester cloud provider syncs them to.',
    inputs: topologyLabelsSchema,
    outputs: topologyLabelsOutputsSchema,
    nameInput: 'name',
  },
  {
    className: 'HarvesterIPPool',
    exportName: 'ipPool',
    load: () => (require('./resources/ip-pool/handlers') as typeof import('./resources/ip-pool/handlers')).ipPoolResource,
    description:
      'A Harvester load-balancer IP pool (cluster-scoped): address ranges and which load balancers may draw from them. The IPPool webhook\'s rules ' +
      'are checked at preview; updates touch the spec only, never the allocation record; delete is refused while addresses are allocated.',
    inputs: ipPoolSchema,
    outputs: ipPoolOutputsSchema,
    nameInput: 'name',
  },
  {
    className: 'HarvesterLoadBalancer',
    exportName: 'loadBalancer',
    load: () => (require('./resources/load-balancer/handlers') as typeof import('./resources/load-balancer/handlers')).loadBalancerResource,
    description:
      'Harvester\'s built-in load balancer in front of VMs selected by labels (e.g. a HarvesterMachinePool\'s backendSelector), with an address ' +
      'from an IP pool or DHCP and a TCP health check. An ipam change replaces it (the old one is deleted first, its address released).',
    inputs: loadBalancerSchema,
    outputs: loadBalancerOutputsSchema,
    nameInput: 'name',
  },
  {
    className: 'GuestClusterCredentials',
    exportName: 'guestClusterCredentials',
    load: () => (require('./resources/guest-cluster-credentials/handlers') as typeof import('./resources/guest-cluster-credentials/handlers')).guestClusterCredentialsResource,
    description:
      'The Harvester credentials of a guest cluster\'s cloud provider and CSI driver, made as Harvester\'s own kubeconfig generator makes them ' +
      '(ServiceAccount, token Secret, RoleBinding to harvesterhci.io:cloudprovider in the VMs\' namespace, ClusterRoleBinding to harvesterhci.io:csi-driver), ' +
      'with the kubeconfig and the cloud-init write_files the guests read as secret outputs; rotatable, and gone with every object on destroy.',
    inputs: guestClusterCredentialsSchema,
    outputs: guestClusterCredentialsOutputsSchema,
    nameInput: 'clusterName',
  },
  {
    className: 'HarvesterImage',
    exportName: 'image',
    load: () => (require('./resources/image/handlers') as typeof import('./resources/image/handlers')).imageResource,
    description:
      'A Harvester VM image (VirtualMachineImage) downloaded from a URL, optionally checked against a SHA-512; create waits until Harvester has ' +
      'imported it, printing the download\'s progress. Its id, "namespace/name", is what a HarvesterMachinePool\'s disks[].image takes. Delete is ' +
      'refused while volumes made from it exist, naming the VMs.',
    inputs: imageSchema,
    outputs: imageOutputsSchema,
    nameInput: 'name',
  },
  {
    className: 'HarvesterNetwork',
    exportName: 'network',
    load: () => (require('./resources/network/handlers') as typeof import('./resources/network/handlers')).networkResource,
    description:
      'A Harvester VM network: a NetworkAttachmentDefinition bridging VM NICs onto a cluster network (`mgmt` or one a VlanConfig attaches hosts to), ' +
      'tagged with a VLAN or untagged, with its route learnt by DHCP or given. Its id, "namespace/name", is what a machine pool\'s networks[].network takes. ' +
      'Delete is refused while VMs use it, naming them.',
    inputs: networkSchema,
    outputs: networkOutputsSchema,
    nameInput: 'name',
  },
  {
    className: 'HarvesterKeyPair',
    exportName: 'keyPair',
    load: () => (require('./resources/key-pair/handlers') as typeof import('./resources/key-pair/handlers')).keyPairResource,
    description:
      'A Harvester SSH key pair: an OpenSSH public key a machine pool authorises in its VMs (`sshKeys: [keyPair.id]`). A key Harvester would ' +
      'refuse is refused at preview with the reason; create waits until Harvester validated it; outputs the MD5 fingerprint.',
    inputs: keyPairSchema,
    outputs: keyPairOutputsSchema,
    nameInput: 'name',
  },
  {
    className: 'GuestClusterIdentity',
    exportName: 'guestClusterIdentity',
    load: () => (require('./resources/guest-cluster-identity/handlers') as typeof import('./resources/guest-cluster-identity/handlers')).guestClusterIdentityResource,
    description:
      'What an RKE2 guest cluster is born with and keeps: its CAs and service-account key (generated with @peculiar/x509), a server token ' +
      'pinning the server CA\'s hash and a separate agent token, an admin kubeconfig signed by its client CA, and the settings every server ' +
      'must share — kept in one Harvester Secret and as Pulumi secrets. A change of those settings replaces it, and with it the cluster; a ' +
      'Kubernetes version change is checked at preview (no minor skipped, agents never ahead of the servers).',
    inputs: guestClusterIdentitySchema,
    outputs: guestClusterIdentityOutputsSchema,
    nameInput: 'clusterName',
  },
  {
    className: 'GuestClusterReady',
    exportName: 'guestClusterReady',
    load: () => (require('./resources/guest-cluster-ready/handlers') as typeof import('./resources/guest-cluster-ready/handlers')).guestClusterReadyResource,
    description:
      'Waits, through the guest cluster\'s API, until every expected Node is Ready and initialised by the Harvester cloud provider (providerID ' +
      'harvester://<VM uid>, no uninitialized taint), with per-node progress and status; when a node cannot come up it says why (wrong token, ' +
      'supervisor unreachable, not Ready in time). Writes nothing.',
    inputs: guestClusterReadySchema,
    outputs: guestClusterReadyOutputsSchema,
    nameInput: 'clusterName',
  },
] as const satisfies readonly ResourceEntry[];

/** The permanent export names of harvester-iac/provider. */
export type ExportName = (typeof RESOURCES)[number]['exportName'];

/** The registry entry of an SDK class. */
export function entryOf(className: string): ResourceEntry {
  const entry = RESOURCES.find((r) => r.className === className);
  if (!entry) throw new Error(`harvester-iac: no resource ${className} in provider/registry.ts`);
  return entry;
}

/**
 * The object a resource's progress lines are about, from its inputs or recorded state: its id. The host wrapper
 * stamps every line of a call with it and the runner files each line under the resource of that id, so both must
 * take it from here.
 */
export function progressObjectOf(entry: ResourceEntry, values: Record<string, unknown>): string {
  try {
    return formatRef(entry.load().ref(values));
  } catch {
    return '-';
  }
}
