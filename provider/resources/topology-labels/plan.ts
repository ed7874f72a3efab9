/**
 * The pure part of TopologyLabels: from a host as it is (labels, annotations) and what this resource wants
 * and remembers, the merge patch of exactly our two keys and our two annotations; restoring on release;
 * drift; the zone-count warning. No I/O here.
 *
 * Rules:
 *  - only topology.kubernetes.io/region and /zone are ever written, and only the keys the inputs name;
 *  - the value a key had before we first set it is remembered (state `previous`, and the host annotation
 *    PREVIOUS_ANNOTATION, so a create that failed half-way still knows it), and restored when the key or the
 *    host leaves the inputs or the resource is deleted (null: the label is removed);
 *  - a value changed outside since we wrote it is never overwritten by a restore (their edit wins);
 *  - a host whose OWNER_ANNOTATION names another resource is never touched.
 */
import { HostTopology, KEY_NAMES, OWNER_ANNOTATION, PREVIOUS_ANNOTATION, TOPOLOGY_KEYS, TopologyKey } from './model';

/** A label value per managed key; null: absent. */
export type KeyValues = Partial<Record<TopologyKey, string | null>>;

/** A host as observed. */
export interface LiveHost {
  name: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  resourceVersion?: string;
}

/** The merge patch of a host's metadata (null deletes a key). */
export interface HostPatch {
  metadata: { labels?: Record<string, string | null>; annotations?: Record<string, string | null> };
}

/** What to do with one host. */
export interface HostPlan {
  host: string;
  /** Undefined: the host already is as wanted. */
  patch?: HostPatch;
  /** The remembered previous values after this step (empty once released). */
  previous: KeyValues;
  /** What the managed keys hold after this step (what we then own). */
  applied: HostTopology;
  /** One line per change ("zone: \"a\" → \"b\""), and per value kept because it was changed outside. */
  changes: string[];
}

/** What this resource knows about a host from its state. */
export interface Recorded {
  previous?: KeyValues;
  applied?: HostTopology;
}

/** The live value of a managed key (null: absent). */
export function liveValue(host: LiveHost, key: TopologyKey): string | null {
  return host.labels[TOPOLOGY_KEYS[key]] ?? null;
}

/** The resource named on the host as owner of its topology keys, if any. */
export function ownerOfHost(host: LiveHost): string | undefined {
  return host.annotations[OWNER_ANNOTATION] || undefined;
}

/** The previous values recorded on the host (undefined when absent or unreadable). */
export function previousOnHost(host: LiveHost): KeyValues | undefined {
  const text = host.annotations[PREVIOUS_ANNOTATION];
  if (!text) return undefined;
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    const out: KeyValues = {};
    for (const key of KEY_NAMES) {
      const v = parsed[key];
      if (v === null || typeof v === 'string') out[key] = v;
    }
    return out;
  } catch {
    return undefined;
  }
}

const show = (v: string | null | undefined) => (v === null || v === undefined ? 'absent' : JSON.stringify(v));

function encodePrevious(previous: KeyValues): string {
  const ordered: KeyValues = {};
  for (const key of KEY_NAMES) if (key in previous) ordered[key] = previous[key] ?? null;
  return JSON.stringify(ordered);
}

/**
 * planHost: the step that brings `live` to `desired` (undefined: release the host, restoring what it had) for
 * resource `owner`. Throws nothing: ownership by another resource is checked by the caller first.
 */
