/** Deterministic hashes for simulated identities (MACs, IPs, DHCP leases) and the CCM's CRC32 name suffix. */

let crcTable: Uint32Array | undefined;

/** CRC-32 (IEEE 802.3 polynomial), as Go's hash/crc32.ChecksumIEEE. */
export function crc32(text: string): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (const byte of Buffer.from(text, 'utf8')) crc = crcTable[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** FNV-1a 32-bit: a cheap, stable spread for picking offsets. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** A locally administered unicast MAC derived from `seed` (stable across runs). */
export function deterministicMac(seed: string): string {
  const a = fnv1a(`mac:${seed}`);
  const b = fnv1a(`mac2:${seed}`);
  const bytes = [(a >>> 24) & 0xff, (a >>> 16) & 0xff, (a >>> 8) & 0xff, a & 0xff, (b >>> 8) & 0xff, b & 0xff];
  bytes[0] = (bytes[0] | 0x02) & 0xfe;
  return bytes.map((x) => x.toString(16).padStart(2, '0')).join(':');
}

/** The IPv6 link-local address (EUI-64) of a MAC, as guests report next to their IPv4 address. */
export function linkLocalFromMac(mac: string): string {
  const b = mac.split(':').map((x) => parseInt(x, 16));
  const eui = [b[0] ^ 0x02, b[1], b[2], 0xff, 0xfe, b[3], b[4], b[5]];
  const groups: string[] = [];
  for (let i = 0; i < 8; i += 2) groups.push(((eui[i] << 8) | eui[i + 1]).toString(16));
  return `fe80::${groups.join(':')}`;
}
