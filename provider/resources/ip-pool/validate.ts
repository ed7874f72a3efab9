/**
 * check's pure rules for an IPPool, mirroring the IPPool webhook (load-balancer-harvester
 * pkg/webhook/ippool/validator.go, pkg/ipam/allocator.go; harvester-api.md §C.3) so a bad pool is refused at
 * preview with its field, not at apply by the webhook: valid CIDRs, addresses inside their subnet and not its
 * network or broadcast address, start not after end, the gateway inside the subnet and outside the range,
 * no two ranges of the pool overlapping, scope tuples not overlapping each other.
 * The rules that need the other pools (overlap, one global pool, unique priority) run in handlers.ts.
 */
import { formatPath } from '../../core/input-errors';
import { cidrContains, formatIPv4, parseCidr, parseIPv4, usableRange, type Cidr } from '../../core/ipv4';
import type { CheckFailure } from '../../core/types';
import { isUnknown } from '../../core/unknowns';
import { validateWithModel } from '../../core/validate-model';
import { SECRET_INPUTS, ipPoolSchema, type IPPoolInputs } from './model';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** An address interval [first, last]. */
export interface Interval {
  first: number;
  last: number;
}

/** The addresses a range hands out, with Harvester's defaults; undefined when the range is invalid or unknown. */
export function rangeInterval(range: Obj): Interval | undefined {
  const cidr = parseCidr(range.subnet);
  if (!cidr) return undefined;
  const usable = usableRange(cidr);
  const first = range.rangeStart === undefined ? usable.first : parseIPv4(range.rangeStart);
  const last = range.rangeEnd === undefined ? usable.last : parseIPv4(range.rangeEnd);
  if (first === undefined || last === undefined || first > last) return undefined;
  return { first, last };
}

export function overlaps(a: Interval, b: Interval): boolean {
  return a.first <= b.last && b.first <= a.last;
}

export function formatInterval(i: Interval): string {
  return `${formatIPv4(i.first)}-${formatIPv4(i.last)}`;
}

/** The rules of one range, each failure on its field. */
function rangeFailures(range: Obj, at: (field?: string) => string): CheckFailure[] {
  const out: CheckFailure[] = [];
  const fail = (field: string, reason: string) => out.push({ property: at(field), reason: `${at(field)}: ${reason}` });
  if (isUnknown(range.subnet)) return out;
  const cidr = parseCidr(range.subnet);
  if (!cidr) {
    if (typeof range.subnet === 'string') fail('subnet', `${JSON.stringify(range.subnet)} is not an IPv4 CIDR: write it as network/prefix, e.g. "192.168.100.0/24"`);
    return out;
  }
  if (typeof range.subnet === 'string' && range.subnet.split('/')[0] !== formatIPv4(cidr.network)) {
    fail('subnet', `${range.subnet} has host bits set: the subnet is ${formatIPv4(cidr.network)}/${cidr.prefix}; write that`);
  }
  const usable = usableRange(cidr);
  const address = (field: 'rangeStart' | 'rangeEnd' | 'gateway'): number | undefined => {
    const v = range[field];
    if (v === undefined || isUnknown(v)) return undefined;
    const ip = parseIPv4(v);
    if (ip === undefined) {
      fail(field, `${JSON.stringify(v)} is not an IPv4 address, e.g. "${formatIPv4(usable.first)}"`);
      return undefined;
    }
    if (!cidrContains(cidr, ip)) fail(field, `${v} is outside subnet ${formatIPv4(cidr.network)}/${cidr.prefix}: use an address from ${formatInterval(usable)}`);
    else if (ip < usable.first || ip > usable.last) fail(field, `${v} is the subnet's ${ip < usable.first ? 'network' : 'broadcast'} address, which is never handed out: use an address from ${formatInterval(usable)}`);
    return ip;
  };
  const start = address('rangeStart');
  const end = address('rangeEnd');
  const gateway = address('gateway');
  if (start !== undefined && end !== undefined && start > end) fail('rangeEnd', `${range.rangeEnd} is before rangeStart ${range.rangeStart}: swap them`);
  const interval = rangeInterval(range);
  if (gateway !== undefined && interval && gateway >= interval.first && gateway <= interval.last) {
    fail('gateway', `${range.gateway} lies inside the range ${formatInterval(interval)} it would be handed out from: set rangeStart/rangeEnd around it, or give the real gateway`);
  }
  return out;
}

const scopeKey = (s: Obj) => ['project', 'namespace', 'guestCluster'].map((k) => (typeof s[k] === 'string' ? (s[k] as string) : '*'));
const fieldMatches = (a: string, b: string) => a === '*' || b === '*' || a === b;

/** True when two scope tuples match some common load balancer. */
export function scopesOverlap(a: Obj, b: Obj): boolean {
  const [x, y] = [scopeKey(a), scopeKey(b)];
  return x.every((v, i) => fieldMatches(v, y[i]));
}

/** True when the scope list makes a pool the global pool (a tuple of "*" only). */
export function isGlobalScope(scope: unknown): boolean {
  return Array.isArray(scope) && scope.some((s) => isObj(s) && scopeKey(s).every((v) => v === '*'));
}

export function crossFieldFailures(user: Obj): CheckFailure[] {
  const out: CheckFailure[] = [];
  if (Array.isArray(user.ranges)) {
    const intervals: { at: string; interval: Interval }[] = [];
    user.ranges.forEach((range, i) => {
      if (!isObj(range)) return;
      const at = (field?: string) => formatPath(field ? ['ranges', i, field] : ['ranges', i]);
      out.push(...rangeFailures(range, at));
      const interval = !isUnknown(range.subnet) ? rangeInterval(range) : undefined;
      if (!interval) return;
      const clash = intervals.find((x) => overlaps(x.interval, interval));
      if (clash) out.push({ property: at(), reason: `${at()}: ${formatInterval(interval)} overlaps ${clash.at} (${formatInterval(clash.interval)}): ranges of a pool must not share addresses` });
      intervals.push({ at: at(), interval });
    });
  }
  const selector = isObj(user.selector) ? user.selector : undefined;
  if (selector && Array.isArray(selector.scope)) {
    const scopes = selector.scope;
    scopes.forEach((s, i) => {
      if (!isObj(s)) return;
      const j = scopes.findIndex((t, k) => k < i && isObj(t) && scopesOverlap(t, s));
      if (j >= 0) out.push({ property: formatPath(['selector', 'scope', i]), reason: `${formatPath(['selector', 'scope', i])}: overlaps selector.scope[${j}] (the webhook refuses overlapping scopes in one pool): merge them or make them disjoint` });
    });
  }
  return out;
}

export function validateInputs(raw: Record<string, unknown>) {
  return validateWithModel(ipPoolSchema, raw, { secretInputs: SECRET_INPUTS, crossField: crossFieldFailures });
}

/** The pool's intervals (every range valid: inputs already checked). */
export function intervalsOf(inputs: Pick<IPPoolInputs, 'ranges'>): Interval[] {
  return inputs.ranges.map((r) => rangeInterval(r)).filter((x): x is Interval => x !== undefined);
}

export type { Cidr };
