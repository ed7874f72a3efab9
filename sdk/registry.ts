/**
 * Every resource the package offers, once: the SDK classes (sdk/generated/resources.ts), `schema.json` and the
 * README's reference tables are generated from these entries and the zod models they name (`npm run docs`).
 *
 * Adding a resource (its handlers exported from harvester-iac/provider under `exportName`):
 *   1. add an entry here (class name, export name, description, the zod input and output models);
 *   2. `npm run docs` regenerates sdk/generated/*, schema.json and the README tables;
 *   3. add the class to examples/quickstart. The tests that compare generated files fail until 2 is done.
 * This module must not import @pulumi/pulumi: the generators and CDKTF adapter read it too.
 */
import type { z } from 'zod';
import { machinePoolSchema } from '../provider/resources/machine-pool/model';
import { machinePoolOutputsSchema } from '../provider/resources/machine-pool/outputs';
import { topologyLabelsOutputsSchema, topologyLabelsSchema } from '../provider/resources/topology-labels/model';
import { ipPoolOutputsSchema, ipPoolSchema } from '../provider/resources/ip-pool/model';
import { loadBalancerOutputsSchema, loadBalancerSchema } from '../provider/resources/load-balancer/model';
import { keyPairOutputsSchema, keyPairSchema } from '../provider/resources/key-pair/model';

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
    className: 'HarvesterKeyPair',
    exportName: 'keyPair',
    description:
      'A Harvester SSH key pair: an OpenSSH public key a machine pool authorises in its VMs (`sshKeys: [keyPair.id]`). A key Harvester would ' +
      'refuse is refused at preview with the reason; create waits until Harvester validated it; outputs the MD5 fingerprint.',
    inputs: keyPairSchema,
    outputs: keyPairOutputsSchema,
    nameInput: 'name',
  },
];

/** The Pulumi package name (stack config namespace `harvester:`, schema tokens `harvester:index:<Class>`). */
export const PACKAGE_NAME = 'harvester';
