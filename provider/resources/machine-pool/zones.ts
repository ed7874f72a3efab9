/**
 * Zone spreading: with `zones` set, the pool's VMs are spread so that zone counts differ by at most one,
 * each VM pinned to its zone by required node affinity on topology.kubernetes.io/zone. Pure functions;
 * the planner uses them to pick which VMs to remove, where new VMs go and which VMs must move.
 *
 * Rules (each minimises VM moves):
 * 1. Targets: every zone gets floor(count / zones); the remainder goes to the zones that already hold the
 *    most VMs (ties: order of `zones`). It lives in core/zone-targets.ts: the capacity check predicts by it too.
 * 2. Removal (scale-down): VMs outside the listed zones first, then the most populated zone; within those,
 *    outdated VMs first (a roll that was interrupted keeps the replacements it already made), then the
 *    highest index. Without zones and outdated VMs this is simply highest index first.
 * 3. Placement: a VM stays in its zone while that zone is within its target; surplus VMs (highest index
 *    first) and new VMs go to the least filled zone below target (ties: order of `zones`).
 */
import { zoneTargets } from '../../core/zone-targets';

/** A pool member as zone logic sees it. */
export interface ZoneMember {
  index: number;
  /** The zone the VM is pinned to, if any. */
  zone?: string;
  /** Its spec differs from the inputs (it would be rolled): removed before up-to-date VMs. */
  outdated?: boolean;
}

/** Result of {@link assignZones}. */
export interface ZoneAssignment {
  /** Target zone per kept member index (differs from its current zone when it must move). */
  zoneOf: Map<number, string | undefined>;
  /** Zones for the VMs still to create, in creation order. */
  newZones: (string | undefined)[];
}

function countBy(members: readonly ZoneMember[], zones: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>(zones.map((z) => [z, 0]));
  for (const m of members) if (m.zone !== undefined && counts.has(m.zone)) counts.set(m.zone, (counts.get(m.zone) ?? 0) + 1);
  return counts;
}

/** The member to remove first among `candidates`: outdated before up to date, then the highest index. */
function firstToRemove(candidates: readonly ZoneMember[]): ZoneMember {
  const outdated = candidates.filter((m) => m.outdated);
  return (outdated.length ? outdated : candidates).reduce((a, b) => (b.index > a.index ? b : a));
}

/** selectRemovals picks `removeCount` member indexes to remove (rule 2). */
export function selectRemovals(members: readonly ZoneMember[], removeCount: number, zones: readonly string[]): number[] {
  const remaining = [...members];
  const removed: number[] = [];
  const listed = new Set(zones);
  while (removed.length < removeCount && remaining.length > 0) {
    let victim: ZoneMember;
    if (zones.length === 0) {
      victim = firstToRemove(remaining);
    } else {
      const outside = remaining.filter((m) => m.zone === undefined || !listed.has(m.zone));
      if (outside.length) {
        victim = firstToRemove(outside);
      } else {
        const counts = countBy(remaining, zones);
        const most = Math.max(...counts.values());
        victim = firstToRemove(remaining.filter((m) => counts.get(m.zone as string) === most));
      }
    }
    remaining.splice(remaining.indexOf(victim), 1);
    removed.push(victim.index);
  }
  return removed;
}

/**
 * assignZones places `count` VMs given the members kept (at most `count`): rule 1 and rule 3. Without
 * zones every zone is undefined.
 */
export function assignZones(kept: readonly ZoneMember[], count: number, zones: readonly string[]): ZoneAssignment {
  const zoneOf = new Map<number, string | undefined>();
  const creates = Math.max(0, count - kept.length);
  if (zones.length === 0) {
    for (const m of kept) zoneOf.set(m.index, undefined);
    return { zoneOf, newZones: Array.from({ length: creates }, () => undefined) };
  }
  const targets = zoneTargets(count, zones, countBy(kept, zones));
  const filled = new Map<string, number>(zones.map((z) => [z, 0]));
  const movers: ZoneMember[] = [];
  // Lowest indexes keep their zone first, so surplus is taken from the highest indexes.
  for (const m of [...kept].sort((a, b) => a.index - b.index)) {
    const z = m.zone;
    if (z !== undefined && targets.has(z) && (filled.get(z) ?? 0) < (targets.get(z) ?? 0)) {
      zoneOf.set(m.index, z);
      filled.set(z, (filled.get(z) ?? 0) + 1);
    } else {
      movers.push(m);
    }
  }
  // The least filled zone still below target (ties: order of `zones`), so new VMs go round-robin.
  const nextFree = (): string => {
    let z = '';
    let least = Infinity;
    for (const zone of zones) {
      const n = filled.get(zone) ?? 0;
      if (n < (targets.get(zone) ?? 0) && n < least) {
        z = zone;
        least = n;
      }
    }
    filled.set(z, (filled.get(z) ?? 0) + 1);
    return z;
  };
  for (const m of movers) zoneOf.set(m.index, nextFree());
  const newZones = Array.from({ length: creates }, () => nextFree());
  return { zoneOf, newZones };
}
