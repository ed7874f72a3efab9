/**
 * The GuestClusterIdentity inputs and outputs: the one source of truth (types, check, schema.json, docs).
 * What an RKE2 guest cluster is born with and keeps for life (docs/design/guest-rke2.md): its CAs and service-account
 * key, its server and agent join tokens (pinning the server CA's hash), an admin credential signed by its client CA,
 * and the settings every server must share — kept in one Secret on Harvester, in the VMs' namespace, and in the state
 * as Pulumi secrets. A change of those settings replaces the identity, and with it the whole cluster.
 */
import { z } from 'zod';
import { connectionInputs } from '../../core/connection-inputs';
import { inputsFlagged } from '../../core/input-flags';
import { timeoutsInput } from '../../core/timeouts';
import { RKE2_VERSION_EXAMPLE, RKE2_VERSION_PATTERN } from '../../core/rke2/versions';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const CIDR = /^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/;
const rke2Version = z.string().regex(RKE2_VERSION_PATTERN, { error: `must be an RKE2 release such as "${RKE2_VERSION_EXAMPLE}"` });

/** The CNI plugins RKE2 bundles (rke2-docs networking/basic_network_options); "none" to bring your own. */
export const CNI_PLUGINS = ['canal', 'calico', 'cilium', 'flannel', 'none'] as const;

/** The GuestClusterIdentity inputs (zod schema). */
export const guestClusterIdentitySchema = z.strictObject({
  ...connectionInputs,
  clusterName: z.string().max(63).regex(DNS_LABEL, { error: 'must be a lower-case DNS label (a-z, 0-9, "-"), e.g. "prod-1"' }).meta({ replaceOnChanges: true }).describe(
    'Name of the guest cluster: the Harvester cloud provider\'s --cluster-name, the admin user (`<clusterName>-admin`) and the Secret `<clusterName>-rke2-identity`. Required. A change replaces the identity, and so the cluster.',
  ),
  namespace: z.string().max(63).regex(DNS_LABEL, { error: 'must be a lower-case DNS label, e.g. "default"' }).default('default').meta({ replaceOnChanges: true }).describe(
    'Harvester namespace of the cluster\'s VMs, where the Secret is kept. Default "default". A change replaces the identity.',
  ),
  endpoint: z.string().min(1).max(253).describe(
    'Address of the control plane (its load balancer\'s IPv4 address or a DNS name resolving to it): the admin kubeconfig\'s server (`https://<endpoint>:6443`) and the supervisor URL joins use (`https://<endpoint>:9345`). Required. A change updates the kubeconfig in place (servers must list the new address in tls-san).',
  ),
  kubernetesVersion: rke2Version.describe(
    `RKE2 release of the servers, e.g. "${RKE2_VERSION_EXAMPLE}". Required. A change updates in place and is checked at preview: a minor version may not be skipped nor go back (RKE2 upgrades one minor at a time, forward only).`,
  ),
  agentVersions: z.record(z.string(), rke2Version).default({}).describe(
    'RKE2 release of each agent pool, by pool name. Checked at preview against kubernetesVersion: an agent may not be newer than the servers, nor more than three minor versions older. Default none. A change updates in place.',
  ),
  cni: z.enum(CNI_PLUGINS).default('canal').meta({ replaceOnChanges: true }).describe(
    'CNI plugin RKE2 deploys. Default "canal" (RKE2\'s). RKE2 cannot change it on a running cluster, so a change replaces the identity and the cluster.',
  ),
  clusterCidr: z.string().regex(CIDR, { error: 'must be an IPv4 CIDR such as "10.42.0.0/16"' }).default('10.42.0.0/16').meta({ replaceOnChanges: true }).describe(
    'Pod network (RKE2 cluster-cidr, a critical value every server shares). Default "10.42.0.0/16". A change replaces the cluster.',
  ),
  serviceCidr: z.string().regex(CIDR, { error: 'must be an IPv4 CIDR such as "10.43.0.0/16"' }).default('10.43.0.0/16').meta({ replaceOnChanges: true }).describe(
    'Service network (RKE2 service-cidr, critical). Default "10.43.0.0/16". A change replaces the cluster.',
  ),
  clusterDns: z.string().optional().meta({ replaceOnChanges: true }).describe(
    'Cluster DNS service address (RKE2 cluster-dns, critical), inside serviceCidr. Default: the tenth address of serviceCidr (10.43.0.10), as RKE2. A change replaces the cluster.',
  ),
  clusterDomain: z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/, { error: 'must be a DNS domain such as "cluster.local"' }).default('cluster.local').meta({ replaceOnChanges: true }).describe(
    'Cluster DNS domain (RKE2 cluster-domain, critical). Default "cluster.local". A change replaces the cluster.',
  ),
  disableKubeProxy: z.boolean().default(false).meta({ replaceOnChanges: true }).describe(
    'Run no kube-proxy (RKE2 disable-kube-proxy, critical; for a CNI that replaces it). Default false. A change replaces the cluster.',
  ),
  adminCertificateDays: z.number().int().min(1).max(3650).default(365).describe(
    'Days the admin client certificate (of the kubeconfig output) is valid. It is renewed in place by the first update within 30 days of its expiry. Default 365. A change renews it.',
  ),
  timeouts: timeoutsInput(
    { create: ['1m', 'Until the Secret is written.'], update: ['1m', 'Until the Secret is updated.'], delete: ['1m', 'Until the Secret is gone.'] },
    'Bounds of every wait. Default 1m each.',
  ),
});

