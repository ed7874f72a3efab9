/**
 * An IPPool range as Harvester's allocator reads it, so check counts and refuses what the pool will really do.
 * Source: load-balancer-harvester pkg/ipam/allocator.go (MakeRange, parseIP, countIP), which fills a CNI
 * host-local Range (containernetworking/plugins plugins/ipam/host-local/backend/allocator/range.go and
 * allocator.go) itself, without host-local's Canonicalize (that one refuses /31 and /32 as too small). Hence:
 * - defaults: rangeStart = network + 1, rangeEnd = broadcast − 1, gateway = network + 1; a start after the end is
 *   swapped; the gateway is skipped when allocating and not counted;
 * - a /32 is its one address, with no gateway;
 * - a /31 defaults to network+1 … network, swapped to network … network+1 with the gateway network+1: it hands
 *   out one address, its network address; a /30 hands out one, network + 2;
 * - an address given (rangeStart, rangeEnd, gateway) must lie in the subnet and be neither its network nor its
 *   broadcast address, so a /31 or a /32 accepts none;
 * - two ranges overlap when one holds the other's start or end (host-local Range.Overlaps): sharing a single
 *   address is an overlap.
 */
import { cidrContains, cidrSize, formatIPv4, parseCidr, parseIPv4, type Cidr } from '../../core/ipv4';

type Obj = Record<string, unknown>;

/** An address interval [first, last]. */
export interface Interval {
  first: number;
  last: number;
}

/** A range as the allocator builds it: the addresses it walks and the gateway it skips. */
export interface AllocatorRange extends Interval {
  cidr: Cidr;
  gateway?: number;
}

/** Why the allocator refuses an address given for a range, or undefined when it takes it. */
export function addressRefusal(cidr: Cidr, ip: number): 'outside' | 'network' | 'broadcast' | undefined {
  if (!cidrContains(cidr, ip)) return 'outside';
  if (ip === cidr.network) return 'network';
  if (ip === cidr.network + cidrSize(cidr) - 1) return 'broadcast';
  return undefined;
}

/** The addresses an address may be given from: network + 1 … broadcast − 1 (none in a /31 or a /32). */
export function givableAddresses(cidr: Cidr): Interval | undefined {
  return cidr.prefix >= 31 ? undefined : { first: cidr.network + 1, last: cidr.network + cidrSize(cidr) - 2 };
}

/** The range the allocator builds, or undefined when the subnet or a given address is invalid (or unknown). */
export function allocatorRange(range: Obj): AllocatorRange | undefined {
  const cidr = parseCidr(range.subnet);
  if (!cidr) return undefined;
  const single = cidr.prefix === 32;
  const address = (value: unknown, fallback: number | undefined): number | undefined | null => {
    if (value === undefined || value === '') return fallback;
    const ip = parseIPv4(value);
    return ip === undefined || addressRefusal(cidr, ip) ? null : ip;
  };
  const start = address(range.rangeStart, single ? cidr.network : cidr.network + 1);
  const end = address(range.rangeEnd, single ? cidr.network : cidr.network + cidrSize(cidr) - 2);
  const gateway = address(range.gateway, single ? undefined : cidr.network + 1);
  if (start === null || start === undefined || end === null || end === undefined || gateway === null) return undefined;
  return { cidr, first: Math.min(start, end), last: Math.max(start, end), gateway };
}

/** Addresses the range hands out (countIP): its length, less the gateway when inside it. */
export function usableCount(r: AllocatorRange): number {
  const inside = r.gateway !== undefined && r.gateway >= r.first && r.gateway <= r.last;
  return r.last - r.first + 1 - (inside ? 1 : 0);
}

export function overlaps(a: Interval, b: Interval): boolean {
  return a.first <= b.last && b.first <= a.last;
}

export function formatInterval(i: Interval): string {
  return `${formatIPv4(i.first)}-${formatIPv4(i.last)}`;
}
