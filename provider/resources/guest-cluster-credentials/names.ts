/**
 * The names and documents Harvester's generator produces (harvester/harvester pkg/api/kubeconfig/generate_handler.go),
 * so objects we make are the ones it would make and an import finds what it made: names joined by
 * wrangler's SafeConcatName (docs/design/harvester-naming.md), a kubeconfig with one cluster/user/context named "default", and cloud-init
 * `write_files` for the two paths the guest reads. Pure.
 */
import { createHash } from 'node:crypto';
import { stringify } from 'yaml';

/** The ClusterRole the cloud provider's RoleBinding names (the only one the generator accepts). */
export const CLOUD_PROVIDER_ROLE = 'harvesterhci.io:cloudprovider';
/** The cluster-wide role the CSI driver's ClusterRoleBinding names. */
export const CSI_DRIVER_ROLE = 'harvesterhci.io:csi-driver';
/** Where the guest's cloud provider and CSI driver read the kubeconfig: the legacy path and RKE2's. */
export const GUEST_CONFIG_PATHS = ['/etc/kubernetes/cloud-config', '/var/lib/rancher/rke2/etc/config-files/cloud-provider-config'] as const;
/**
 * Mode of those files. Harvester's generator writes 0644; the file holds a bearer token, and the guest's readers
 * run as root, so 0600 keeps it from every other local user at no cost.
 */
export const GUEST_CONFIG_MODE = '0600';

/**
 * wrangler's name.SafeConcatName: the parts joined by "-"; from 64 characters on, cut to 57 (56 when the 57th
 * is not a lower-case letter or digit) plus "-" and the first 5 (6) hex digits of the whole name's sha256.
 * The rule, its upstream source and test table: docs/design/harvester-naming.md.
 */
export function safeConcatName(...parts: string[]): string {
  const full = parts.join('-');
  if (full.length < 64) return full;
  const digest = createHash('sha256').update(full, 'utf8').digest('hex');
  return /[a-z0-9]/.test(full[56]) ? `${full.slice(0, 57)}-${digest.slice(0, 5)}` : `${full.slice(0, 56)}-${digest.slice(0, 6)}`;
}

/** The objects' names for a ServiceAccount in a namespace. */
export interface CredentialNames {
  serviceAccount: string;
  tokenSecret: string;
  roleBinding: string;
  clusterRoleBinding: string;
}

export function credentialNames(namespace: string, serviceAccount: string): CredentialNames {
  const binding = safeConcatName(namespace, serviceAccount);
  return { serviceAccount, tokenSecret: safeConcatName(serviceAccount, 'token'), roleBinding: binding, clusterRoleBinding: binding };
}

/** What the kubeconfig is made of: the token Secret's `ca.crt` (base64, as stored) and `token` (decoded). */
export interface KubeconfigParts {
  server: string;
  caBase64: string;
  token: string;
  namespace: string;
}

/** The kubeconfig in the generator's shape (clientcmd's v1 encoding: keys in its order). */
export function renderKubeconfig(parts: KubeconfigParts): string {
  return stringify({
    apiVersion: 'v1',
    clusters: [{ cluster: { 'certificate-authority-data': parts.caBase64, server: parts.server }, name: 'default' }],
    contexts: [{ context: { cluster: 'default', namespace: parts.namespace, user: 'default' }, name: 'default' }],
    'current-context': 'default',
    kind: 'Config',
    preferences: {},
    users: [{ name: 'default', user: { token: parts.token } }],
  }, { lineWidth: 0 });
}

/** The `write_files` entries putting the kubeconfig at both paths the guest reads (root:root, 0600). */
export function guestWriteFiles(kubeconfig: string): Record<string, string>[] {
  const content = Buffer.from(kubeconfig, 'utf8').toString('base64');
  return GUEST_CONFIG_PATHS.map((path) => ({ encoding: 'b64', content, owner: 'root:root', path, permissions: GUEST_CONFIG_MODE }));
}

/** A #cloud-config document holding only those `write_files` (what a machine pool's guestCredentials takes). */
export function renderCloudInit(kubeconfig: string): string {
  return `#cloud-config\n${stringify({ write_files: guestWriteFiles(kubeconfig) }, { lineWidth: 0 })}`;
}
