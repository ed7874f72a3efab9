/**
 * The kubeconfig the emulator hands out: one cluster/user/context (named `harvester` by default, like the
 * kubeconfig downloaded from Harvester's UI), the CA as certificate-authority-data and a bearer token.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { stringify } from 'yaml';

/** What goes into a kubeconfig. */
export interface KubeconfigSpec {
  server: string;
  token: string;
  /** PEM CA; omitted for plain-http servers (then insecure-skip-tls-verify is set, which client-node requires). */
  caCert?: string;
  /** Cluster, user and context name; default `harvester`. */
  name?: string;
  /** Context namespace; default `default`. */
  namespace?: string;
}

/** Render a kubeconfig as YAML. */
export function buildKubeconfig(spec: KubeconfigSpec): string {
  const name = spec.name ?? 'harvester';
  const cluster: Record<string, unknown> = { server: spec.server };
  if (spec.caCert !== undefined) {
    cluster['certificate-authority-data'] = Buffer.from(spec.caCert, 'utf8').toString('base64');
  } else {
    cluster['insecure-skip-tls-verify'] = true;
  }
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster }],
    users: [{ name, user: { token: spec.token } }],
    contexts: [{ name, context: { cluster: name, user: name, namespace: spec.namespace ?? 'default' } }],
    'current-context': name,
    preferences: {},
  };
  return stringify(doc);
}

/**
 * Write a kubeconfig file (mode 0600, parent folders created). The write goes through a temporary file and a
 * rename so a kubectl started concurrently never reads half a file during token rotation.
 */
export function writeKubeconfig(path: string, yamlText: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, yamlText, { mode: 0o600 });
  renameSync(tmp, path);
}
