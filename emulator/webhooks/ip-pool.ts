/**
 * load-balancer-harvester's IPPool webhooks (pkg/webhook/ippool/mutator.go, validator.go, error.go).
 *
 * Mutator (create/update): `spec.selector.network` must be `namespace/name` ("invalid network X") of an
 * existing NetworkAttachmentDefinition; labels `loadbalancer.harvesterhci.io/vid` (NAD label
 * `network.harvesterhci.io/vlan-id`, else `vlan` of the NAD config, else 0) and
 * `loadbalancer.harvesterhci.io/global-ip-pool` ("true"/"false").
 * Validator: create/update — ranges non-empty and parseable, no overlap inside the pool nor with other pools,
 * on update every allocated IP still inside the ranges, only one global pool, scope tuples of the pool not
 * overlapping each other, non-zero priority unique, no two priority-0 pools with matching scope; delete —
 * refused while `status.allocated` is non-empty. Errors read "can't create|update IP pool <name> because …"
 * (error.go since v0.4.3; "could not" before).
 */
import { AdmissionHook, AdmissionRequest, KubeObject, StoreReader } from '../api/types';
import { formatRange, formatRangeSet, makeRangeSet, PoolRange, rangesOverlap, rangeSetContains, rangeSetOf, RangeSpec } from '../controllers/ipam';
import { parseIPv4 } from '../util/ipv4';
import { isGlobalPool, PoolSelector, selectorMatches } from '../controllers/ippool-selector';
import { HarvesterKinds } from '../controllers/kinds';
import { LABEL_GLOBAL_POOL, LABEL_POOL_VID, LABEL_VLAN_ID } from '../util/names';
import { field, isDeleting, labelsOf } from '../util/objects';
import { LB_MUTATOR, LB_VALIDATOR, denyInternalError } from './admission';

function selectorOf(pool: KubeObject): PoolSelector {
  return (field<PoolSelector>(pool, 'spec', 'selector') ?? {}) as PoolSelector;
}

function vidOf(store: StoreReader, kinds: HarvesterKinds, network: string): number {
  if (!network) return 0;
  const parts = network.split('/');
  if (parts.length !== 2) throw new Error(`invalid network ${network}`);
  const nad = store.get(kinds.nad, parts[0], parts[1]);
  if (!nad) throw new Error(`network-attachment-definitions.k8s.cni.cncf.io "${parts[1]}" not found`);
  const label = nad.metadata.labels?.[LABEL_VLAN_ID];
  if (label !== undefined) {
    if (!/^-?\d+$/.test(label)) throw new Error(`invalid vlan ${label}`);
    return Number(label);
  }
  try {
    const config = JSON.parse(String(field(nad, 'spec', 'config') ?? '{}')) as { vlan?: number };
    return Number(config.vlan ?? 0);
  } catch (err) {
    throw new Error((err as Error).message);
  }
}

function mutate(req: AdmissionRequest, kinds: HarvesterKinds): void {
  const pool = req.object;
  if (!pool || req.operation === 'DELETE' || isDeleting(pool)) return;
  const verb = req.operation === 'CREATE' ? 'create' : 'update';
  let vid: number;
  try {
    vid = vidOf(req.store, kinds, selectorOf(pool).network ?? '');
  } catch (err) {
    throw denyInternalError(LB_MUTATOR, `can't ${verb} IP pool ${pool.metadata.name} because ${(err as Error).message}`);
  }
  const labels = labelsOf(pool, true);
  labels[LABEL_POOL_VID] = String(vid);
  labels[LABEL_GLOBAL_POOL] = String(isGlobalPool(pool));
}

function formatSelector(s: PoolSelector): string {
  const scope = (s.scope ?? []).map((t) => `{Project:${t.project ?? ''} Namespace:${t.namespace ?? ''} GuestCluster:${t.guestCluster ?? ''}}`);
  return `{Priority:${s.priority ?? 0} Network:${s.network ?? ''} Scope:[${scope.join(' ')}]}`;
}

