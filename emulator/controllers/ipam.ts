/**
 * IPPool address math as load-balancer-harvester does it with CNI host-local's allocator
 * (pkg/ipam/allocator.go MakeRange/countIP, pkg/ipam/store/store.go, host-local backend/allocator):
 * - a range defaults to subnet+1 … last usable (broadcast-1), gateway subnet+1 (skipped when allocating);
 *   a /32 is one address with no gateway; start > end is swapped, so a /31 (defaults network+1 … network) is
 *   network … network+1 with the gateway network+1 and hands out its network address alone, and a /30 hands
 *   out network+2 alone; start, end and gateway must lie in the subnet and be neither its network nor its
 *   broadcast address. Harvester fills host-local's Range itself: host-local's Canonicalize
 *   (plugins/ipam/host-local/backend/allocator/range.go), which refuses /31 and /32, is never called;
 * - total = addresses in the ranges minus gateways that fall inside them;
 * - allocation prefers the address this LB held before (allocatedHistory), else walks the range set from the
 *   address after `lastAllocated` (host-local's round robin), skipping gateways and allocated addresses.
 * IPv4 only. Error texts are those of load-balancer-harvester v0.4.3 and later (Harvester v1.4+).
 */
import { KubeObject } from '../api/types';
import { Cidr, cidrContains, formatCidr, formatIPv4, maskOf, parseCidr, parseIPv4 } from '../util/ipv4';
import { field } from '../util/objects';

/** An IPPool `spec.ranges[]` entry as written. */
export interface RangeSpec {
  subnet?: string;
  rangeStart?: string;
  rangeEnd?: string;
  gateway?: string;
}

/** A canonical range. */
export interface PoolRange {
  subnet: Cidr;
  start: number;
  end: number;
  gateway?: number;
}

/**
 * parseAddress is the allocator's parseIP: an address of the range must parse, lie in the subnet, and be
 * neither its network nor its broadcast address (so a /32 cannot name its one address explicitly).
 */
function parseAddress(text: string | undefined, subnet: Cidr, fallback: number | undefined): number | undefined {
  if (!text) return fallback;
  const ip = parseIPv4(text);
  if (ip === undefined) throw new Error(`invalid IP ${text}`);
  if (!cidrContains(subnet, ip)) throw new Error(`IP ${text} is out of subnet ${formatCidr(subnet)}`);
  if (ip === subnet.network) throw new Error(`IP ${text} is the network address`);
  if (ip === subnet.broadcast) throw new Error(`IP ${text} is the broadcast address`);
  return ip;
}

function within(what: string, text: string | undefined, parse: () => number | undefined): number | undefined {
  try {
    return parse();
  } catch (err) {
    throw new Error(`invalid ${what} ${text ?? ''}: ${(err as Error).message}`);
  }
}

/** Canonicalises one range; throws an Error with Harvester's message when invalid. */
export function makeRange(r: RangeSpec): PoolRange {
  const subnet = parseCidr(r.subnet);
  // Go's net.ParseCIDR error, with the allocator's hint appended.
  if (!subnet) throw new Error(`invalid CIDR address: ${r.subnet ?? ''}, a valid example is 192.168.1.0/24`);
  const p2p = subnet.prefix === 32;
  let start = within('range start', r.rangeStart, () => parseAddress(r.rangeStart, subnet, p2p ? subnet.network : subnet.network + 1))!;
  let end = within('range end', r.rangeEnd, () => parseAddress(r.rangeEnd, subnet, p2p ? subnet.network : subnet.broadcast - 1))!;
  if (start > end) [start, end] = [end, start];
  const gateway = within('gateway', r.gateway, () => parseAddress(r.gateway, subnet, p2p ? undefined : subnet.network + 1));
  return { subnet, start, end, gateway };
}

/** Canonicalises all ranges (first error wins). */
export function makeRangeSet(ranges: RangeSpec[]): PoolRange[] {
  return ranges.map(makeRange);
}

/** The canonical range set of an IPPool's `spec.ranges` (first error wins). */
export function rangeSetOf(pool: KubeObject): PoolRange[] {
  return makeRangeSet(field<RangeSpec[]>(pool, 'spec', 'ranges') ?? []);
}

