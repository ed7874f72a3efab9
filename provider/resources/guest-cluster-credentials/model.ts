/**
 * The GuestClusterCredentials inputs and outputs: the one source of truth (types, check, schema.json, docs). The
 * credentials a guest cluster's Harvester cloud provider and CSI driver use to call Harvester, made the way
 * Harvester's own generator makes them (harvester/harvester pkg/api/kubeconfig/generate_handler.go;
 * docs/design/guest-cloud-provider.md §"Its credentials"): a ServiceAccount in the VMs' namespace, its token
 * Secret, a RoleBinding to `harvesterhci.io:cloudprovider` in that namespace and a ClusterRoleBinding to
 * `harvesterhci.io:csi-driver`.
 */
import { z } from 'zod';
import { connectionInputs } from '../../core/connection-inputs';
import { timeoutsInput } from '../../core/timeouts';
import { inputsFlagged } from '../../core/input-flags';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** A Kubernetes object name (DNS-1123 subdomain), what the API accepts for a ServiceAccount. */
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** The GuestClusterCredentials inputs (zod schema). */
export const guestClusterCredentialsSchema = z.strictObject({
  ...connectionInputs,
  clusterName: z.string().max(63).regex(DNS_LABEL, { error: 'must be a lower-case DNS label (a-z, 0-9, "-"), e.g. "guest-1"' }).describe(
    'Name of the guest cluster these credentials are for (recorded on the ServiceAccount). Required. A change updates in place, unless it changes the derived serviceAccountName (then the credentials are replaced).',
  ),
  namespace: z.string().max(63).regex(DNS_LABEL, { error: 'must be an existing namespace name, e.g. "default"' }).meta({ replaceOnChanges: true }).describe(
    'Harvester namespace the guest cluster\'s VMs live in: the ServiceAccount, its token and the cloud-provider RoleBinding go there, and the token reaches only it. Required. A change replaces the credentials.',
  ),
  serviceAccountName: z.string().max(253).regex(DNS_SUBDOMAIN, { error: 'must be a lower-case DNS name, e.g. "guest-1"' }).optional().meta({ replaceOnChanges: true }).describe(
    'ServiceAccount name. Default: clusterName (Harvester\'s docs: it must match the guest cluster name, as Rancher names it). A change replaces the credentials.',
  ),
  bindCsiDriverRole: z.boolean().default(true).describe(
    'Bind the cluster-wide role `harvesterhci.io:csi-driver` (ClusterRoleBinding), as Harvester\'s generator always does; false for a guest without the Harvester CSI driver. Default true. A change updates in place.',
  ),
  serverUrl: z.string().regex(/^https:\/\/[^\s/]+(\/\S*)?$/, { error: 'must be an https:// URL guests reach Harvester at, e.g. "https://10.0.0.10:6443"' }).optional().describe(
    'URL the guests reach the Harvester API at, written into the kubeconfig (and recorded on the token Secret). Default: the server of the connection (Harvester\'s generator writes https://<VIP>:6443). A change updates the outputs (and the annotation) only.',
  ),
  rotationTrigger: z.string().optional().describe(
    'Any text; a change rotates the token: the ServiceAccount, its token Secret and the bindings are made again under the same names (a new ServiceAccount uid is what makes a new legacy token), the old token stops working, the outputs change and pools wired to them roll. Default none.',
  ),
  timeouts: timeoutsInput(
    {
      create: ['2m', 'Until the token Secret holds a token and ca.crt.'],
      update: ['2m', 'Until a rotated token is issued.'],
      delete: ['2m', 'Until every object is gone.'],
    },
    'Bounds of every wait. Default 2m each.',
  ),
});

export type GuestClusterCredentialsInputs = z.output<typeof guestClusterCredentialsSchema> & { serviceAccountName: string };
export type GuestClusterCredentialsArgs = z.input<typeof guestClusterCredentialsSchema>;

/** The outputs: the inputs (defaults applied) plus the names made and the two secret documents. */
export const guestClusterCredentialsOutputsSchema = guestClusterCredentialsSchema.extend({
  server: z.string().describe('The server URL written into the kubeconfig.'),
  tokenSecretName: z.string().describe('Name of the token Secret (`<serviceAccountName>-token`, shortened as Harvester shortens names).'),
  roleBindingName: z.string().describe('Name of the RoleBinding to harvesterhci.io:cloudprovider (`<namespace>-<serviceAccountName>`).'),
  clusterRoleBindingName: z.string().describe('Name of the ClusterRoleBinding to harvesterhci.io:csi-driver (`<namespace>-<serviceAccountName>`).'),
  serviceAccountUid: z.string().describe('uid of the ServiceAccount: every other object names it as owner; an import records it to prove what it adopted.'),
  cloudConfig: z.string().meta({ secret: true }).describe(
    'The kubeconfig the guest\'s cloud provider and CSI driver read: cluster, user and context named "default", the token Secret\'s CA and token, the VMs\' namespace. Secret.',
  ),
  cloudInit: z.string().meta({ secret: true }).describe(
    'A #cloud-config document whose write_files put cloudConfig at both paths the guest reads (/etc/kubernetes/cloud-config and /var/lib/rancher/rke2/etc/config-files/cloud-provider-config), root:root 0600. Give it to a machine pool\'s guestCredentials. Secret.',
  ),
  drift: z.array(z.string()).describe('Differences found by the last read between the live objects and the recorded inputs.'),
});
export type GuestClusterCredentialsOutputs = z.output<typeof guestClusterCredentialsOutputsSchema> & { serviceAccountName: string };

export const SECRET_INPUTS = inputsFlagged(guestClusterCredentialsSchema, 'secret');
export const REPLACE_INPUTS = inputsFlagged(guestClusterCredentialsSchema, 'replaceOnChanges');
export const OUTPUT_ONLY: readonly string[] = Object.keys(guestClusterCredentialsOutputsSchema.shape).filter((k) => !(k in guestClusterCredentialsSchema.shape));