export type GuestClusterIdentityInputs = z.output<typeof guestClusterIdentitySchema>;
export type GuestClusterIdentityArgs = z.input<typeof guestClusterIdentitySchema>;

/** The outputs: the inputs, the public facts of the PKI and, as secrets, what nodes and admins are given. */
export const guestClusterIdentityOutputsSchema = guestClusterIdentitySchema.extend({
  secretName: z.string().describe('The Harvester Secret keeping the identity (`<clusterName>-rke2-identity`, in namespace).'),
  caCertificate: z.string().describe('The server CA certificate (PEM): what the API and the supervisor serve with, and what the kubeconfig trusts.'),
  caHash: z.string().describe('SHA-256 (hex) of caCertificate\'s bytes: the CA hash both tokens pin (k3s checks it against /cacerts before any password).'),
  apiServerUrl: z.string().describe('`https://<endpoint>:6443`.'),
  supervisorUrl: z.string().describe('`https://<endpoint>:9345`: the `server:` of every node that joins.'),
  serverToken: z.string().meta({ secret: true }).describe('`K10<caHash>::server:<password>`: the token of servers (cluster-admin equivalent: it fetches the CA keys). Secret.'),
  agentToken: z.string().meta({ secret: true }).describe('`K10<caHash>::node:<password>`: the token of agents, which can only join agents. Servers get it as agent-token. Secret.'),
  bootstrapFiles: z.string().meta({ secret: true }).describe(
    'YAML list of cloud-init write_files entries putting the CAs and service.key where RKE2 reads them (/var/lib/rancher/rke2/server/tls): the initialising server\'s alone. Secret.',
  ),
  adminKubeconfig: z.string().meta({ secret: true }).describe(
    'Kubeconfig of the guest cluster\'s admin (`<clusterName>-admin`, group system:masters; a client certificate signed by the client CA) for apiServerUrl, trusting caCertificate. Works as soon as a server is up. Secret.',
  ),
  adminCertificateExpires: z.string().describe('When the admin client certificate expires (ISO 8601).'),
  drift: z.array(z.string()).describe('Differences found by the last read between the Secret and the recorded identity.'),
});
export type GuestClusterIdentityOutputs = z.output<typeof guestClusterIdentityOutputsSchema>;

export const SECRET_INPUTS = inputsFlagged(guestClusterIdentitySchema, 'secret');
export const REPLACE_INPUTS = inputsFlagged(guestClusterIdentitySchema, 'replaceOnChanges');
export const OUTPUT_ONLY: readonly string[] = Object.keys(guestClusterIdentityOutputsSchema.shape).filter((k) => !(k in guestClusterIdentitySchema.shape));
