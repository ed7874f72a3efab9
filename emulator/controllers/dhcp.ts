/**
 * The simulated DHCP server for `ipam: dhcp` load balancers: in reality kube-vip asks the DHCP server of the
 * load balancer's network for a lease (on the VLAN of the guest VMs for a guest cluster's service, on the VM
 * network for a VM load balancer) and the address lands in `status.address`. Here:
 *
 * - the network is the LB's `loadbalancer.harvesterhci.io/network` annotation (`namespace/name`, a bare name in
 *   the LB's namespace), else the Multus network of the first VMI its selector picks;
 * - the lease is a stable address of that network's subnet (vm-network.ts `networkBlock`, hashed from the LB
 *   key), never its gateway, an address a VMI or another load balancer holds, or one inside an IPPool's ranges
 *   (the same server hands out the VMs' addresses); an address already leased stays while it is still valid;
 * - with no network known, or when the `dhcpRange` option is set, the lease comes from `dhcpRange` instead
 *   (skipping addresses other load balancers show), as before.
 * See docs/design/kube-api.md §7.
 */
import { KubeObject, StoreReader } from '../api/types';
import { fnv1a } from '../util/hashing';
import { formatIPv4, hostRange, parseIPv4 } from '../util/ipv4';
import { ANN_LB_NETWORK } from '../util/names';
import { field } from '../util/objects';
import { HarvesterKinds } from './kinds';
import { selectedVmis } from './lb-backends';
import { DhcpRange, ResolvedHarvesterOptions } from './options';
import { objectKey } from './runtime';
import { addressesInUse, networkBlock, nicsOf, pickAddress } from './vm-network';

/** The lease for `key` (`namespace/name`) from a fixed range, or undefined when it is exhausted or invalid. */
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

/** The VM network (`namespace/name`) a load balancer's DHCP request goes out on, if one is known. */
export function loadBalancerNetwork(store: StoreReader, kinds: HarvesterKinds, lb: KubeObject): string | undefined {
  const annotated = lb.metadata.annotations?.[ANN_LB_NETWORK];
  if (annotated) return annotated.includes('/') ? annotated : `${lb.metadata.namespace}/${annotated}`;
  for (const vmi of selectedVmis(store, kinds, lb)) {
    const nic = nicsOf((vmi.spec ?? {}) as Record<string, unknown>, String(vmi.metadata.namespace)).find((n) => n.network);
    if (nic?.network) return nic.network;
  }
  return undefined;
}

/** Everything a load balancer's lease depends on. */
export interface LeaseContext {
  store: StoreReader;
  kinds: HarvesterKinds;
  options: ResolvedHarvesterOptions;
}

/** The DHCP lease of an `ipam: dhcp` load balancer (see the file comment), or undefined when none is free. */
export function loadBalancerLease(ctx: LeaseContext, lb: KubeObject): string | undefined {
  const { store, kinds, options } = ctx;
  const key = objectKey(lb);
  const network = options.dhcpRangeConfigured ? undefined : loadBalancerNetwork(store, kinds, lb);
  if (!network) return dhcpLease(options.dhcpRange, key, store.listShared(kinds.loadBalancer).items);
  const block = networkBlock(store, kinds, options, network);
  const used = addressesInUse(store, kinds, undefined, key);
  const { first, last } = hostRange(block.cidr);
  const gateway = block.gateway ?? first;
  const current = parseIPv4(field(lb, 'status', 'address'));
  if (current !== undefined && current >= first && current <= last && current !== gateway && !used.has(current)) return formatIPv4(current);
  return pickAddress(block, `${options.addressSeed}/dhcp/${key}`, used);
}
