/**
 * Pure GuestClusterIdentity planning: the Secret that keeps a cluster's identity, read back both ways.
 *
 * - The material (PKI, the two passwords, the admin certificate) is generated once, at create; afterwards it is only
 *   ever copied: from the live Secret, else from the recorded outputs (a Secret deleted behind our back is written
 *   again with the same keys — a new CA would orphan every node). Only the admin certificate is re-issued, by the
 *   client CA, when it nears its expiry.
 * - The settings (version, networking) are recorded in the annotation `harvester-iac.io/guest-cluster-settings`, so a
 *   refresh reads them back and an import is complete.
 * - Tokens (docs/design/guest-rke2.md §"Tokens"): `K10<caHash>::server:<password>` for servers,
 *   `K10<caHash>::node:<password>` for agents; k3s checks the hash against /cacerts first, then the password as the
 *   role's user, so an agent with the node token can never fetch the server's bootstrap data.
 */
import { randomBytes } from 'node:crypto';
import { stringify } from 'yaml';
import type { Secret } from '../../client/objects';
import { stampOwnership, type OwnerIdentity } from '../../client/ownership';
import { stableStringify } from '../../core/hash';
import { pkiFromFiles, renderPkiFiles } from '../../core/rke2/files';
import type { GuestClusterIdentityInputs, GuestClusterIdentityOutputs } from './model';
import { caHashOf, expiryOf, keyMatches, type ClusterPki, type KeyPairPem } from './pki';

export const RESOURCE_TYPE = 'guest-cluster-identity';
/** The annotation holding the recorded settings (JSON). */
export const SETTINGS_ANNOTATION = 'harvester-iac.io/guest-cluster-settings';
/** Renew the admin certificate when it has less than this left. */
export const RENEW_BEFORE_MS = 30 * 24 * 3600_000;

/** Everything secret the identity holds. */
export interface IdentityMaterial {
  pki: ClusterPki;
  serverPassword: string;
  agentPassword: string;
  admin: KeyPairPem;
}

/** The Secret's data keys (Secret keys may not hold "/"). */
const PKI_KEYS: Record<keyof Omit<ClusterPki, 'serviceKey'>, string> = {
  server: 'server-ca',
  client: 'client-ca',
  requestHeader: 'request-header-ca',
  etcdServer: 'etcd-server-ca',
  etcdPeer: 'etcd-peer-ca',
};

export const secretNameOf = (clusterName: string) => `${clusterName}-rke2-identity`;
export const identityOwner = (clusterName: string): OwnerIdentity => ({ resourceType: RESOURCE_TYPE, resourceName: clusterName });
export const adminUserOf = (clusterName: string) => `${clusterName}-admin`;

/** A random password of 32 hex digits from 16 random bytes. */
export function newPassword(): string {
  return randomBytes(16).toString('hex');
}

export const serverTokenOf = (m: IdentityMaterial) => `K10${caHashOf(m.pki.server.cert)}::server:${m.serverPassword}`;
export const agentTokenOf = (m: IdentityMaterial) => `K10${caHashOf(m.pki.server.cert)}::node:${m.agentPassword}`;

/** The settings the Secret records (every input the cluster keeps, besides its name and namespace). */
export function settingsOf(inputs: GuestClusterIdentityInputs): Partial<GuestClusterIdentityInputs> {
  const { kubeconfig: _k, context: _c, clusterName: _n, namespace: _ns, timeouts: _t, ...settings } = inputs;
  return settings;
}

/** The Secret as we write it. */
export function desiredSecret(inputs: GuestClusterIdentityInputs, m: IdentityMaterial): Secret {
  const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
  const data: Record<string, string> = {};
  for (const [name, key] of Object.entries(PKI_KEYS) as [keyof typeof PKI_KEYS, string][]) {
    data[`${key}.crt`] = b64(m.pki[name].cert);
    data[`${key}.key`] = b64(m.pki[name].key);
  }
  data['service.key'] = b64(m.pki.serviceKey);
  data['server-password'] = b64(m.serverPassword);
  data['agent-password'] = b64(m.agentPassword);
  data['admin.crt'] = b64(m.admin.cert);
  data['admin.key'] = b64(m.admin.key);
  const secret: Secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: secretNameOf(inputs.clusterName),
      namespace: inputs.namespace,
      annotations: { [SETTINGS_ANNOTATION]: stableStringify(settingsOf(inputs)) },
    },
    type: 'Opaque',
    data,
  };
  return stampOwnership(secret, identityOwner(inputs.clusterName));
}

