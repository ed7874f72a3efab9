/**
 * The label and annotation keys of users' maps on our objects: which are system keys (Harvester's, KubeVirt's, the
 * node driver's, Kubernetes' or ours: never taken as user input, never read back as drift), and what makes a key
 * or a label value invalid (the API server's rules: a DNS-subdomain prefix, a 63-character qualified name).
 */
import { isLabelValue } from '../client/ownership';
import { isUnknown } from './unknowns';

/**
 * Key prefixes users may not set in `labels`/`annotations`: they belong to Harvester, KubeVirt, the
 * node driver or to us, and are recognised as system keys when reading labels back.
 */
export const RESERVED_KEY_PREFIXES = [
  'harvesterhci.io/',
  'guestcluster.harvesterhci.io/',
  'nodepool.harvesterhci.io/',
  'network.harvesterhci.io/',
  'kubevirt.io/',
  'vm.kubevirt.io/',
  'harvester-iac.io/',
  'app.kubernetes.io/managed-by',
  'kubectl.kubernetes.io/',
  'topology.kubernetes.io/',
  'kubernetes.io/',
];

const reserved = new Map<string, boolean>();

/** isReservedKey says whether a label or annotation key is a system key (rule above). */
export function isReservedKey(key: string): boolean {
  let answer = reserved.get(key);
  if (answer === undefined) {
    answer = RESERVED_KEY_PREFIXES.some((p) => (p.endsWith('/') ? key.startsWith(p) : key === p));
    // Keys repeat across every VM of every pool; the cache stays small (label keys are few).
    if (reserved.size < 10_000) reserved.set(key, answer);
  }
  return answer;
}

/** userEntries keeps the non-system entries of a label or annotation map. */
export function userEntries(map: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(map ?? {})) if (!isReservedKey(k)) out[k] = v;
  return out;
}

const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** labelKeyProblem explains why a label/annotation key is invalid, or returns undefined. */
export function labelKeyProblem(key: string): string | undefined {
  const slash = key.lastIndexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined && (prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) return 'its prefix must be a DNS subdomain (e.g. "example.com/")';
  if (name.length === 0 || name.length > 63 || !QUALIFIED_NAME.test(name)) {
    return 'its name must be 1–63 characters of letters, digits, "-", "_" or ".", starting and ending with a letter or digit';
  }
  return undefined;
}

/**
 * The problems of a user's label (or annotation) map, each as [property, reason]: invalid keys, keys reserved
 * for Harvester, KubeVirt, the node driver or this provider, and (for labels) invalid values. Unknown values
 * (preview) are not judged.
 */
export function labelMapProblems(field: string, map: Record<string, unknown>): [string, string][] {
  const out: [string, string][] = [];
  for (const [key, value] of Object.entries(map)) {
    const property = `${field}["${key}"]`;
    const problem = labelKeyProblem(key);
    if (problem) out.push([property, `key is invalid: ${problem}.`]);
    else if (isReservedKey(key)) out.push([property, 'uses a key reserved for Harvester, KubeVirt, the node driver or this provider. Choose a key under your own prefix, e.g. "example.com/team".']);
    if (field === 'labels' && typeof value === 'string' && !isUnknown(value) && !isLabelValue(value)) {
      out.push([property, `value ${JSON.stringify(value.slice(0, 70))} is not a valid label value (at most 63 characters of letters, digits, "-", "_", ".", starting and ending with a letter or digit).`]);
    }
  }
  return out;
}