function checkRanges(pool: KubeObject, others: KubeObject[]): PoolRange[] {
  const ranges = field<RangeSpec[]>(pool, 'spec', 'ranges') ?? [];
  if (ranges.length === 0) throw new Error("range can't be empty");
  const set = makeRangeSet(ranges);
  for (let i = 0; i < set.length; i++) {
    for (let j = i + 1; j < set.length; j++) {
      if (rangesOverlap(set[i], set[j])) throw new Error(`there are overlaps between range ${formatRange(set[i])} and ${formatRange(set[j])}`);
    }
  }
  for (const other of others) {
    const otherSet = rangeSetOf(other);
    if (set.some((a) => otherSet.some((b) => rangesOverlap(a, b)))) throw new Error(`the ranges ${formatRangeSet(set)} overlap with other pools`);
  }
  return set;
}

function checkSelector(pool: KubeObject, others: KubeObject[]): void {
  if (isGlobalPool(pool)) {
    const existing = others.find((p) => isGlobalPool(p));
    if (existing) throw new Error(`there is already a global IP pool: ${existing.metadata.name}`);
    return;
  }
  const selector = selectorOf(pool);
  const scope = selector.scope ?? [];
  for (let i = 0; i < scope.length; i++) {
    const rest: PoolSelector = { priority: selector.priority, network: selector.network, scope: scope.slice(i + 1) };
    const r = { network: selector.network ?? '', project: scope[i].project ?? '', namespace: scope[i].namespace ?? '', cluster: scope[i].guestCluster ?? '' };
    if (selectorMatches(rest, r)) throw new Error(`selector ${formatSelector(selector)} is invalid: scope overlaps`);
  }
  for (const other of others) {
    if (isGlobalPool(other)) continue;
    const os = selectorOf(other);
    const mine = Number(selector.priority ?? 0);
    const theirs = Number(os.priority ?? 0);
    if (theirs !== 0 && theirs === mine) throw new Error(`the priority can't be the same as the pool ${other.metadata.name}`);
    if (theirs === 0 && mine === 0) {
      for (const t of scope) {
        const r = { network: selector.network ?? '', project: t.project ?? '', namespace: t.namespace ?? '', cluster: t.guestCluster ?? '' };
        if (selectorMatches(os, r)) {
          throw new Error(
            `scope selector is same as the pool ${other.metadata.name} with priority 0 Project ${r.project} Namespace ${r.namespace} GuestCluster ${r.cluster}, set a different priority or scope`,
          );
        }
      }
    }
  }
}

function validate(req: AdmissionRequest, kinds: HarvesterKinds): void {
  if (req.operation === 'DELETE') {
    const allocated = field<Record<string, string>>(req.oldObject, 'status', 'allocated') ?? {};
    if (Object.keys(allocated).length > 0) throw denyInternalError(LB_VALIDATOR, "can't delete pool before releasing all the allocated IP");
    return;
  }
  const pool = req.object;
  if (!pool || isDeleting(pool)) return;
  const verb = req.operation === 'CREATE' ? 'create' : 'update';
  const others = req.store.list(kinds.ipPool).items.filter((p) => p.metadata.name !== pool.metadata.name);
  try {
    const set = checkRanges(pool, others);
    if (req.operation === 'UPDATE') {
      for (const ip of Object.keys(field<Record<string, string>>(pool, 'status', 'allocated') ?? {})) {
        const n = parseIPv4(ip);
        if (n === undefined) throw new Error(`invalid ip string ${ip}`);
        if (!rangeSetContains(set, n)) throw new Error(`allocated IP ${ip} is excluded`);
      }
    }
    checkSelector(pool, others);
  } catch (err) {
    throw denyInternalError(LB_VALIDATOR, `can't ${verb} IP pool ${pool.metadata.name} because ${(err as Error).message}`);
  }
}

/** The IPPool mutating + validating webhooks. */
export function ipPoolWebhooks(kinds: HarvesterKinds): AdmissionHook[] {
  const resources = ['ippools.loadbalancer.harvesterhci.io'];
  return [
    { name: LB_MUTATOR, resources, mutate: (req) => mutate(req, kinds) },
    { name: LB_VALIDATOR, resources, validate: (req) => validate(req, kinds) },
  ];
}
