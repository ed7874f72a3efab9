/**
 * Affinity of the pool's VMs, as the node driver builds it (harvester-api.md §A.9) plus zone pinning:
 * 1. No raw `affinity` → the driver's default: preferred (weight 100) pod anti-affinity across hosts for
 *    every node-driver VM (selector `harvesterhci.io/creator Exists`).
 * 2. Raw `affinity` → used as given; if it has pod (anti-)affinity, the driver's weight-1 anti-affinity
 *    term on `harvesterhci.io/machineSetName` is appended.
 * 3. A zone → `topology.kubernetes.io/zone In [zone]` ANDed into every required node selector term.
 * `splitAffinity` inverts this for read-back, so none of it shows as user-set affinity.
 */
import { stableStringify } from '../../core/hash';
import { DRIVER_LABELS } from './labels';

/** The host label zones are read from. */
export const ZONE_KEY = 'topology.kubernetes.io/zone';
/** The node-affinity key Harvester's VM mutator adds for the management network (ignored in drift). */
export const MGMT_NETWORK_KEY = 'network.harvesterhci.io/mgmt';

type Obj = Record<string, unknown>;

const clone = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));

/** The driver's default anti-affinity (pkg/builder/vm.go DefaultPodAntiAffinity). */
export function defaultAntiAffinity(): Obj {
  return {
    podAntiAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [
        {
          weight: 100,
          podAffinityTerm: {
            labelSelector: { matchExpressions: [{ key: DRIVER_LABELS.creator, operator: 'Exists' }] },
            topologyKey: 'kubernetes.io/hostname',
          },
        },
      ],
    },
  };
}

function machineSetTerm(machineSetName: string): Obj {
  return {
    weight: 1,
    podAffinityTerm: {
      labelSelector: { matchLabels: { [DRIVER_LABELS.machineSetName]: machineSetName } },
      topologyKey: 'kubernetes.io/hostname',
    },
  };
}

function zoneExpression(zone: string): Obj {
  return { key: ZONE_KEY, operator: 'In', values: [zone] };
}

/** buildAffinity returns the VM template affinity for the raw input, machine set and zone (rules 1–3). */
export function buildAffinity(raw: Obj | undefined, machineSetName: string, zone: string | undefined): Obj {
  let affinity: Obj;
  if (raw === undefined || Object.keys(raw).length === 0) {
    affinity = defaultAntiAffinity();
  } else {
    affinity = clone(raw);
    if (affinity.podAffinity || affinity.podAntiAffinity) {
      const anti = (affinity.podAntiAffinity ?? {}) as Obj;
      const preferred = (anti.preferredDuringSchedulingIgnoredDuringExecution ?? []) as Obj[];
      anti.preferredDuringSchedulingIgnoredDuringExecution = [...preferred, machineSetTerm(machineSetName)];
      affinity.podAntiAffinity = anti;
    }
  }
  if (zone !== undefined) {
    const node = (affinity.nodeAffinity ?? {}) as Obj;
    const required = (node.requiredDuringSchedulingIgnoredDuringExecution ?? {}) as Obj;
    const terms = ((required.nodeSelectorTerms ?? []) as Obj[]).map((t) => ({ ...t }));
    if (terms.length === 0) terms.push({ matchExpressions: [] });
    for (const term of terms) term.matchExpressions = [...((term.matchExpressions ?? []) as Obj[]), zoneExpression(zone)];
    node.requiredDuringSchedulingIgnoredDuringExecution = { ...required, nodeSelectorTerms: terms };
    affinity.nodeAffinity = node;
  }
  return affinity;
}

function isZoneExpression(e: Obj): boolean {
  return e.key === ZONE_KEY && e.operator === 'In' && Array.isArray(e.values) && e.values.length === 1;
}

/**
 * stripServerAffinity removes what Harvester's VM mutator adds (the management-network node selector
 * expression), dropping terms and blocks it leaves empty. Returns a copy.
 */
