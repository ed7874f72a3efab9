/**
 * Which public keys Harvester accepts, decided before anything is written. Harvester's KeyPair webhook and
 * controller (pkg/webhook/resources/keypair/validator.go, pkg/controller/master/keypair/controller.go) call
 * golang.org/x/crypto/ssh ParseAuthorizedKey; these are its rules, restated:
 *
 * - the text is read line by line (a CR ends a line too); blank lines and `#` comments are skipped; the first
 *   line that holds a key wins, the others are ignored;
 * - a line is `[options] <type> <base64> [comment]` (options as in authorized_keys: `no-pty,command="…"`);
 * - the base64 is standard and padded; it decodes to the key's wire form (RFC 4253 §6.6), which starts with the
 *   type again (it must equal the declared type) and must be used up exactly;
 * - per type: ssh-rsa: an odd exponent ≥ 3 below 2^24, a modulus of at most 16384 bits; ssh-dss: a 1024-bit
 *   prime; ecdsa-sha2-nistp256/384/521 (and sk-ecdsa-sha2-nistp256@openssh.com): its own curve's name and an
 *   uncompressed point on that curve; ssh-ed25519 (and sk-ssh-ed25519@openssh.com): 32 key bytes.
 *
 * OpenSSH certificates (`*-cert-v01@openssh.com`), which the library also parses, are not judged here: they are
 * let through to Harvester. The fingerprint Harvester stores is the MD5 of the wire form (ssh.FingerprintLegacyMD5).
 */
import { createHash, createPublicKey } from 'node:crypto';

/** What a key text holds: the accepted key, or why none is accepted. */
export type KeyVerdict = { ok: true; type: string; wire: Buffer; comment: string } | { ok: false; reason: string };

const CURVE_BYTES: Record<string, { jwk: string; bytes: number }> = {
  nistp256: { jwk: 'P-256', bytes: 32 },
  nistp384: { jwk: 'P-384', bytes: 48 },
  nistp521: { jwk: 'P-521', bytes: 66 },
};

/** The curve each ECDSA key type is on. */
const ECDSA_CURVE: Record<string, string> = {
  'ecdsa-sha2-nistp256': 'nistp256',
  'ecdsa-sha2-nistp384': 'nistp384',
  'ecdsa-sha2-nistp521': 'nistp521',
  'sk-ecdsa-sha2-nistp256@openssh.com': 'nistp256',
};

/** Reads the wire form's fields in order; every short field is the same complaint. */
function fields(wire: Buffer) {
  let offset = 0;
  const next = (): Buffer => {
    const length = offset + 4 <= wire.length ? wire.readUInt32BE(offset) : -1;
    if (length < 0 || offset + 4 + length > wire.length) throw new Error('the key data ends too early (truncated when copied?)');
    const field = wire.subarray(offset + 4, offset + 4 + length);
    offset += 4 + length;
    return field;
  };
  /** An mpint (RFC 4251 §5): two's complement, so a first byte from 0x80 makes it negative, as Go's parser reads it. */
  const integer = (): bigint => {
    const f = next();
    if (!f.length) return 0n;
    const magnitude = BigInt(`0x${f.toString('hex')}`);
    return f[0] >= 0x80 ? magnitude - (1n << BigInt(8 * f.length)) : magnitude;
  };
  return { next, integer, done: () => offset === wire.length };
}

/** The length in bits of |n|, as Go's big.Int BitLen counts it (0 for 0): the size checks judge a negative number by it too. */
const bits = (n: bigint) => (n === 0n ? 0 : (n < 0n ? -n : n).toString(2).length);

function checkPoint(curve: string, point: Buffer): void {
  const c = CURVE_BYTES[curve];
  if (point.length !== 1 + 2 * c.bytes || point[0] !== 4) throw new Error(`the ${curve} point is not an uncompressed point of that curve`);
  const coordinate = (from: number) => point.subarray(from, from + c.bytes).toString('base64url');
  try {
    createPublicKey({ key: { kty: 'EC', crv: c.jwk, x: coordinate(1), y: coordinate(1 + c.bytes) }, format: 'jwk' });
  } catch {
    throw new Error(`the ${curve} point is not on the curve`);
  }
}

