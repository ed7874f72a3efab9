/**
 * IPv4 arithmetic for check-time validation (the provider's own; it must not load the emulator at run time).
 * Addresses are unsigned 32-bit numbers.
 */

/** Parses "a.b.c.d" strictly (no leading zeros beyond "0", each octet 0–255). */
export function parseIPv4(text: unknown): number | undefined {
  if (typeof text !== 'string' || !/^(0|[1-9]\d{0,2})(\.(0|[1-9]\d{0,2})){3}$/.test(text)) return undefined;
  const octets = text.split('.').map(Number);
  if (octets.some((o) => o > 255)) return undefined;
  return octets.reduce((n, o) => n * 256 + o, 0);
}

export function formatIPv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

/** A parsed CIDR: its network address (the text's bits beyond the prefix must be zero) and prefix length. */
export interface Cidr {
  network: number;
  prefix: number;
}

export function parseCidr(text: unknown): Cidr | undefined {
  if (typeof text !== 'string') return undefined;
  const m = /^([^/]+)\/(\d{1,2})$/.exec(text);
  if (!m) return undefined;
  const ip = parseIPv4(m[1]);
  const prefix = Number(m[2]);
  if (ip === undefined || prefix > 32) return undefined;
  const size = 2 ** (32 - prefix);
  return { network: ip - (ip % size), prefix };
}

/** Number of addresses of the block. */
export function cidrSize(c: Cidr): number {
  return 2 ** (32 - c.prefix);
}

export function cidrContains(c: Cidr, ip: number): boolean {
  return ip >= c.network && ip < c.network + cidrSize(c);
}