/** The material a Secret holds, or why it cannot be used (a key missing, or not its certificate's). */
export function materialOf(secret: Secret): { material?: IdentityMaterial; problem?: string } {
  const data = secret.data ?? {};
  const text = (key: string) => (data[key] === undefined ? undefined : Buffer.from(data[key], 'base64').toString('utf8'));
  const missing: string[] = [];
  const need = (key: string) => {
    const v = text(key);
    if (!v) missing.push(key);
    return v ?? '';
  };
  const pair = (key: string): KeyPairPem => ({ cert: need(`${key}.crt`), key: need(`${key}.key`) });
  const cas = Object.fromEntries(Object.entries(PKI_KEYS).map(([name, key]) => [name, pair(key)])) as unknown as Omit<ClusterPki, 'serviceKey'>;
  const material: IdentityMaterial = {
    pki: { ...cas, serviceKey: need('service.key') },
    serverPassword: need('server-password'),
    agentPassword: need('agent-password'),
    admin: pair('admin'),
  };
  if (missing.length) return { problem: `it lacks ${missing.join(', ')}` };
  const mismatched = [...Object.entries(PKI_KEYS).map(([name, key]) => [key, material.pki[name as keyof typeof PKI_KEYS]] as const), ['admin', material.admin] as const]
    .filter(([, p]) => !keyMatches(p))
    .map(([key]) => key);
  if (mismatched.length) return { problem: `the key of ${mismatched.join(', ')} is not its certificate's` };
  return { material };
}

/** The material the recorded outputs hold (a Secret lost behind our back is written again from it). */
export function materialFromOutputs(recorded: Partial<GuestClusterIdentityOutputs>): IdentityMaterial | undefined {
  const pki = recorded.bootstrapFiles ? pkiFromFiles(recorded.bootstrapFiles) : undefined;
  const password = (token: string | undefined, user: string) => token?.match(new RegExp(`^K10[0-9a-f]{64}::${user}:(.+)$`))?.[1];
  const serverPassword = password(recorded.serverToken, 'server');
  const agentPassword = password(recorded.agentToken, 'node');
  const admin = adminPairOf(recorded.adminKubeconfig);
  if (!pki || !serverPassword || !agentPassword || !admin) return undefined;
  return { pki, serverPassword, agentPassword, admin };
}

/** The admin certificate and key of a kubeconfig renderKubeconfig made. */
function adminPairOf(kubeconfig: string | undefined): KeyPairPem | undefined {
  const cert = /client-certificate-data: (\S+)/.exec(kubeconfig ?? '')?.[1];
  const key = /client-key-data: (\S+)/.exec(kubeconfig ?? '')?.[1];
  return cert && key ? { cert: Buffer.from(cert, 'base64').toString('utf8'), key: Buffer.from(key, 'base64').toString('utf8') } : undefined;
}

/** True when the admin certificate must be re-issued now (within RENEW_BEFORE_MS of its expiry, or expired). */
export function adminNeedsRenewal(admin: KeyPairPem, now: number): boolean {
  return new Date(expiryOf(admin.cert)).getTime() - now < RENEW_BEFORE_MS;
}

/** `https://<endpoint>:<port>` (an IPv6 literal bracketed). */
export function urlOf(endpoint: string, port: number): string {
  return `https://${endpoint.includes(':') ? `[${endpoint}]` : endpoint}:${port}`;
}

/** The admin kubeconfig: one cluster, user and context named after the cluster. */
export function renderKubeconfig(clusterName: string, endpoint: string, m: IdentityMaterial): string {
  const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
  const user = adminUserOf(clusterName);
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: clusterName, cluster: { server: urlOf(endpoint, 6443), 'certificate-authority-data': b64(m.pki.server.cert) } }],
    users: [{ name: user, user: { 'client-certificate-data': b64(m.admin.cert), 'client-key-data': b64(m.admin.key) } }],
    contexts: [{ name: clusterName, context: { cluster: clusterName, user } }],
    'current-context': clusterName,
  }, { lineWidth: 0 });
}

/** The live Secret's settings as inputs (every recorded one; a settings annotation edited by hand shows as drift). */
export function liveInputs(secret: Secret): Partial<GuestClusterIdentityInputs> {
  try {
    const parsed = JSON.parse(secret.metadata.annotations?.[SETTINGS_ANNOTATION] ?? '{}') as Partial<GuestClusterIdentityInputs>;
    return parsed && typeof parsed === 'object' ? parsed : {};
  } catch {
    return {};
  }
}

/** The outputs of the inputs and the material. */
export function toOutputs(inputs: GuestClusterIdentityInputs, m: IdentityMaterial, drift: string[] = []): GuestClusterIdentityOutputs {
  return {
    ...inputs,
    secretName: secretNameOf(inputs.clusterName),
    caCertificate: m.pki.server.cert,
    caHash: caHashOf(m.pki.server.cert),
    apiServerUrl: urlOf(inputs.endpoint, 6443),
    supervisorUrl: urlOf(inputs.endpoint, 9345),
    serverToken: serverTokenOf(m),
    agentToken: agentTokenOf(m),
    bootstrapFiles: renderPkiFiles(m.pki),
    adminKubeconfig: renderKubeconfig(inputs.clusterName, inputs.endpoint, m),
    adminCertificateExpires: expiryOf(m.admin.cert),
    drift,
  };
}
