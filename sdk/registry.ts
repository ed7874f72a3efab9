/**
 * The resources of the SDK: the one registry of provider/registry.ts (the SDK classes, `schema.json` and the
 * reference pages docs/resources/*.md are generated from it and the zod models it names, `npm run docs`).
 * This module must not import @pulumi/pulumi: the generators and CDKTF adapter read it too.
 */
import type { ResourceEntry } from '../provider/registry';
import { guestClusterOutputsSchema, guestClusterSchema } from './guest-cluster/model';

export { RESOURCES, entryOf, type ResourceEntry, type ExportName } from '../provider/registry';

/**
 * A component: built in the program from the resources (its class is hand-written, e.g. sdk/guest-cluster/component.ts);
 * its page is generated from its model like a resource's. It has no handlers and no schema.json entry.
 */
export type ComponentEntry = Pick<ResourceEntry, 'className' | 'description' | 'inputs' | 'outputs' | 'nameInput'>;

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
