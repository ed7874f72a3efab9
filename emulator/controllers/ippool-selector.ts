/**
 * Which IPPool serves a LoadBalancer (load-balancer-harvester pkg/ipam/selector.go, controller.go
 * selectIPPool): pools whose `selector.network` equals the LB's network annotation and one of whose scope
 * tuples matches (project, namespace, guestCluster; `*` on either side matches anything) — the highest
 * priority wins (ties: the last one listed), the global pool never among them — else the global pool. Cluster-type LBs retry in "loose" mode,
 * where an empty project/guestCluster in a pool's scope matches anything.
 */
import { KubeObject } from '../api/types';
import { ANN_LB_CLUSTER, ANN_LB_NAMESPACE, ANN_LB_NETWORK, ANN_LB_PROJECT } from '../util/names';
import { field } from '../util/objects';

/** One scope tuple. */
export interface ScopeTuple {
  project?: string;
  namespace?: string;
  guestCluster?: string;
}

/** What an LB asks of a pool. */
export interface PoolRequirement {
  network: string;
  project: string;
  namespace: string;
  cluster: string;
}

/** IPPool spec.selector. */
export interface PoolSelector {
  priority?: number;
  network?: string;
  scope?: ScopeTuple[];
}

const ALL = '*';

function tupleMatches(t: ScopeTuple, r: PoolRequirement, loose: boolean): boolean {
  const one = (poolValue: string | undefined, wanted: string, looseField: boolean): boolean => {
    const v = poolValue ?? '';
    return v === ALL || wanted === ALL || v === wanted || (loose && looseField && v === '');
  };
  return one(t.project, r.project, true) && one(t.namespace, r.namespace, false) && one(t.guestCluster, r.cluster, true);
}

/** ipam.Matcher.Matches: same network and some scope tuple matches. */
export function selectorMatches(selector: PoolSelector | undefined, r: PoolRequirement, loose = false): boolean {
  if ((selector?.network ?? '') !== r.network) return false;
  return (selector?.scope ?? []).some((t) => tupleMatches(t, r, loose));
}

/** ipam.IsGlobalIPPool: exactly one scope tuple, all `*`. */
export function isGlobalPool(pool: KubeObject): boolean {
  const scope = field<ScopeTuple[]>(pool, 'spec', 'selector', 'scope') ?? [];
  return scope.length === 1 && scope[0].project === ALL && scope[0].namespace === ALL && scope[0].guestCluster === ALL;
}

/** The requirement an LB expresses through its (mutator-set) annotations. */
export function requirementOf(lb: KubeObject): PoolRequirement {
  const a = lb.metadata.annotations ?? {};
  return {
    network: a[ANN_LB_NETWORK] ?? '',
    project: a[ANN_LB_PROJECT] ?? '',
    namespace: a[ANN_LB_NAMESPACE] || String(lb.metadata.namespace ?? ''),
    cluster: a[ANN_LB_CLUSTER] ?? '',
  };
}

/** Go's `%+v` of the requirement pointer, as the "no matched IPPool" message prints it. */
export function formatRequirement(r: PoolRequirement): string {
  return `&{Network:${r.network} Project:${r.project} Namespace:${r.namespace} Cluster:${r.cluster}}`;
}

function select(pools: KubeObject[], r: PoolRequirement, loose: boolean): KubeObject | undefined {
  let selected: KubeObject | undefined;
  let global: KubeObject | undefined;
  let priority = 0;
  for (const pool of pools) {
    // Upstream sets the global pool aside: it is only the fallback, never a candidate of its priority.
    if (isGlobalPool(pool)) {
      global = pool;
      continue;
    }
    const selector = field<PoolSelector>(pool, 'spec', 'selector');
    const p = Number(selector?.priority ?? 0);
    if (selectorMatches(selector, r, loose) && p >= priority) {
      selected = pool;
      priority = p;
    }
  }
  return selected ?? global;
}

/** The pool for an LB, or undefined ("no matched IPPool"). */
export function selectPool(pools: KubeObject[], lb: KubeObject): KubeObject | undefined {
  const r = requirementOf(lb);
  const sorted = [...pools].sort((a, b) => String(a.metadata.name).localeCompare(String(b.metadata.name)));
  const strict = select(sorted, r, false);
  if (strict) return strict;
  if (field(lb, 'spec', 'workloadType') === 'cluster') return select(sorted, r, true);
  return undefined;
}
