/**
 * The zone-target rule of a pool spread over zones (rule 1 of resources/machine-pool/zones.ts): every zone gets
 * ⌊count / zones⌋ VMs; the remainder goes to the zones that already hold the most (ties: the order of `zones`), so
 * as few VMs as possible move. The machine pool's planner spreads by it, and the capacity check
 * (capacity/peak.ts) predicts where a plan puts its new VMs by it: both import it from here.
 */

/** How many VMs each zone should hold for `count` VMs, given the current counts per zone. */
export function zoneTargets(count: number, zones: readonly string[], current: ReadonlyMap<string, number> = new Map()): Map<string, number> {
  const targets = new Map<string, number>();
  if (zones.length === 0) return targets;
  const base = Math.floor(count / zones.length);
  let extra = count % zones.length;
  for (const z of zones) targets.set(z, base);
  const byLoad = zones.map((z, order) => ({ z, order, n: current.get(z) ?? 0 })).sort((a, b) => b.n - a.n || a.order - b.order);
  for (const { z } of byLoad) {
    if (extra === 0) break;
    targets.set(z, base + 1);
    extra--;
  }
  return targets;
}
