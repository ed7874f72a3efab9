/**
 * The simulated DHCP server of a VM network, for `ipam: dhcp` load balancers: in reality kube-vip asks the
 * network's DHCP server for a lease and the address lands in `status.address`. Here a lease is a stable
 * address from the configured range (hashed from the LB key), skipping addresses other LBs already show.
 */
import { KubeObject } from '../api/types';
import { fnv1a } from '../util/hashing';
import { formatIPv4, parseIPv4 } from '../util/ipv4';
import { DhcpRange } from './options';
import { field } from '../util/objects';
import { objectKey } from './runtime';

/** The lease for `key` (`namespace/name`), or undefined when the range is exhausted or invalid. */
export function dhcpLease(range: DhcpRange, key: string, loadBalancers: KubeObject[]): string | undefined {
  const start = parseIPv4(range.start);
  const end = parseIPv4(range.end);
  if (start === undefined || end === undefined || end < start) return undefined;
  const used = new Set<string>();
  for (const lb of loadBalancers) {
    if (objectKey(lb) === key) {
      const mine = field<string>(lb, 'status', 'address');
      const ip = parseIPv4(mine);
      if (ip !== undefined && ip >= start && ip <= end) return mine; // keep an existing lease
      continue;
    }
    const address = field<string>(lb, 'status', 'address');
    if (address) used.add(address);
  }
  const size = end - start + 1;
  const offset = fnv1a(`dhcp/${key}`) % size;
  for (let i = 0; i < size; i++) {
    const candidate = formatIPv4(start + ((offset + i) % size));
    if (!used.has(candidate)) return candidate;
  }
  return undefined;
}
