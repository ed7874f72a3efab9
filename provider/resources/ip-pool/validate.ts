/**
 * check's pure rules for an IPPool, mirroring the IPPool webhook (load-balancer-harvester
 * pkg/webhook/ippool/validator.go, pkg/ipam/allocator.go and selector.go; docs/design/harvester-load-balancer.md
 * §"The IPPool webhook") so a bad pool is refused at preview with its field, not at apply by the webhook: valid
 * CIDRs, addresses inside their subnet and neither its network nor its broadcast address (ranges.ts: none at all in
 * a /31 or /32), start not after end, the gateway inside the subnet and outside the range, a range handing out at
 * least one address, no two ranges of the pool overlapping (one shared address is an overlap), scope tuples not
 * overlapping each other. The rules that need the other pools (overlap, one global pool, unique priority,
 * priority-0 scopes) run in handlers.ts with scopeClash and isGlobalScope below.
 */
import { formatPath } from '../../core/input-errors';
import { formatIPv4, parseCidr, parseIPv4 } from '../../core/ipv4';
import { qualify } from '../../core/object-ref';
import type { CheckFailure } from '../../core/types';
import { isUnknown } from '../../core/unknowns';
import { validateWithModel } from '../../core/validate-model';
import { SECRET_INPUTS, ipPoolSchema } from './model';
import { addressRefusal, allocatorRange, formatInterval, givableAddresses, overlaps, usableCount, type AllocatorRange } from './ranges';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The rules of one range, each failure on its field. */
function rangeFailures(range: Obj, at: (field?: string) => string): CheckFailure[] {
  const out: CheckFailure[] = [];
  const fail = (field: string | undefined, reason: string) => out.push({ property: at(field), reason });
  if (isUnknown(range.subnet)) return out;
  const cidr = parseCidr(range.subnet);
  if (!cidr) {
    if (typeof range.subnet === 'string') fail('subnet', `${JSON.stringify(range.subnet)} is not an IPv4 CIDR: write it as network/prefix, e.g. "192.168.100.0/24"`);
    return out;
  }
  const subnet = `${formatIPv4(cidr.network)}/${cidr.prefix}`;
  if (typeof range.subnet === 'string' && range.subnet.split('/')[0] !== formatIPv4(cidr.network)) {
    fail('subnet', `${range.subnet} has host bits set: the subnet is ${subnet}; write that`);
  }
  const givable = givableAddresses(cidr);
  const hint = givable
    ? `use an address from ${formatInterval(givable)}`
    : `leave it out: Harvester takes no address given for a /${cidr.prefix}, and by default hands out ${formatIPv4(cidr.network)} alone`;
  const address = (field: 'rangeStart' | 'rangeEnd' | 'gateway'): number | undefined => {
    const v = range[field];
    if (v === undefined || isUnknown(v)) return undefined;
    const ip = parseIPv4(v);
    if (ip === undefined) {
      fail(field, `${JSON.stringify(v)} is not an IPv4 address, e.g. "${formatIPv4((givable ?? { first: cidr.network }).first)}"`);
      return undefined;
    }
    const refusal = addressRefusal(cidr, ip);
    if (refusal === 'outside') fail(field, `${v} is outside subnet ${subnet}: ${hint}`);
    else if (refusal) fail(field, `${v} is the subnet's ${refusal} address, which Harvester refuses in a range: ${hint}`);
    return ip;
  };
  const start = address('rangeStart');
  const end = address('rangeEnd');
  const gateway = address('gateway');
  if (start !== undefined && end !== undefined && start > end) fail('rangeEnd', `${range.rangeEnd} is before rangeStart ${range.rangeStart}: swap them`);
  const interval = allocatorRange(range);
  if (gateway !== undefined && interval && gateway >= interval.first && gateway <= interval.last) {
    fail('gateway', `${range.gateway} lies inside the range ${formatInterval(interval)} it would be handed out from: set rangeStart/rangeEnd around it, or give the real gateway`);
  } else if (range.gateway === undefined && interval && usableCount(interval) === 0) {
    fail(undefined, `${formatInterval(interval)} hands out no address: ${formatIPv4(interval.first)} is the default gateway (the subnet's first address), which Harvester skips: widen the range, or set gateway to the real gateway outside it`);
  }
  return out;
}

