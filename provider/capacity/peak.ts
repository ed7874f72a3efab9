/**
 * The peak demand of a pool's plan (docs/design/capacity.md §peak), from its counts: the VMs it creates (new
 * ones, spread over the zones as the pool spreads them, and the replacements of outdated VMs, in their zones),
 * the outdated and removed VMs whose room comes back, and, during a roll, `maxSurge` VMs of the old size still
 * alive when the last replacements are created. The pool's planner rolls in waves (maxSurge + maxUnavailable);
 * counting every replacement at once while keeping `maxSurge` old VMs is the roll's peak when the new VMs are at
 * least as big, and an overestimate otherwise.
 */
import { zoneTargets } from '../core/zone-targets';
import type { ZoneDemand } from './fit';

/** A pool's VM as the check needs it. */
export interface PoolMember {
  name: string;
  zone?: string;
  /** Its spec differs from the inputs: a roll replaces it. */
  outdated: boolean;
}

/** A pool's counts. */
export interface PoolCounts {
  /** The target count. */
  count: number;
  /** The pool's zones ([] = not pinned). */
  zones: string[];
  /** The pool's VMs now (not those being deleted), in index order. */
  existing: PoolMember[];
  /** Names removed by a scale-down (the planner's choice); default: outdated first, then the last ones. */
  removed?: string[];
  /** Resolved roll limits (VM counts). */
  rolling: { maxSurge: number; maxUnavailable: number };
}

/** What FitPlan needs: create, surge and release. */
export interface PoolPeak {
  create: ZoneDemand[];
  surge: ZoneDemand[];
  release: string[];
}

function tally(zones: (string | undefined)[]): ZoneDemand[] {
  const counts = new Map<string | undefined, number>();
  for (const z of zones) counts.set(z, (counts.get(z) ?? 0) + 1);
  return [...counts.entries()].map(([zone, count]) => (zone === undefined ? { count } : { zone, count }));
}

/** The peak of the plan that takes `pool` from its VMs now to `count` up-to-date VMs. */
export function peakOfRoll(pool: PoolCounts): PoolPeak {
  const surplus = Math.max(0, pool.existing.length - pool.count);
  const removed = new Set(
    pool.removed ?? [...pool.existing.filter((m) => m.outdated), ...pool.existing.filter((m) => !m.outdated)].slice(0, surplus).map((m) => m.name),
  );
  const kept = pool.existing.filter((m) => !removed.has(m.name));
  const outdated = kept.filter((m) => m.outdated);
  const zoneOf = (m: PoolMember) => (pool.zones.length > 0 ? m.zone : undefined);
  const created: (string | undefined)[] = outdated.map(zoneOf);
  const missing = Math.max(0, pool.count - kept.length);
  if (pool.zones.length === 0) created.push(...Array<undefined>(missing).fill(undefined));
  else {
    const current = new Map<string, number>();
    for (const m of kept) if (m.zone) current.set(m.zone, (current.get(m.zone) ?? 0) + 1);
    const targets = zoneTargets(pool.count, pool.zones, current);
    let left = missing;
    for (const z of pool.zones) {
      const n = Math.min(left, Math.max(0, (targets.get(z) ?? 0) - (current.get(z) ?? 0)));
      created.push(...Array<string>(n).fill(z));
      left -= n;
    }
    for (let i = 0; i < left; i++) created.push(pool.zones[i % pool.zones.length]);
  }
  const surge = outdated.slice(-Math.min(pool.rolling.maxSurge, outdated.length)).map(zoneOf);
  return {
    create: tally(created),
    surge: pool.rolling.maxSurge > 0 && outdated.length > 0 ? tally(surge) : [],
    release: [...removed, ...outdated.map((m) => m.name)],
  };
}
