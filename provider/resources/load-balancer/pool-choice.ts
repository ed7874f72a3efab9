/**
 * Which IP pool Harvester takes a load balancer's address from, when the load balancer names none (ipam "pool",
 * workloadType "vm"), restated from load-balancer-harvester (docs/design/harvester-load-balancer.md): among the
 * pools that are not the global one, those whose selector.network is the load balancer's network (both may be
 * none) and one of whose scope tuples covers it (project and guest cluster "*" or empty, as a vm load balancer has
 * neither; namespace "*" or its own) — the highest priority wins; with none, the global pool. Pure.
 */
import type { IPPool } from '../../client/objects';

/** The label Harvester's IPPool webhook sets on the global pool (a single scope tuple of "*"s). */
export const GLOBAL_POOL_LABEL = 'loadbalancer.harvesterhci.io/global-ip-pool';
const ALL = '*';

/** What a vm load balancer asks of a pool; `undefined` is a value not known yet (a preview): it matches anything. */
export interface PoolRequirement {
  /** "namespace/name" of its VM network, "" for none. */
  network: string | undefined;
  namespace: string | undefined;
}

const covers = (poolValue: string | undefined, wanted: string | undefined) => wanted === undefined || poolValue === ALL || (poolValue ?? '') === wanted;

/** The pool Harvester would choose for `requirement`, or undefined when none would serve it ("no matched IPPool"). */
export function chosenPool(pools: readonly IPPool[], requirement: PoolRequirement): IPPool | undefined {
  let chosen: IPPool | undefined;
  let global: IPPool | undefined;
  let priority = 0;
  for (const pool of pools) {
    if (pool.metadata.deletionTimestamp) continue;
    if (pool.metadata.labels?.[GLOBAL_POOL_LABEL] === 'true') {
      global = pool;
      continue;
    }
    const selector = pool.spec?.selector ?? {};
    if (requirement.network !== undefined && (selector.network ?? '') !== requirement.network) continue;
    const inScope = (selector.scope ?? []).some((t) => covers(t.project, '') && covers(t.namespace, requirement.namespace) && covers(t.guestCluster, ''));
    const p = selector.priority ?? 0;
    if (inScope && p >= priority) {
      chosen = pool;
      priority = p;
    }
  }
  return chosen ?? global;
}
