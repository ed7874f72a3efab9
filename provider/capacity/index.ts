/**
 * Capacity at preview (docs/design/capacity.md): what the hosts and the namespace's quotas can still take,
 * and whether a pool's plan fits, before anything is written.
 *
 *   const capacity = await capacityOf(client, { namespace: 'default' });   // cached reads → snapshot
 *   const verdict = fit(capacity, { pool: 'workers', namespace: 'default', vm: { cpu: 4, memoryBytes: 8 * 2 ** 30 },
 *                                   create: [{ zone: 'b', count: 50 }], rules: { clusterNetworks: ['mgmt'] } });
 *   verdict.errors   // certain shortfalls, in the message shape; verdict.warnings: the rest
 *
 * `peakOfRoll` turns a pool's counts into the plan's peak demand.
 */
import type { HarvesterClient } from '../client/harvester-client';
import { Capacity, computeCapacity } from './compute';
import { cachedReadCapacity, ReadOptions } from './reads';

export * from './amounts';
export * from './compute';
export * from './eligibility';
export * from './fit';
export * from './formulas';
export * from './peak';
export { cachedReadCapacity, clearCapacityCache, readCapacity, CACHE_TTL_MS, type CapacityReads, type ReadOptions } from './reads';

/** The capacity snapshot over `client`'s connection (reads shared for a few seconds per connection and namespace). */
export async function capacityOf(client: HarvesterClient, options: ReadOptions = {}): Promise<Capacity> {
  return computeCapacity(await cachedReadCapacity(client, options));
}
