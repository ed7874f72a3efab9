/**
 * Affinity of the pool's VMs, as the node driver builds it (docs/design/harvester-vms.md §"Affinity") plus zone
 * pinning:
 * 1. No raw `affinity` → the driver's default: preferred (weight 100) pod anti-affinity across hosts for
 *    every node-driver VM (selector `harvesterhci.io/creator Exists`).
 * 2. Raw `affinity` → used as given; if it has pod (anti-)affinity, the driver's weight-1 anti-affinity
 *    term on `harvesterhci.io/machineSetName` is appended.
 * 3. A zone → `topology.kubernetes.io/zone In [zone]` ANDed into every required node selector term.
 * `splitAffinity` inverts this for read-back, so none of it shows as user-set affinity.
 */
import { clone, deepEqual } from '../../client/object-utils';
import { stableStringify } from '../../core/hash';
import { DRIVER_LABELS } from './labels';

/** The host label zones are read from. */
export const ZONE_KEY = 'topology.kubernetes.io/zone';
/**
 * Prefix of the node-affinity keys Harvester's VM mutator adds, one per cluster network of the VM's networks
 * (`network.harvesterhci.io/mgmt`, `network.harvesterhci.io/<cluster network>`; mutator.go patchAffinity).
 * They are ignored in drift, and refused in the `affinity` input (Harvester owns them).
 */
export const CLUSTER_NETWORK_KEY_PREFIX = 'network.harvesterhci.io/';

type Obj = Record<string, unknown>;

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

function isClusterNetworkExpression(e: Obj): boolean {
  return typeof e.key === 'string' && e.key.startsWith(CLUSTER_NETWORK_KEY_PREFIX);
}

/**
 * The node selector terms without the expressions `drop` matches; a term left without expressions loses its
 * `matchExpressions`, and a term left empty is dropped. Terms it does not touch are returned as they are.
 */
function withoutExpressions(terms: Obj[], drop: (e: Obj) => boolean): Obj[] {
  const out: Obj[] = [];
  for (const t of terms) {
    const exprs = (t.matchExpressions ?? []) as Obj[];
    const kept = exprs.filter((e) => !drop(e));
    let term = t;
    if (kept.length === 0 || kept.length !== exprs.length) {
      const { matchExpressions: _dropped, ...rest } = t;
      term = kept.length ? { ...rest, matchExpressions: kept } : rest;
    }
    if (Object.keys(term).length > 0) out.push(term);
  }
  return out;
}

/** `affinity` with its required node selector terms replaced by `terms` (blocks left empty removed). */
function withRequiredTerms(affinity: Obj, terms: Obj[]): Obj {
  const node = affinity.nodeAffinity as Obj;
  const { requiredDuringSchedulingIgnoredDuringExecution: required, ...otherNode } = node;
  const nextNode: Obj = terms.length ? { ...otherNode, requiredDuringSchedulingIgnoredDuringExecution: { ...(required as Obj), nodeSelectorTerms: terms } } : otherNode;
  const { nodeAffinity: _node, ...rest } = affinity;
  return Object.keys(nextNode).length ? { ...rest, nodeAffinity: nextNode } : rest;
}

function requiredTerms(affinity: Obj): Obj[] | undefined {
  const required = (affinity.nodeAffinity as Obj | undefined)?.requiredDuringSchedulingIgnoredDuringExecution as Obj | undefined;
  return Array.isArray(required?.nodeSelectorTerms) ? (required.nodeSelectorTerms as Obj[]) : undefined;
}

/**
 * stripServerAffinity removes what Harvester's VM mutator adds (the cluster-network node selector
 * expressions), dropping terms and blocks it leaves empty. Never modifies its argument.
 */
export function stripServerAffinity(affinity: Obj | undefined): Obj | undefined {
  if (!affinity) return affinity;
  const terms = requiredTerms(affinity);
  return terms ? withRequiredTerms(affinity, withoutExpressions(terms, isClusterNetworkExpression)) : affinity;
}

/** What read-back finds in a live VM's affinity. */
export interface SplitAffinity {
  /** The zone every required term pins the VM to, if any. */
  zone?: string;
  /** The user's raw affinity (undefined when it is the driver default). */
  raw?: Obj;
}

const DEFAULT_ANTI_AFFINITY = defaultAntiAffinity();

/** The zone every required node selector term pins to with `In [zone]` (rule 3's shape), if they all pin the same one. */
function pinnedZone(terms: Obj[]): string | undefined {
  const zones = terms.map((t) => (Array.isArray(t?.matchExpressions) ? (t.matchExpressions as Obj[]) : []).find((e) => e && isZoneExpression(e))?.values as string[] | undefined);
  return terms.length && zones.every((z) => z !== undefined && z[0] === zones[0]?.[0]) ? zones[0]?.[0] : undefined;
}

/**
 * The zone a raw `affinity` input pins every VM to in rule 3's shape, if it does: built without `zones`, its VM
 * would read back as pinned by the pool to that zone (splitAffinity cannot tell the two apart), so check refuses it.
 */
