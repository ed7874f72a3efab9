/**
 * Simulated guest addressing: MACs and IPv4 addresses for VMI interfaces. Both are deterministic per VM (same
 * name + seed → same address), drawn from the VM network's range: the NAD's `network.harvesterhci.io/route`
 * annotation `cidr` (what Harvester's network controller records), else `vmNetworkCidrs`, else the default.
 *
 * One simulated DHCP server per network hands out both the VMs' addresses and `ipam: dhcp` load balancers'
 * leases (dhcp.ts), so neither repeats an address the other holds, and neither ever falls inside an IPPool's
 * ranges: a working network keeps its pools' ranges out of the DHCP server's scope, or a load balancer's pool
 * address could collide with a guest's (docs/design/kube-api.md §7).
 */
import { KubeObject, StoreReader } from '../api/types';
import { PoolRange, rangeSetContains, rangeSetOf } from './ipam';
import { HarvesterKinds } from './kinds';
import { ResolvedHarvesterOptions } from './options';
import { deterministicMac, fnv1a } from '../util/hashing';
import { Cidr, formatIPv4, hostRange, parseCidr, parseIPv4 } from '../util/ipv4';
import { ANN_MAC_ADDRESS, ANN_NETWORK_ROUTE } from '../util/names';
import { field } from '../util/objects';
import { objectKey } from './runtime';

/** One NIC of a VMI spec with its network. */
export interface VmiNic {
  name: string;
  specMac?: string;
  /** `namespace/name` of the Multus network, or undefined for the pod network. */
  network?: string;
}

/** The NICs of a pod spec (interfaces joined with networks by name). */
export function nicsOf(podSpec: Record<string, unknown>, namespace: string): VmiNic[] {
  const interfaces = field<Record<string, unknown>[]>(podSpec, 'domain', 'devices', 'interfaces') ?? [];
  const networks = (podSpec.networks as Record<string, unknown>[] | undefined) ?? [];
  return interfaces.map((iface) => {
    const name = String(iface.name);
    const net = networks.find((n) => n.name === name);
    const multus = field<string>(net, 'multus', 'networkName');
    return {
      name,
      specMac: typeof iface.macAddress === 'string' ? iface.macAddress : undefined,
      network: multus ? (multus.includes('/') ? multus : `${namespace}/${multus}`) : undefined,
    };
  });
}

/** MACs Harvester persisted in the VM annotation `harvesterhci.io/mac-address` (`{"nic-0":"…"}`). */
export function persistedMacs(vm: KubeObject | undefined): Record<string, string> {
  const raw = vm?.metadata.annotations?.[ANN_MAC_ADDRESS];
  if (!raw) return {};
  try {
    const parsed = JSON.parse(raw) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, string>) : {};
  } catch {
    return {};
  }
}

/** The MAC a NIC gets: the spec's, else the persisted one, else a stable derived one. */
export function macFor(nic: VmiNic, vmKey: string, persisted: Record<string, string>, seed: string): string {
  return nic.specMac ?? persisted[nic.name] ?? deterministicMac(`${seed}/${vmKey}/${nic.name}`);
}

/** The address block and gateway of a VM network. */
export function networkBlock(
  store: StoreReader,
  kinds: HarvesterKinds,
  options: ResolvedHarvesterOptions,
  network: string | undefined,
): { cidr: Cidr; gateway?: number } {
  if (network) {
    const [ns, name] = network.split('/');
    const nad = store.get(kinds.nad, ns, name);
    const route = nad?.metadata.annotations?.[ANN_NETWORK_ROUTE];
    if (route) {
      try {
        const parsed = JSON.parse(route) as { cidr?: string; gateway?: string };
        const cidr = parseCidr(parsed.cidr);
        if (cidr) return { cidr, gateway: parseIPv4(parsed.gateway) };
      } catch {
        // fall through to the configured ranges
      }
    }
    const configured = parseCidr(options.vmNetworkCidrs[network]);
    if (configured) return { cidr: configured };
  }
  return { cidr: parseCidr(options.defaultVmCidr) ?? (parseCidr('10.10.0.0/16') as Cidr) };
}

/** The first IPv4 address a VMI reports on its interfaces (what Harvester and the CCM read), if any. */
export function firstIPv4(vmi: KubeObject | undefined): string | undefined {
  const ifaces = field<Record<string, unknown>[]>(vmi, 'status', 'interfaces') ?? [];
  const ip = ifaces.map((i) => i.ipAddress).find((a) => parseIPv4(a) !== undefined);
  return typeof ip === 'string' ? ip : undefined;
}

/**
 * Addresses the simulated DHCP servers may not hand out: those held (added one by one) plus every IPPool
 * range (checked by `has`, so a wide pool costs nothing).
 */
export class ReservedAddresses extends Set<number> {
  constructor(private readonly poolRanges: PoolRange[][] = []) {
    super();
  }

  override has(ip: number): boolean {
    return super.has(ip) || this.poolRanges.some((set) => rangeSetContains(set, ip));
  }
}

/** The ranges of every IPPool that parses (one that does not serves nothing). */
function poolRanges(store: StoreReader, kinds: HarvesterKinds): PoolRange[][] {
  const out: PoolRange[][] = [];
  for (const pool of store.listShared(kinds.ipPool).items) {
    try {
      out.push(rangeSetOf(pool));
    } catch {
      // An unusable pool allocates nothing, so it reserves nothing either.
    }
  }
  return out;
}

/**
 * What a DHCP server may not hand out: addresses reported by VMIs (other than `except.vmi`, `namespace/name`),
 * load balancers' addresses (other than `except.lb`'s), and every IPPool's ranges.
 */
export function addressesInUse(store: StoreReader, kinds: HarvesterKinds, exceptVmi?: string, exceptLb?: string): ReservedAddresses {
  const used = new ReservedAddresses(poolRanges(store, kinds));
  for (const vmi of store.listShared(kinds.vmi).items) {
    if (objectKey(vmi) === exceptVmi) continue;
    for (const iface of field<Record<string, unknown>[]>(vmi, 'status', 'interfaces') ?? []) {
      const ip = parseIPv4(iface.ipAddress);
      if (ip !== undefined) used.add(ip);
    }
  }
  for (const lb of store.listShared(kinds.loadBalancer).items) {
    if (objectKey(lb) === exceptLb) continue;
    const ip = parseIPv4(field(lb, 'status', 'address'));
    if (ip !== undefined) used.add(ip);
  }
  return used;
}

/** A stable free address in the block for `seedKey`, or undefined when the block is full. */
export function pickAddress(block: { cidr: Cidr; gateway?: number }, seedKey: string, used: Set<number>): string | undefined {
  const { first, last } = hostRange(block.cidr);
  const gateway = block.gateway ?? first; // the first host is the conventional gateway
  const size = last - first + 1;
  const start = fnv1a(seedKey) % size;
  for (let i = 0; i < size; i++) {
    const candidate = first + ((start + i) % size);
    if (candidate === gateway && size > 1) continue;
    if (!used.has(candidate)) return formatIPv4(candidate);
  }
  return undefined;
}
