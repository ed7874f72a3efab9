/**
 * Where RKE2 reads what a guest cluster's nodes are given (docs/design/guest-rke2.md §"The user-data contract"), and
 * the cloud-init `write_files` entries that put the cluster's PKI there on the initialising server: each CA's
 * certificate (0640) and key (0600) under /var/lib/rancher/rke2/server/tls (etcd's under tls/etcd), and
 * service.key (0600). RKE2 uses CA files it finds at its first start instead of generating its own (k3s
 * createSigningCertKey returns early when both files exist); joining servers get them from the cluster.
 */
import { parse, stringify } from 'yaml';

/** A certificate and its private key, both PEM. */
export interface KeyPairPem {
  cert: string;
  key: string;
}

/** Everything secret a cluster is born with: its CAs (by RKE2's file names below) and the service-account key. */
export interface ClusterPki {
  server: KeyPairPem;
  client: KeyPairPem;
  requestHeader: KeyPairPem;
  etcdServer: KeyPairPem;
  etcdPeer: KeyPairPem;
  /** The service-account signing key (PKCS#8 PEM). */
  serviceKey: string;
}

export const RKE2_CONFIG_PATH = '/etc/rancher/rke2/config.yaml';
export const TLS_DIR = '/var/lib/rancher/rke2/server/tls';
/** Where the bundled Harvester cloud provider chart reads its kubeconfig (and GuestClusterCredentials writes it). */
export const CLOUD_PROVIDER_CONFIG_PATH = '/var/lib/rancher/rke2/etc/config-files/cloud-provider-config';
/** A manifest RKE2 applies from a server's disk: the bundled cloud provider chart's values. */
export const CCM_CHART_CONFIG_PATH = '/var/lib/rancher/rke2/server/manifests/harvester-cloud-provider-config.yaml';

/** The file name (under TLS_DIR, without extension) of each CA. */
export const CA_FILE_NAMES: Record<keyof Omit<ClusterPki, 'serviceKey'>, string> = {
  server: 'server-ca',
  client: 'client-ca',
  requestHeader: 'request-header-ca',
  etcdServer: 'etcd/server-ca',
  etcdPeer: 'etcd/peer-ca',
};
export const SERVICE_KEY_PATH = `${TLS_DIR}/service.key`;

/** One cloud-init write_files entry. */
export interface WriteFile {
  path: string;
  content: string;
  encoding?: 'b64';
  owner: string;
  permissions: string;
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const file = (path: string, text: string, permissions: string): WriteFile => ({ path, content: b64(text), encoding: 'b64', owner: 'root:root', permissions });

/** The write_files entries of the initialising server's PKI. */
export function pkiWriteFiles(pki: ClusterPki): WriteFile[] {
  const out: WriteFile[] = [];
  for (const [name, base] of Object.entries(CA_FILE_NAMES) as [keyof typeof CA_FILE_NAMES, string][]) {
    const pair = pki[name] as KeyPairPem;
    out.push(file(`${TLS_DIR}/${base}.crt`, pair.cert, '0640'), file(`${TLS_DIR}/${base}.key`, pair.key, '0600'));
  }
  out.push(file(SERVICE_KEY_PATH, pki.serviceKey, '0600'));
  return out;
}

/** The PKI text `pkiWriteFiles` renders (YAML: a list of write_files entries). */
export function renderPkiFiles(pki: ClusterPki): string {
  return stringify(pkiWriteFiles(pki), { lineWidth: 0 });
}

/** The PKI back from the text renderPkiFiles made; undefined when something is missing. */
export function pkiFromFiles(text: string): ClusterPki | undefined {
  let entries: unknown;
  try {
    entries = parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(entries)) return undefined;
  const byPath = new Map<string, string>();
  for (const e of entries as Partial<WriteFile>[]) {
    if (typeof e?.path === 'string' && typeof e.content === 'string') byPath.set(e.path, e.encoding === 'b64' ? Buffer.from(e.content, 'base64').toString('utf8') : e.content);
  }
  const pair = (base: string): KeyPairPem | undefined => {
    const cert = byPath.get(`${TLS_DIR}/${base}.crt`);
    const key = byPath.get(`${TLS_DIR}/${base}.key`);
    return cert && key ? { cert, key } : undefined;
  };
  const cas = Object.fromEntries(Object.entries(CA_FILE_NAMES).map(([name, base]) => [name, pair(base)]));
  const serviceKey = byPath.get(SERVICE_KEY_PATH);
  if (!serviceKey || Object.values(cas).some((c) => c === undefined)) return undefined;
  return { ...(cas as unknown as Omit<ClusterPki, 'serviceKey'>), serviceKey };
}
