/** IPv4 arithmetic shared by the IPAM, DHCP and VM-network simulations (IPv4 only, as Harvester's LB docs). */

/** The address as an unsigned 32-bit integer; undefined when not a dotted-quad IPv4 address. */
export function parseIPv4(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const parts = text.trim().split('.');
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    value = value * 256 + n;
  }
  return value;
}

/** Dotted-quad text of an unsigned 32-bit integer. */
export function formatIPv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

/** A parsed CIDR block. */
export interface Cidr {
  /** Network address. */
  network: number;
  prefix: number;
  /** Broadcast (last) address. */
  broadcast: number;
}

/** Parses `a.b.c.d/n` (the host bits are masked off, as Go's net.ParseCIDR does). */
export function parseCidr(text: unknown): Cidr | undefined {
  if (typeof text !== 'string') return undefined;
  const [addr, bits, extra] = text.trim().split('/');
  if (extra !== undefined || bits === undefined || !/^\d{1,2}$/.test(bits)) return undefined;
  const ip = parseIPv4(addr);
  const prefix = Number(bits);
  if (ip === undefined || prefix > 32) return undefined;
  const size = 2 ** (32 - prefix);
  const network = ip - (ip % size);
  return { network, prefix, broadcast: network + size - 1 };
}

/** `a.b.c.d/n` text of a Cidr. */
export function formatCidr(cidr: Cidr): string {
  return `${formatIPv4(cidr.network)}/${cidr.prefix}`;
}

/** The netmask in dotted-quad form, e.g. 255.255.255.0 for /24. */
export function maskOf(prefix: number): string {
  return formatIPv4(prefix === 0 ? 0 : 2 ** 32 - 2 ** (32 - prefix));
}

export function cidrContains(cidr: Cidr, ip: number): boolean {
  return ip >= cidr.network && ip <= cidr.broadcast;
}

/** The usable host range of a block: network+1 … broadcast-1 (the whole block for /31 and /32). */
export function hostRange(cidr: Cidr): { first: number; last: number } {
  if (cidr.prefix >= 31) return { first: cidr.network, last: cidr.broadcast };
  return { first: cidr.network + 1, last: cidr.broadcast - 1 };
}
