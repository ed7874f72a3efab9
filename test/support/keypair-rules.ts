/**
 * Public keys and what Harvester does with them: the KeyPair webhook (pkg/webhook/resources/keypair/validator.go:
 * "public key is required", or ssh.ParseAuthorizedKey failing: "key is not in valid OpenSSH public key format")
 * and the controller's legacy MD5 fingerprint. One table, run against the emulator (test/emulator) and against the
 * provider's check (test/unit), so both refuse exactly what upstream refuses. Keys are built here from fresh
 * key material (node:crypto), in the wire format RFC 4253 §6.6 / RFC 5656 / RFC 8709 define.
 */
import { createHash, generateKeyPairSync } from 'node:crypto';

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
/** An SSH wire `string`. */
export const sshString = (v: Buffer | string) => {
  const b = typeof v === 'string' ? Buffer.from(v, 'latin1') : v;
  return Buffer.concat([u32(b.length), b]);
};
/** An SSH wire `mpint` of an unsigned big-endian magnitude. */
const mpint = (magnitude: Buffer) => {
  let m = magnitude;
  while (m.length && m[0] === 0) m = m.subarray(1);
  return sshString(m.length && m[0] & 0x80 ? Buffer.concat([Buffer.from([0]), m]) : m);
};
const b64url = (s: string) => Buffer.from(s, 'base64url');

/** `<type> <base64 blob>[ comment]`. */
export const keyLine = (type: string, blob: Buffer, comment = '') => `${type} ${blob.toString('base64')}${comment ? ` ${comment}` : ''}`;

export function ed25519Blob(): Buffer {
  const jwk = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
  return Buffer.concat([sshString('ssh-ed25519'), sshString(b64url(jwk.x!))]);
}

export function rsaBlob(bits = 2048, exponent?: Buffer): Buffer {
  const jwk = generateKeyPairSync('rsa', { modulusLength: bits }).publicKey.export({ format: 'jwk' });
  return Buffer.concat([sshString('ssh-rsa'), mpint(exponent ?? b64url(jwk.e!)), mpint(b64url(jwk.n!))]);
}

export function ecdsaBlob(curve: 'nistp256' | 'nistp384' | 'nistp521', tamper = false): Buffer {
  const named = { nistp256: 'P-256', nistp384: 'P-384', nistp521: 'P-521' }[curve];
  const jwk = generateKeyPairSync('ec', { namedCurve: named }).publicKey.export({ format: 'jwk' });
  const y = b64url(jwk.y!);
  if (tamper) y[y.length - 1] ^= 1; // no longer on the curve
  return Buffer.concat([sshString(`ecdsa-sha2-${curve}`), sshString(curve), sshString(Buffer.concat([Buffer.from([4]), b64url(jwk.x!), y]))]);
}

/** An ssh-dss blob with a P of `pBits` bits (upstream checks P's size only). */
export function dsaBlob(pBits: number): Buffer {
  const p = Buffer.alloc(pBits / 8, 0x5a);
  p[0] = 0xc5;
  return Buffer.concat([sshString('ssh-dss'), mpint(p), mpint(Buffer.alloc(20, 0x33)), mpint(Buffer.alloc(pBits / 8, 0x22)), mpint(Buffer.alloc(pBits / 8, 0x11))]);
}

export function skEd25519Blob(): Buffer {
  const key = ed25519Blob().subarray(4 + 'ssh-ed25519'.length);
  return Buffer.concat([sshString('sk-ssh-ed25519@openssh.com'), key, sshString('ssh:')]);
}

/** ssh.FingerprintLegacyMD5 of a key blob. */
export const md5Fingerprint = (blob: Buffer) => createHash('md5').update(blob).digest('hex').match(/../g)!.join(':');

export const REQUIRED = 'public key is required';
export const NOT_OPENSSH = 'key is not in valid OpenSSH public key format';

export interface KeyPairRuleCase {
  label: string;
  publicKey: string;
  /** The webhook's message when refused; undefined when accepted. */
  refused?: string;
  /** The blob whose MD5 is the fingerprint, when accepted. */
  blob?: Buffer;
}

