/**
 * OpenSSH authorized_keys parsing as golang.org/x/crypto/ssh ParseAuthorizedKey does it for Harvester's KeyPair
 * webhook and controller, and the legacy MD5 fingerprint (`ssh.FingerprintLegacyMD5`) the controller stores.
 *
 * Upstream's rules, in order: lines are tried one by one (blank lines and `#` comments skipped), the first that
 * parses wins; a line is `[options] <type> <base64 blob> [comment]`; the blob (standard base64, padded) is the
 * wire form of the key, which must parse completely (no trailing bytes) and whose own type must equal the
 * declared one. Per type: ssh-rsa (exponent odd, ≥ 3, at most 24 bits; modulus at most 16384 bits), ssh-dss
 * (a 1024-bit P), ecdsa-sha2-nistp256/384/521 and sk-ecdsa-sha2-nistp256@openssh.com (the curve named as the
 * type says, an uncompressed point on it), ssh-ed25519 and sk-ssh-ed25519@openssh.com (32 key bytes).
 * Known gap: OpenSSH certificates (`*-cert-v01@openssh.com`), which upstream also accepts, are refused here.
 */
import { createHash, ECDH } from 'node:crypto';

/** A parsed key: its type and wire blob. */
export interface AuthorizedKey {
  type: string;
  blob: Buffer;
  comment: string;
}

/** The outcome of ParseAuthorizedKey: the key, or Go's error text. */
export type ParseResult = { key: AuthorizedKey; error?: undefined } | { key?: undefined; error: string };

class WireReader {
  private at = 0;
  constructor(private readonly buf: Buffer) {}
  bytes(): Buffer {
    if (this.buf.length - this.at < 4) throw new Error('ssh: short read');
    const n = this.buf.readUInt32BE(this.at);
    if (this.buf.length - this.at - 4 < n) throw new Error('ssh: short read');
    const out = this.buf.subarray(this.at + 4, this.at + 4 + n);
    this.at += 4 + n;
    return out;
  }
  text(): string {
    return this.bytes().toString('latin1');
  }
  mpintValue(): bigint {
    const b = this.bytes();
    return b.length ? BigInt(`0x${b.toString('hex')}`) * (b[0] & 0x80 ? -1n : 1n) : 0n;
  }
  get remaining(): number {
    return this.buf.length - this.at;
  }
}

/** big.Int BitLen: of the absolute value. */
const bitLength = (v: bigint): number => (v === 0n ? 0 : (v < 0n ? -v : v).toString(2).length);

const CURVES: Record<string, { node: string; size: number }> = {
  nistp256: { node: 'prime256v1', size: 32 },
  nistp384: { node: 'secp384r1', size: 48 },
  nistp521: { node: 'secp521r1', size: 66 },
};

function ecdsaPoint(r: WireReader, curveName: string): void {
  const curve = r.text();
  if (curve !== curveName) throw new Error('ssh: curve name mismatch');
  const point = r.bytes();
  const c = CURVES[curve];
  if (point.length !== 1 + 2 * c.size || point[0] !== 4) throw new Error('ssh: invalid curve point');
  try {
    ECDH.convertKey(point, c.node);
  } catch {
    throw new Error('ssh: invalid curve point');
  }
}

function ed25519Key(r: WireReader): void {
  const key = r.bytes();
  if (key.length !== 32) throw new Error(`ssh: invalid size ${key.length} for Ed25519 public key`);
}

/** Parses the body of one wire-format key of type `algo` (throws Go's error text). */
function parseBody(algo: string, r: WireReader): void {
  switch (algo) {
    case 'ssh-rsa': {
      const e = r.mpintValue();
      if (bitLength(r.mpintValue()) > 16384) throw new Error('ssh: rsa modulus too large');
      if (e >= 1n << 24n) throw new Error('ssh: exponent too large');
      if (e < 3n || e % 2n === 0n) throw new Error('ssh: incorrect exponent');
      return;
    }
    case 'ssh-dss': {
      const p = bitLength(r.mpintValue());
      r.bytes();
      r.bytes();
      r.bytes();
      if (p !== 1024) throw new Error(`ssh: unsupported DSA key size ${p}`);
      return;
    }
    case 'ecdsa-sha2-nistp256':
    case 'ecdsa-sha2-nistp384':
    case 'ecdsa-sha2-nistp521':
      return ecdsaPoint(r, algo.slice('ecdsa-sha2-'.length));
    case 'sk-ecdsa-sha2-nistp256@openssh.com':
      ecdsaPoint(r, 'nistp256');
      r.text();
      return;
    case 'ssh-ed25519':
      return ed25519Key(r);
    case 'sk-ssh-ed25519@openssh.com':
      ed25519Key(r);
      r.text();
      return;
    default:
      throw new Error(`ssh: unknown key algorithm: ${algo}`);
  }
}