export function planHost(owner: string, live: LiveHost, desired: HostTopology | undefined, recorded: Recorded = {}): HostPlan {
  const previous: KeyValues = { ...(recorded.previous ?? previousOnHost(live) ?? {}) };
  const applied: HostTopology = {};
  const labels: Record<string, string | null> = {};
  const changes: string[] = [];
  for (const key of KEY_NAMES) {
    const current = liveValue(live, key);
    const want = desired?.[key];
    if (want !== undefined) {
      if (!(key in previous)) previous[key] = current;
      applied[key] = want;
      if (current !== want) {
        labels[TOPOLOGY_KEYS[key]] = want;
        changes.push(`${key}: ${show(current)} → ${show(want)}`);
      }
      continue;
    }
    if (!(key in previous)) continue;
    // No longer managed: restore, unless someone changed it since we wrote it.
    const wrote = recorded.applied?.[key];
    const before = previous[key] ?? null;
    delete previous[key];
    if (wrote !== undefined && current !== wrote) {
      changes.push(`${key}: kept ${show(current)} (changed outside since this resource set ${show(wrote)}; not restoring ${show(before)})`);
      continue;
    }
    if (current !== before) {
      labels[TOPOLOGY_KEYS[key]] = before;
      changes.push(`${key}: ${show(current)} → ${show(before)} (restored)`);
    }
  }
  const annotations: Record<string, string | null> = {};
  const managed = Object.keys(previous).length > 0;
  const ownerValue = managed ? owner : null;
  if ((live.annotations[OWNER_ANNOTATION] ?? null) !== ownerValue) annotations[OWNER_ANNOTATION] = ownerValue;
  const previousValue = managed ? encodePrevious(previous) : null;
  if ((live.annotations[PREVIOUS_ANNOTATION] ?? null) !== previousValue) annotations[PREVIOUS_ANNOTATION] = previousValue;
  const metadata: HostPatch['metadata'] = {};
  if (Object.keys(labels).length) metadata.labels = labels;
  if (Object.keys(annotations).length) metadata.annotations = annotations;
  return { host: live.name, patch: Object.keys(metadata).length ? { metadata } : undefined, previous, applied, changes };
}

/** True when the keys a plan was computed from still hold the same values (a concurrent edit elsewhere is harmless). */
export function sameManagedState(a: LiveHost, b: LiveHost): boolean {
  return KEY_NAMES.every((k) => liveValue(a, k) === liveValue(b, k))
    && a.annotations[OWNER_ANNOTATION] === b.annotations[OWNER_ANNOTATION]
    && a.annotations[PREVIOUS_ANNOTATION] === b.annotations[PREVIOUS_ANNOTATION];
}

/** Distinct zones over every host, sorted. */
export function distinctZones(hosts: LiveHost[]): string[] {
  return [...new Set(hosts.map((h) => liveValue(h, 'zone')).filter((z): z is string => z !== null))].sort();
}

/**
 * zoneWarning: Harvester promotes control-plane nodes by zone once any host has one, and stops promoting
 * while fewer than three distinct zones exist (pkg/controller/master/node/promote_controller.go; users hit it
 * in harvester/harvester#6546). Undefined when no host has a zone or there are at least three.
 */
export function zoneWarning(hosts: LiveHost[]): string | undefined {
  const zones = distinctZones(hosts);
  if (zones.length === 0 || zones.length >= 3) return undefined;
  const unzoned = hosts.filter((h) => liveValue(h, 'zone') === null).map((h) => h.name);
  return (
    `only ${zones.length} distinct zone${zones.length === 1 ? '' : 's'} (${zones.join(', ')}) over ${hosts.length} Harvester host${hosts.length === 1 ? '' : 's'}` +
    `${unzoned.length ? ` (without a zone: ${unzoned.join(', ')})` : ''}: Harvester stops promoting hosts to its HA control plane while fewer than ` +
    'three distinct zones exist (harvester/harvester#6546). Spread the hosts over at least three zones, or leave zones unset.'
  );
}

/** driftOf lists, per host, where the live labels or ownership differ from what this resource wrote. */
export function driftOf(owner: string, applied: Record<string, HostTopology>, live: Map<string, LiveHost>): string[] {
  const out: string[] = [];
  for (const [name, values] of Object.entries(applied)) {
    const host = live.get(name);
    if (!host) {
      out.push(`host ${name}: missing (removed from the Harvester cluster)`);
      continue;
    }
    for (const key of KEY_NAMES) {
      const want = values[key];
      if (want === undefined) continue;
      const got = liveValue(host, key);
      if (got !== want) out.push(`host ${name}: ${TOPOLOGY_KEYS[key]} is ${show(got)}, this resource set ${show(want)}`);
    }
    const o = ownerOfHost(host);
    if (o !== owner) out.push(`host ${name}: annotation ${OWNER_ANNOTATION} is ${show(o)}, expected ${show(owner)}`);
  }
  return out;
}

/** liveInputs: the hosts input as the cluster has it now (read returns these so a UI edit shows as drift). */
export function liveInputs(applied: Record<string, HostTopology>, live: Map<string, LiveHost>): Record<string, HostTopology> {
  const out: Record<string, HostTopology> = {};
  for (const [name, values] of Object.entries(applied)) {
    const host = live.get(name);
    const entry: HostTopology = {};
    for (const key of KEY_NAMES) {
      if (values[key] === undefined || !host) continue;
      const got = liveValue(host, key);
      if (got !== null) entry[key] = got;
    }
    out[name] = entry;
  }
  return out;
}