const SCOPE_FIELDS = ['project', 'namespace', 'guestCluster'] as const;

/**
 * A scope tuple's fields; `unset` is what a missing field means: "*" in our inputs (the model's default, and what
 * we write), "" in a pool read from the cluster (Go's zero value, which matches only "" and "*").
 */
const tupleOf = (s: Obj, unset: string) => SCOPE_FIELDS.map((k) => (typeof s[k] === 'string' ? (s[k] as string) : unset));

/** ipam isMatch in strict mode (pkg/ipam/selector.go): every field equal, or "*" on either side. */
const tuplesMatch = (x: string[], y: string[]) => x.every((v, i) => v === '*' || y[i] === '*' || v === y[i]);

/** True when two scope tuples of our inputs match some common load balancer. */
export function scopesOverlap(a: Obj, b: Obj): boolean {
  return tuplesMatch(tupleOf(a, '*'), tupleOf(b, '*'));
}

/** True when the scope list makes a pool the global pool: exactly one tuple, of "*" only (isGlobalIPPool). */
export function isGlobalScope(scope: unknown, unset = '*'): boolean {
  return Array.isArray(scope) && scope.length === 1 && isObj(scope[0]) && tupleOf(scope[0], unset).every((v) => v === '*');
}

/** A pool selector as the webhook compares them. */
interface SelectorLike {
  network?: string;
  scope?: unknown[];
}

/**
 * The index of our first scope tuple another pool's selector matches, as checkSelectorWithOthers compares two
 * priority-0 pools (ipam Matcher.Matches: the same network, "" for none, and one of its tuples matching ours);
 * -1 when none does.
 */
export function scopeClash(mine: SelectorLike, theirs: SelectorLike | undefined): number {
  if (qualify(mine.network ?? '') !== qualify(theirs?.network ?? '')) return -1;
  const their = (theirs?.scope ?? []).filter(isObj).map((t) => tupleOf(t, ''));
  return (mine.scope ?? []).findIndex((t) => isObj(t) && their.some((o) => tuplesMatch(o, tupleOf(t, '*'))));
}

export function crossFieldFailures(user: Obj): CheckFailure[] {
  const out: CheckFailure[] = [];
  if (Array.isArray(user.ranges)) {
    const intervals: { at: string; interval: AllocatorRange }[] = [];
    user.ranges.forEach((range, i) => {
      if (!isObj(range)) return;
      const at = (field?: string) => formatPath(field ? ['ranges', i, field] : ['ranges', i]);
      out.push(...rangeFailures(range, at));
      const interval = !isUnknown(range.subnet) ? allocatorRange(range) : undefined;
      if (!interval) return;
      const clash = intervals.find((x) => overlaps(x.interval, interval));
      if (clash) out.push({ property: at(), reason: `${formatInterval(interval)} overlaps ${clash.at} (${formatInterval(clash.interval)}): ranges of a pool must not share addresses` });
      intervals.push({ at: at(), interval });
    });
  }
  const selector = isObj(user.selector) ? user.selector : undefined;
  if (selector && Array.isArray(selector.scope)) {
    const scopes = selector.scope;
    scopes.forEach((s, i) => {
      if (!isObj(s)) return;
      const j = scopes.findIndex((t, k) => k < i && isObj(t) && scopesOverlap(t, s));
      if (j >= 0) out.push({ property: formatPath(['selector', 'scope', i]), reason: `overlaps selector.scope[${j}] (the webhook refuses overlapping scopes in one pool): merge them or make them disjoint` });
    });
  }
  return out;
}

export function validateInputs(raw: Record<string, unknown>) {
  return validateWithModel(ipPoolSchema, raw, { secretInputs: SECRET_INPUTS, crossField: crossFieldFailures });
}

/** The ranges of a pool's spec as the allocator builds them (undefined for an invalid one). */
export function rangesOf(ranges: readonly Obj[] | undefined): (AllocatorRange | undefined)[] {
  return (ranges ?? []).map((r) => allocatorRange(r));
}