export function stripServerAffinity(affinity: Obj | undefined): Obj | undefined {
  if (!affinity) return affinity;
  const copy = clone(affinity);
  const node = copy.nodeAffinity as Obj | undefined;
  const required = node?.requiredDuringSchedulingIgnoredDuringExecution as Obj | undefined;
  if (node && required && Array.isArray(required.nodeSelectorTerms)) {
    const terms = (required.nodeSelectorTerms as Obj[])
      .map((t) => {
        if (!Array.isArray(t.matchExpressions)) return t;
        const kept = (t.matchExpressions as Obj[]).filter((e) => e.key !== MGMT_NETWORK_KEY);
        const out: Obj = { ...t, matchExpressions: kept };
        if (kept.length === 0) delete out.matchExpressions;
        return out;
      })
      .filter((t) => Object.keys(t).length > 0);
    if (terms.length) required.nodeSelectorTerms = terms;
    else delete node.requiredDuringSchedulingIgnoredDuringExecution;
    if (Object.keys(node).length === 0) delete copy.nodeAffinity;
  }
  return copy;
}

/** What read-back finds in a live VM's affinity. */
export interface SplitAffinity {
  /** The zone every required term pins the VM to, if any. */
  zone?: string;
  /** The user's raw affinity (undefined when it is the driver default). */
  raw?: Obj;
}

/** splitAffinity inverts buildAffinity on a live VM's affinity (after stripServerAffinity). */
export function splitAffinity(live: Obj | undefined, machineSetName: string): SplitAffinity {
  const affinity = stripServerAffinity(live) ?? {};
  let zone: string | undefined;
  const node = affinity.nodeAffinity as Obj | undefined;
  const required = node?.requiredDuringSchedulingIgnoredDuringExecution as Obj | undefined;
  const terms = (required?.nodeSelectorTerms ?? []) as Obj[];
  const zones = terms.map((t) => ((t.matchExpressions ?? []) as Obj[]).find(isZoneExpression)?.values as string[] | undefined);
  if (terms.length && zones.every((z) => z !== undefined && z[0] === zones[0]?.[0])) {
    zone = zones[0]?.[0];
    const remaining = terms
      .map((t) => {
        const kept = ((t.matchExpressions ?? []) as Obj[]).filter((e) => !isZoneExpression(e));
        const out: Obj = { ...t, matchExpressions: kept };
        if (kept.length === 0) delete out.matchExpressions;
        return out;
      })
      .filter((t) => Object.keys(t).length > 0);
    if (remaining.length) (required as Obj).nodeSelectorTerms = remaining;
    else delete (node as Obj).requiredDuringSchedulingIgnoredDuringExecution;
    if (Object.keys(node as Obj).length === 0) delete affinity.nodeAffinity;
  }
  if (stableStringify(affinity) === stableStringify(defaultAntiAffinity()) || Object.keys(affinity).length === 0) return { zone };
  const anti = affinity.podAntiAffinity as Obj | undefined;
  const preferred = anti?.preferredDuringSchedulingIgnoredDuringExecution as Obj[] | undefined;
  if (anti && preferred?.length) {
    const marker = stableStringify(machineSetTerm(machineSetName));
    const kept = preferred.filter((t) => stableStringify(t) !== marker);
    if (kept.length) anti.preferredDuringSchedulingIgnoredDuringExecution = kept;
    else delete anti.preferredDuringSchedulingIgnoredDuringExecution;
    if (Object.keys(anti).length === 0) delete affinity.podAntiAffinity;
  }
  return { zone, raw: affinity };
}

/** mentionsZoneKey says whether a raw affinity already has node selector expressions on the zone key. */
export function mentionsZoneKey(raw: Obj | undefined): boolean {
  return JSON.stringify(raw?.nodeAffinity ?? {}).includes(`"${ZONE_KEY}"`);
}