export function affinityZonePin(raw: Obj | undefined): string | undefined {
  const terms = raw && isObject(raw.nodeAffinity) && requiredTerms(raw);
  return terms ? pinnedZone(terms) : undefined;
}

const isObject = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** splitAffinity inverts buildAffinity on a live VM's affinity (after stripServerAffinity). Never modifies its argument. */
export function splitAffinity(live: Obj | undefined, machineSetName: string): SplitAffinity {
  let affinity = stripServerAffinity(live) ?? {};
  const terms = requiredTerms(affinity) ?? [];
  const zone = pinnedZone(terms);
  if (zone !== undefined) affinity = withRequiredTerms(affinity, withoutExpressions(terms, isZoneExpression));
  const keys = Object.keys(affinity).filter((k) => affinity[k] !== undefined);
  if (keys.length === 0 || (keys.length === 1 && keys[0] === 'podAntiAffinity' && deepEqual(affinity, DEFAULT_ANTI_AFFINITY))) return { zone };
  const anti = affinity.podAntiAffinity as Obj | undefined;
  const preferred = anti?.preferredDuringSchedulingIgnoredDuringExecution as Obj[] | undefined;
  if (anti && preferred?.length) {
    const marker = stableStringify(machineSetTerm(machineSetName));
    const kept = preferred.filter((t) => stableStringify(t) !== marker);
    if (kept.length !== preferred.length) {
      const { preferredDuringSchedulingIgnoredDuringExecution: _preferred, ...otherAnti } = anti;
      const nextAnti: Obj = kept.length ? { ...otherAnti, preferredDuringSchedulingIgnoredDuringExecution: kept } : otherAnti;
      const { podAntiAffinity: _anti, ...rest } = affinity;
      affinity = Object.keys(nextAnti).length ? { ...rest, podAntiAffinity: nextAnti } : rest;
    }
  }
  return { zone, raw: affinity };
}

/** mentionsNodeKey says whether a raw affinity's node affinity has selector expressions on `key` (or, ending in "/", any key under it). */
export function mentionsNodeKey(raw: Obj | undefined, key: string): boolean {
  const node = raw?.nodeAffinity as Obj | undefined;
  if (!node) return false;
  const required = ((node.requiredDuringSchedulingIgnoredDuringExecution as Obj | undefined)?.nodeSelectorTerms ?? []) as Obj[];
  const preferred = ((node.preferredDuringSchedulingIgnoredDuringExecution ?? []) as Obj[]).map((p) => (p.preference ?? {}) as Obj);
  return [...required, ...preferred].some((term) =>
    [...((term?.matchExpressions ?? []) as Obj[]), ...((term?.matchFields ?? []) as Obj[])].some((e) =>
      typeof e?.key === 'string' && (key.endsWith('/') ? e.key.startsWith(key) : e.key === key)));
}

/** The node label Harvester's VM mutator sets, and takes back, for dedicated CPU placement (KubeVirt's CPUManager). */
const CPU_MANAGER_KEY = 'cpumanager';
/**
 * What the mutator strips required rules by: a prefix, not a path segment, so `network.harvesterhci.io.x` goes too.
 * Keys under `network.harvesterhci.io/` are refused apart, in both kinds of term (validate.ts).
 */
const NETWORK_KEY_GROUP = 'network.harvesterhci.io';

/**
 * What Harvester's VM mutator would take out of `raw`'s required node selector terms, as check failures
 * [property, reason] (docs/design/harvester-vms.md §"Node affinity from networks"): it removes every `cpumanager`
 * rule and every rule whose key begins with `network.harvesterhci.io`, and it drops a term left without
 * matchExpressions, its matchFields with it. Such a rule would never apply and the VMs would read back without it,
 * drifting after every up. With zones, every term gets the zone's expression (rule 3), so no term is left empty.
 */
export function mutatorStrippedTerms(raw: Obj, noZones: boolean): [string, string][] {
  const out: [string, string][] = [];
  (requiredTerms(raw) ?? []).forEach((term, i) => {
    const property = `affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[${i}]`;
    const exprs = (Array.isArray(term?.matchExpressions) ? term.matchExpressions : []) as Obj[];
    const networkLike = exprs.find((e) => typeof e?.key === 'string' && e.key.startsWith(NETWORK_KEY_GROUP) && !e.key.startsWith(CLUSTER_NETWORK_KEY_PREFIX));
    if (exprs.some((e) => e?.key === CPU_MANAGER_KEY)) {
      out.push([property, `uses the ${CPU_MANAGER_KEY} key: Harvester sets it itself for dedicated CPU placement and removes it otherwise. Remove that expression.`]);
    } else if (networkLike) {
      out.push([property, `uses the key ${JSON.stringify(networkLike.key)}: Harvester's VM mutator removes every required rule whose key begins with ${NETWORK_KEY_GROUP}, so it would never apply. Label the hosts under another prefix and select that.`]);
    } else if (noZones && exprs.length === 0) {
      out.push([property, 'has no matchExpressions of its own: Harvester\'s VM mutator drops such a term (matchFields and all), so it would never apply. Express it with matchExpressions, e.g. { key: "kubernetes.io/hostname", operator: "In", values: [...] } for hosts by name.']);
    }
  });
  return out;
}