/** Checks one key's wire form against its declared type; throws the reason it is refused. */
function checkWire(declared: string, wire: Buffer): void {
  const r = fields(wire);
  const type = r.next().toString('latin1');
  if (type !== declared) throw new Error(`the line says ${declared} but the key data is ${type || 'of no type'}`);
  if (type === 'ssh-rsa') {
    const e = r.integer();
    const n = r.integer();
    if (e < 3n || e % 2n === 0n || e >= 2n ** 24n) throw new Error('the RSA public exponent is not an odd number from 3 to 2^24');
    if (bits(n) > 16384) throw new Error('the RSA modulus is longer than 16384 bits');
  } else if (type === 'ssh-dss') {
    const p = bits(r.integer());
    r.next();
    r.next();
    r.next();
    if (p !== 1024) throw new Error(`a DSA key must have a 1024-bit prime, this one has ${p} bits`);
  } else if (ECDSA_CURVE[type]) {
    const curve = ECDSA_CURVE[type];
    const named = r.next().toString('latin1');
    if (named !== curve) throw new Error(`an ${type} key names curve ${named}`);
    checkPoint(curve, r.next());
    if (type.startsWith('sk-')) r.next();
  } else if (type === 'ssh-ed25519' || type === 'sk-ssh-ed25519@openssh.com') {
    const key = r.next();
    if (key.length !== 32) throw new Error(`an Ed25519 key is 32 bytes, this one is ${key.length}`);
    if (type.startsWith('sk-')) r.next();
  } else if (/-cert-v01@openssh\.com$/.test(type)) {
    return; // a certificate: left to Harvester (see the header)
  } else {
    throw new Error(`${type} is not a key type Harvester knows (ssh-ed25519, ssh-rsa, ecdsa-sha2-nistp256/384/521, ssh-dss, or a security key)`);
  }
  if (!r.done()) throw new Error('there are extra bytes after the key');
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** `<type> <base64> [comment]` (after any options): the key, or throws why not. */
function keyAt(text: string): { type: string; wire: Buffer; comment: string } {
  const [type, data, ...comment] = text.trim().split(/[ \t]+/);
  if (!BASE64.test(data)) throw new Error('the key data is not padded standard base64');
  const wire = Buffer.from(data, 'base64');
  checkWire(type, wire);
  return { type, wire, comment: comment.join(' ') };
}

/** The text after a leading authorized_keys options field (the first blank outside quotes ends it). */
function afterOptions(line: string): string {
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    if (!quoted && /[ \t]/.test(line[i])) return line.slice(i).trim();
    if (line[i] === '"' && line[i - 1] !== '\\') quoted = !quoted;
  }
  return '';
}

/** The first word names a key type (`ssh-…`, `ecdsa-…`, `sk-…`): a reading of the line that can say what is wrong with the key. */
const namesKeyType = (candidate: string) => /^(ssh-|ecdsa-|sk-)/.test(candidate);

/**
 * Harvester's verdict on a public key text. A line is read as a key, then as options before a key (as Go's
 * ParseAuthorizedKey does); when neither holds a key, the reason is that of the reading whose first word names a key
 * type — the plain one for `ssh-ed25519 AAAA… me@laptop` — never that of the options reading, which would take the
 * comment for the key data and so give a reason that changes with the comment.
 */
export function judgePublicKey(text: string): KeyVerdict {
  if (text === '') return { ok: false, reason: 'is empty' };
  let last: string | undefined;
  for (const line of text.split('\n').map((l) => l.split('\r')[0].trim())) {
    if (!line || line.startsWith('#') || !/[ \t]/.test(line)) continue;
    let reason: { text: string; typed: boolean } | undefined;
    for (const candidate of [line, afterOptions(line)]) {
      if (!/[ \t]/.test(candidate)) continue;
      try {
        return { ok: true, ...keyAt(candidate) };
      } catch (err) {
        if (!reason || (!reason.typed && namesKeyType(candidate))) reason = { text: (err as Error).message, typed: namesKeyType(candidate) };
      }
    }
    if (reason) last = reason.text;
  }
  if (/-----BEGIN |---- BEGIN SSH2|PuTTY-User-Key-File/.test(text)) return { ok: false, reason: 'is a PEM, RFC 4716 or PuTTY file, not an OpenSSH public key line (convert it: ssh-keygen -i -f <file>)' };
  if (last) return { ok: false, reason: `holds no key Harvester accepts: ${last}` };
  return { ok: false, reason: 'has no line of the form "<type> <base64 key> [comment]"' };
}

/** `aa:bb:…`: the MD5 fingerprint Harvester stores in status.fingerPrint. */
export function md5FingerprintOf(wire: Buffer): string {
  return createHash('md5').update(wire).digest('hex').replace(/(..)(?!$)/g, '$1:');
}
