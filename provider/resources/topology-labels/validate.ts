/**
 * Pure input validation for `check`: the zod model plus the rules it cannot say, every failure named by its
 * input path with the observed value and the fix, all at once. Unknown values (preview) are never judged;
 * secret inputs are never quoted.
 */
import type { CheckFailure } from '../../core/types';
import { formatPath, inputErrorMap, issuesToFailures, schemaKeys } from '../../core/input-errors';
import { containsUnknown, isUnknown } from '../../core/unknowns';
import { KEY_NAMES, SECRET_INPUTS, TOPOLOGY_KEYS, topologyLabelsSchema, type TopologyLabelsInputs } from './model';

type Obj = Record<string, unknown>;

/** Result of validateInputs. */
export interface Validation {
  /** Inputs with defaults applied, when valid and fully known. */
  inputs?: TopologyLabelsInputs;
  failures: CheckFailure[];
  hasUnknowns: boolean;
}

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const knownKeys = schemaKeys(topologyLabelsSchema);
const FULL_KEYS = new Map<string, string>(KEY_NAMES.map((k) => [TOPOLOGY_KEYS[k], k]));

/** The rules the model cannot state: per-host keys other than region/zone (with why), and empty hosts. */
export function crossFieldFailures(raw: Obj): CheckFailure[] {
  const out: CheckFailure[] = [];
  const fail = (property: string, reason: string) => out.push({ property, reason });
  if (!isObj(raw.hosts)) return out;
  for (const [host, entry] of Object.entries(raw.hosts)) {
    const at = formatPath(['hosts', host]);
    if (!isObj(entry)) continue;
    for (const key of Object.keys(entry)) {
      if ((KEY_NAMES as readonly string[]).includes(key)) continue;
      const short = FULL_KEYS.get(key);
      fail(
        formatPath(['hosts', host, key]),
        short
          ? `write the key as "${short}": the input names the label ${key} by its short name.`
          : `only "region" and "zone" can be set: they are the host labels (topology.kubernetes.io/region and /zone) Harvester copies to guest-cluster VMs and ` +
            'its cloud provider puts on guest nodes; other host labels are never synced (harvester/harvester#1418). Remove this key, and manage other host labels elsewhere.',
      );
    }
    if (!containsUnknown(entry) && KEY_NAMES.every((k) => entry[k] === undefined) && Object.keys(entry).every((k) => (KEY_NAMES as readonly string[]).includes(k))) {
      fail(at, 'sets neither region nor zone, so there is nothing to manage on this host. Set region and/or zone, or remove the host.');
    }
  }
  if (Object.keys(raw.hosts).length === 0) fail('hosts', 'is empty: name at least one Harvester host with its region and/or zone.');
  if (raw.waitForGuestSync === true && raw.guestKubeconfig === undefined && !isUnknown(raw.guestKubeconfig)) {
    fail('waitForGuestSync', 'is true but guestKubeconfig is not set: waiting needs the guest cluster. Set guestKubeconfig, or set waitForGuestSync to false.');
  }
  return out;
}

/** validateInputs checks raw inputs (keys starting with "__" ignored) and returns every failure at once. */
export function validateInputs(raw: Record<string, unknown>): Validation {
  const user: Obj = Object.fromEntries(Object.entries(raw ?? {}).filter(([k]) => !k.startsWith('__')));
  const hasUnknowns = containsUnknown(user);
  const cross = crossFieldFailures(user);
  const parsed = topologyLabelsSchema.safeParse(user, { error: inputErrorMap });
  const failures = [...cross];
  const seen = new Set(cross.map((f) => f.property));
  if (!parsed.success) {
    for (const f of issuesToFailures(parsed.error.issues, user, { secretInputs: SECRET_INPUTS, knownKeys })) if (!seen.has(f.property)) failures.push(f);
  }
  const inputs = parsed.success && failures.length === 0 && !hasUnknowns ? parsed.data : undefined;
  return { inputs, failures, hasUnknowns };
}
