/**
 * RKE2's configuration file as the emulator reads it (docs/design/guest-rke2.md §"config.yaml"; rke2-docs
 * install/configuration.md, reference/server_config.md, reference/linux_agent_config.md):
 * `/etc/rancher/rke2/config.yaml`, then `/etc/rancher/rke2/config.yaml.d/*.yaml` in alphabetical order, the last
 * value of a key winning and lists replaced, not merged. Repeatable flags (`tls-san`, `node-label`, `node-taint`,
 * `cni`, `disable`) may be YAML lists or comma-separated strings. The `key+` append form is not supported.
 */
import { parse } from 'yaml';
import { formatCidr, formatIPv4, parseCidr } from '../../util/ipv4';

export const CONFIG_PATH = '/etc/rancher/rke2/config.yaml';
export const CONFIG_DROP_IN_DIR = '/etc/rancher/rke2/config.yaml.d/';

/** The keys the emulator acts on (everything else is kept in `raw` and ignored). */
export interface Rke2Config {
  token?: string;
  agentToken?: string;
  server?: string;
  tlsSan: string[];
  nodeName?: string;
  nodeLabels: string[];
  nodeTaints: string[];
  cni: string[];
  disable: string[];
  cloudProviderName?: string;
  cloudProviderConfig?: string;
  clusterCidr?: string;
  serviceCidr?: string;
  clusterDns?: string;
  clusterDomain?: string;
  disableCloudController?: boolean;
  disableKubeProxy?: boolean;
  egressSelectorMode?: string;
  raw: Record<string, unknown>;
}

function list(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  const items = Array.isArray(value) ? value : [value];
  return items.flatMap((v) => String(v).split(',')).map((v) => v.trim()).filter(Boolean);
}

function text(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return String(value);
}

function bool(value: unknown): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  return value === true || String(value).toLowerCase() === 'true';
}

/** Merges the config file and its drop-ins (from `files`); throws naming the file when one is not a YAML mapping. */
export function readRke2Config(files: Map<string, string>): Rke2Config | undefined {
  const paths = [...files.keys()].filter((p) => p.startsWith(CONFIG_DROP_IN_DIR) && p.endsWith('.yaml')).sort();
  const sources = [...(files.has(CONFIG_PATH) ? [CONFIG_PATH] : []), ...paths];
  if (sources.length === 0) return undefined;
  const raw: Record<string, unknown> = {};
  for (const path of sources) {
    let doc: unknown;
    try {
      doc = parse(files.get(path) ?? '');
    } catch (err) {
      throw new Error(`${path}: not valid YAML: ${(err as Error).message.split('\n')[0]}`);
    }
    if (doc === null || doc === undefined) continue;
    if (typeof doc !== 'object' || Array.isArray(doc)) throw new Error(`${path}: not a YAML mapping of flags`);
    Object.assign(raw, doc);
  }
  return {
    token: text(raw.token),
    agentToken: text(raw['agent-token']),
    server: text(raw.server),
    tlsSan: list(raw['tls-san']),
    nodeName: text(raw['node-name']),
    nodeLabels: list(raw['node-label']),
    nodeTaints: list(raw['node-taint']),
    cni: list(raw.cni),
    disable: list(raw.disable),
    cloudProviderName: text(raw['cloud-provider-name']),
    cloudProviderConfig: text(raw['cloud-provider-config']),
    clusterCidr: text(raw['cluster-cidr']),
    serviceCidr: text(raw['service-cidr']),
    clusterDns: text(raw['cluster-dns']),
    clusterDomain: text(raw['cluster-domain']),
    disableCloudController: bool(raw['disable-cloud-controller']),
    disableKubeProxy: bool(raw['disable-kube-proxy']),
    egressSelectorMode: text(raw['egress-selector-mode']),
    raw,
  };
}

/** Cloud-provider names with a bundled chart: RKE2 rewrites them to `external` and disables its own CCM on servers (rancher/rke2 pkg/cli/cmds/root.go). */
export const BUNDLED_CLOUD_PROVIDERS = ['harvester', 'rancher-vsphere'];

/**
 * RKE2's "critical configuration values" (rke2-docs reference/server_config.md): every server must agree, or a
 * joining server fails "critical configuration value mismatch between servers". Values are compared after
 * defaults, as k3s compares its parsed control config.
 */
export const CRITICAL_KEYS = [
  'agent-token',
  'cluster-cidr',
  'cluster-dns',
  'cluster-domain',
  'disable-cloud-controller',
  'disable-kube-proxy',
  'egress-selector-mode',
  'service-cidr',
] as const;
export type CriticalKey = (typeof CRITICAL_KEYS)[number];

function cidrs(value: string): string {
  return value
    .split(',')
    .map((c) => c.trim())
    .map((c) => {
      const parsed = parseCidr(c);
      return parsed ? formatCidr(parsed) : c;
    })
    .join(',');
}

/** The tenth address of the service CIDR's first block: RKE2's default cluster DNS (10.43.0.10 for 10.43.0.0/16). */
function defaultClusterDns(serviceCidr: string): string {
  const first = parseCidr(serviceCidr.split(',')[0].trim());
  if (!first) return '10.43.0.10';
  return formatIPv4(first.network + 10);
}

/** The critical values of a server config, defaults applied (agent-token compared by its node password). */
export function criticalValues(config: Rke2Config, nodePassword: string): Record<CriticalKey, string> {
  const serviceCidr = cidrs(config.serviceCidr ?? '10.43.0.0/16');
  const bundled = BUNDLED_CLOUD_PROVIDERS.includes(config.cloudProviderName ?? '');
  return {
    'agent-token': nodePassword,
    'cluster-cidr': cidrs(config.clusterCidr ?? '10.42.0.0/16'),
    'cluster-dns': config.clusterDns ?? defaultClusterDns(serviceCidr),
    'cluster-domain': config.clusterDomain ?? 'cluster.local',
    'disable-cloud-controller': String(config.disableCloudController === true || bundled),
    'disable-kube-proxy': String(config.disableKubeProxy === true),
    'egress-selector-mode': config.egressSelectorMode ?? 'agent',
    'service-cidr': serviceCidr,
  };
}

/** The keys whose values differ. */
export function criticalMismatches(a: Record<CriticalKey, string>, b: Record<CriticalKey, string>): CriticalKey[] {
  return CRITICAL_KEYS.filter((k) => a[k] !== b[k]);
}

/** A `node-label` entry (`key=value`) as a pair; throws kubelet's complaint for a malformed one. */
export function parseNodeLabel(entry: string): [string, string] {
  const eq = entry.indexOf('=');
  if (eq <= 0) throw new Error(`invalid node-label "${entry}": expected key=value`);
  return [entry.slice(0, eq), entry.slice(eq + 1)];
}

/** A `node-taint` entry (`key[=value]:Effect`) as a taint; throws for a malformed one (kubelet refuses to start). */
export function parseNodeTaint(entry: string): { key: string; value?: string; effect: string } {
  const colon = entry.lastIndexOf(':');
  const effect = colon > 0 ? entry.slice(colon + 1) : '';
  if (!['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(effect)) throw new Error(`invalid node-taint "${entry}": expected key[=value]:NoSchedule|PreferNoSchedule|NoExecute`);
  const kv = entry.slice(0, colon);
  const eq = kv.indexOf('=');
  if (eq === 0 || kv.length === 0) throw new Error(`invalid node-taint "${entry}": the key is empty`);
  return eq < 0 ? { key: kv, effect } : { key: kv.slice(0, eq), value: kv.slice(eq + 1), effect };
}