/** Builds the table (fresh keys each call). */
export function keyPairRuleCases(): KeyPairRuleCase[] {
  const ed = ed25519Blob();
  const rsa = rsaBlob();
  const p256 = ecdsaBlob('nistp256');
  const p384 = ecdsaBlob('nistp384');
  const p521 = ecdsaBlob('nistp521');
  const dsa = dsaBlob(1024);
  const sk = skEd25519Blob();
  const edLine = keyLine('ssh-ed25519', ed, 'me@laptop');
  const ok = (label: string, publicKey: string, blob: Buffer): KeyPairRuleCase => ({ label, publicKey, blob });
  const bad = (label: string, publicKey: string): KeyPairRuleCase => ({ label, publicKey, refused: NOT_OPENSSH });
  const edKey = ed.subarray(4 + 'ssh-ed25519'.length + 4);
  return [
    { label: 'an empty key', publicKey: '', refused: REQUIRED },
    ok('ssh-ed25519 with a comment', edLine, ed),
    ok('ssh-ed25519 without a comment', keyLine('ssh-ed25519', ed), ed),
    ok('ssh-rsa 2048', keyLine('ssh-rsa', rsa, 'rsa@host'), rsa),
    ok('ecdsa-sha2-nistp256', keyLine('ecdsa-sha2-nistp256', p256), p256),
    ok('ecdsa-sha2-nistp384', keyLine('ecdsa-sha2-nistp384', p384), p384),
    ok('ecdsa-sha2-nistp521', keyLine('ecdsa-sha2-nistp521', p521), p521),
    ok('ssh-dss with a 1024-bit P', keyLine('ssh-dss', dsa), dsa),
    ok('sk-ssh-ed25519@openssh.com (a security key)', keyLine('sk-ssh-ed25519@openssh.com', sk), sk),
    ok('a key after authorized_keys options', `no-pty,command="echo a b" ${edLine}`, ed),
    ok('a key after a comment line and a blank line', `# laptop\n\n${edLine}\n`, ed),
    ok('the first of two keys, with CRLF line ends', `${edLine}\r\n${keyLine('ssh-rsa', rsa)}\r\n`, ed),
    ok('the first line that parses (an invalid line before it is skipped)', `ssh-ed25519 AAAA\n${edLine}`, ed),
    bad('a single word (upstream test: FAKE_PUBLIC_KEY)', 'FAKE_PUBLIC_KEY'),
    bad('text that is not base64', 'ssh-rsa not-base64!!'),
    bad('base64 without its padding', `ecdsa-sha2-nistp256 ${p256.toString('base64').replace(/=+$/, '')}`),
    bad('a PEM public key', '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=\n-----END PUBLIC KEY-----'),
    bad('a declared type that is not the blob\'s', keyLine('ssh-rsa', ed)),
    bad('an unknown key type', keyLine('ssh-foo', Buffer.concat([sshString('ssh-foo'), sshString('x')]))),
    bad('an ed25519 key of 31 bytes', keyLine('ssh-ed25519', Buffer.concat([sshString('ssh-ed25519'), sshString(edKey.subarray(1))]))),
    bad('trailing bytes after the key', keyLine('ssh-ed25519', Buffer.concat([ed, Buffer.from([0])]))),
    bad('a truncated blob', keyLine('ssh-ed25519', ed.subarray(0, ed.length - 4))),
    bad('an RSA key with an even exponent', keyLine('ssh-rsa', rsaBlob(1024, Buffer.from([1, 0, 0])))),
    bad('an RSA key with exponent 1', keyLine('ssh-rsa', rsaBlob(1024, Buffer.from([1])))),
    bad('an RSA key with a 25-bit exponent', keyLine('ssh-rsa', rsaBlob(1024, Buffer.from([1, 0, 0, 1])))),
    bad('an ECDSA point off the curve', keyLine('ecdsa-sha2-nistp256', ecdsaBlob('nistp256', true))),
    bad('an ECDSA key naming another curve', keyLine('ecdsa-sha2-nistp384', Buffer.concat([sshString('ecdsa-sha2-nistp384'), p256.subarray(4 + 'ecdsa-sha2-nistp256'.length)]))),
    bad('a DSA key with a 2048-bit P', keyLine('ssh-dss', dsaBlob(2048))),
    bad('only comment lines', '# a key\n# another'),
  ];
}