/** Go's base64.StdEncoding.Decode: the alphabet, '=' padding to a multiple of 4. */
function decodeBase64(text: string): Buffer {
  const bad = text.search(/[^A-Za-z0-9+/=]/);
  const firstPad = text.indexOf('=');
  if (bad >= 0) throw new Error(`illegal base64 data at input byte ${bad}`);
  if (firstPad >= 0 && (!/^=={0,1}$/.test(text.slice(firstPad)) || text.length % 4 !== 0)) throw new Error(`illegal base64 data at input byte ${firstPad}`);
  if (text.length % 4 !== 0) throw new Error(`illegal base64 data at input byte ${text.length - (text.length % 4)}`);
  return Buffer.from(text, 'base64');
}

/** parseAuthorizedKey of x/crypto: `<base64> [comment]` after the declared type, checked against it. */
function parseKeyField(declared: string, rest: string): AuthorizedKey {
  const trimmed = rest.trim();
  const end = trimmed.search(/[ \t]/);
  const data = end < 0 ? trimmed : trimmed.slice(0, end);
  const blob = decodeBase64(data);
  const r = new WireReader(blob);
  const type = r.text();
  parseBody(type, r);
  if (r.remaining > 0) throw new Error('ssh: trailing junk in public key');
  if (declared !== type) throw new Error(`ssh: authorized keys key type mismatch: human-readable type "${declared}", encoded type "${type}"`);
  return { type, blob, comment: end < 0 ? '' : trimmed.slice(end).trim() };
}

/** Splits at the first space or tab: [first field, rest], or undefined when there is none. */
function splitField(line: string): [string, string] | undefined {
  const i = line.search(/[ \t]/);
  return i < 0 ? undefined : [line.slice(0, i), line.slice(i)];
}

/** The end of a leading options field (`a,b="x y"`), as upstream scans it: first unquoted blank. */
function optionsEnd(line: string): number {
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (!quoted && (c === ' ' || c === '\t')) return i;
    if (c === '"' && (i === 0 || line[i - 1] !== '\\')) quoted = !quoted;
  }
  return line.length;
}

/** ssh.ParseAuthorizedKey over the whole text: the first key that parses, or Go's error. */
export function parseAuthorizedKeyText(text: string): ParseResult {
  let lastError: string | undefined;
  const attempt = (line: string): AuthorizedKey | undefined => {
    const fields = splitField(line);
    if (!fields) return undefined;
    try {
      return parseKeyField(fields[0], fields[1]);
    } catch (err) {
      lastError = (err as Error).message;
      return undefined;
    }
  };
  for (const raw of text.split('\n')) {
    const line = raw.split('\r')[0].trim();
    if (!line || line.startsWith('#') || !splitField(line)) continue;
    const direct = attempt(line);
    if (direct) return { key: direct };
    const afterOptions = line.slice(optionsEnd(line)).replace(/^[ \t]+/, '');
    if (!afterOptions) continue;
    const withOptions = attempt(afterOptions);
    if (withOptions) return { key: withOptions };
  }
  return { error: lastError ? `ssh: no key found; last parsing error for ignored line: ${lastError}` : 'ssh: no key found' };
}

/** The parsed key, or undefined when the text holds none. */
export function parseAuthorizedKey(text: string): AuthorizedKey | undefined {
  return parseAuthorizedKeyText(text).key;
}

/** `aa:bb:…` MD5 fingerprint of the key blob (ssh.FingerprintLegacyMD5). */
export function legacyMd5Fingerprint(blob: Buffer): string {
  const hex = createHash('md5').update(blob).digest('hex');
  return hex.match(/../g)!.join(':');
}

/** Builds an ssh-ed25519 public key line from 32 raw key bytes (used to seed a valid key pair). */
export function ed25519PublicKeyLine(raw: Buffer, comment: string): string {
  const type = Buffer.from('ssh-ed25519');
  const blob = Buffer.alloc(4 + type.length + 4 + raw.length);
  blob.writeUInt32BE(type.length, 0);
  type.copy(blob, 4);
  blob.writeUInt32BE(raw.length, 4 + type.length);
  raw.copy(blob, 8 + type.length);
  return `ssh-ed25519 ${blob.toString('base64')} ${comment}`;
}