/** Go's `%+v` of a host-local Range, as Harvester's overlap messages print it. */
export function formatRange(r: PoolRange): string {
  const gw = r.gateway === undefined ? '<nil>' : formatIPv4(r.gateway);
  return `{RangeStart:${formatIPv4(r.start)} RangeEnd:${formatIPv4(r.end)} Subnet:${formatCidr(r.subnet)} Gateway:${gw}}`;
}

/** Go's `%+v` of a RangeSet. */
export function formatRangeSet(set: PoolRange[]): string {
  return `[${set.map(formatRange).join(' ')}]`;
}

/** `start-end,start-end` as host-local names a range set in its errors. */
export function rangeSetLabel(set: PoolRange[]): string {
  return set.map((r) => `${formatIPv4(r.start)}-${formatIPv4(r.end)}`).join(',');
}

export function rangeContains(r: PoolRange, ip: number): boolean {
  return cidrContains(r.subnet, ip) && ip >= r.start && ip <= r.end;
}

export function rangeSetContains(set: PoolRange[], ip: number): boolean {
  return set.some((r) => rangeContains(r, ip));
}

/** host-local Range.Overlaps. */
export function rangesOverlap(a: PoolRange, b: PoolRange): boolean {
  return rangeContains(a, b.start) || rangeContains(a, b.end) || rangeContains(b, a.start) || rangeContains(b, a.end);
}

/** Addresses a range set can hand out. */
export function totalOf(set: PoolRange[]): number {
  return set.reduce((sum, r) => {
    let count = r.end - r.start + 1;
    if (r.gateway !== undefined && rangeContains(r, r.gateway)) count--;
    return sum + count;
  }, 0);
}

/** The range holding `ip`. */
export function rangeOf(set: PoolRange[], ip: number): PoolRange | undefined {
  return set.find((r) => rangeContains(r, ip));
}

/** The address handed to applicant `id` (`namespace/name`), or undefined when the pool is exhausted. */
export function allocateAddress(
  set: PoolRange[],
  status: { allocated?: Record<string, string>; allocatedHistory?: Record<string, string>; lastAllocated?: string },
  id: string,
): number | undefined {
  const allocated = status.allocated ?? {};
  const taken = new Set(Object.keys(allocated).map((ip) => parseIPv4(ip)));
  const usable = (ip: number): boolean => {
    const r = rangeOf(set, ip);
    return Boolean(r) && ip !== r!.gateway && !taken.has(ip);
  };
  for (const [ip, owner] of Object.entries(status.allocatedHistory ?? {})) {
    const n = parseIPv4(ip);
    if (owner === id && n !== undefined && usable(n)) return n;
  }
  // Walk the set as one ring of addresses (range by range), starting after lastAllocated.
  const sizes = set.map((r) => r.end - r.start + 1);
  const size = sizes.reduce((a, b) => a + b, 0);
  if (size === 0) return undefined;
  const at = (index: number): number => {
    let i = index;
    for (let k = 0; k < set.length; k++) {
      if (i < sizes[k]) return set[k].start + i;
      i -= sizes[k];
    }
    return set[0].start;
  };
  let lastIndex = -1;
  const last = parseIPv4(status.lastAllocated);
  if (last !== undefined) {
    let offset = 0;
    for (let k = 0; k < set.length; k++) {
      if (last >= set[k].start && last <= set[k].end) {
        lastIndex = offset + (last - set[k].start);
        break;
      }
      offset += sizes[k];
    }
  }
  for (let i = 1; i <= size; i++) {
    const candidate = at((lastIndex + i) % size);
    if (usable(candidate)) return candidate;
  }
  return undefined;
}

/** LB status.allocatedAddress for an address of the set. */
export function allocatedAddressOf(set: PoolRange[], pool: string, ip: number): { ipPool: string; ip: string; mask: string; gateway: string } {
  const r = rangeOf(set, ip);
  return {
    ipPool: pool,
    ip: formatIPv4(ip),
    mask: maskOf(r?.subnet.prefix ?? 32),
    gateway: r?.gateway === undefined ? '' : formatIPv4(r.gateway),
  };
}
