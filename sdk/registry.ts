/**
 * Every resource the package offers, once: the SDK classes (sdk/generated/resources.ts), `schema.json` and the
 * reference pages docs/resources/*.md are generated from these entries and the zod models they name (`npm run docs`).
 *
 * Adding a resource (its handlers exported from harvester-iac/provider under `exportName`; the whole list is in
 * docs/architecture.md "Adding a resource"):
 *   1. add an entry here (class name, export name, description, the zod input and output models);
 *   2. write its page source docs/src/resources/<kebab-name>.md (title, description, Example, Import, Drift, Errors);
 *   3. `npm run docs` regenerates sdk/generated/*, schema.json and docs/resources/<kebab-name>.md;
 *   4. add the class to examples/quickstart and a row to the README's status table.
 * The tests that compare generated files and check page sources fail until 2 and 3 are done.
 * This module must not import @pulumi/pulumi: the generators and CDKTF adapter read it too.
 */
import type { z } from 'zod';
import { machinePoolSchema } from '../provider/resources/machine-pool/model';
import { machinePoolOutputsSchema } from '../provider/resources/machine-pool/outputs';
import { topologyLabelsOutputsSchema, topologyLabelsSchema } from '../provider/resources/topology-labels/model';
import { ipPoolOutputsSchema, ipPoolSchema } from '../provider/resources/ip-pool/model';
import { loadBalancerOutputsSchema, loadBalancerSchema } from '../provider/resources/load-balancer/model';
import { guestClusterCredentialsOutputsSchema, guestClusterCredentialsSchema } from '../provider/resources/guest-cluster-credentials/model';
import { imageOutputsSchema, imageSchema } from '../provider/resources/image/model';
import { networkOutputsSchema, networkSchema } from '../provider/resources/network/model';
import { keyPairOutputsSchema, keyPairSchema } from '../provider/resources/key-pair/model';
import { guestClusterIdentityOutputsSchema, guestClusterIdentitySchema } from '../provider/resources/guest-cluster-identity/model';
import { guestClusterReadyOutputsSchema, guestClusterReadySchema } from '../provider/resources/guest-cluster-ready/model';
import { guestClusterOutputsSchema, guestClusterSchema } from './guest-cluster/model';

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
}

export const RESOURCES: readonly ResourceEntry[] = [
  {
    className: 'HarvesterMachinePool',
    exportName: 'machinePool',
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
    description:
      'Waits, through the guest cluster\'s API, until every expected Node is Ready and initialised by the Harvester cloud provider (providerID ' +
      'harvester://<VM uid>, no uninitialized taint), with per-node progress and status; when a node cannot come up it says why (wrong token, ' +
      'supervisor unreachable, not Ready in time). Writes nothing.',
    inputs: guestClusterReadySchema,
    outputs: guestClusterReadyOutputsSchema,
    nameInput: 'clusterName',
  },
];

/**
 * A component: built in the program from the resources above (its class is hand-written, e.g.
 * sdk/guest-cluster/component.ts); its Args type (sdk/generated/resources.ts) and its page are generated from its
 * model like a resource's. It has no handlers and no schema.json entry.
 */
export type ComponentEntry = Omit<ResourceEntry, 'exportName'>;

export const COMPONENTS: readonly ComponentEntry[] = [
  {
    className: 'GuestCluster',
    description:
      'A guest RKE2 cluster from zero, without Rancher: its identity (PKI, tokens, admin kubeconfig), a control-plane load balancer (6443 and ' +
      '9345), the cloud provider\'s credentials, a server pool whose first VM initialises the cluster, agent pools, and a readiness wait. ' +
      'Outputs the kubeconfig, the endpoint, the CA and each node\'s status; a version change rolls servers one at a time, then agents.',
    inputs: guestClusterSchema,
    outputs: guestClusterOutputsSchema,
    nameInput: 'clusterName',
  },
];

/** The Pulumi package name (stack config namespace `harvester:`, schema tokens `harvester:index:<Class>`). */
export const PACKAGE_NAME = 'harvester';
