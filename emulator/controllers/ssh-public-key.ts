/**
 * OpenSSH authorized_keys parsing, enough to mirror golang.org/x/crypto/ssh ParseAuthorizedKey as Harvester's
 * KeyPair webhook and controller use it: `<type> <base64 blob> [comment]`, where the blob starts with the same
 * key type string; and the legacy MD5 fingerprint (`ssh.FingerprintLegacyMD5`) the controller stores.
 */
import { createHash } from 'node:crypto';

const KEY_TYPES = new Set([
  'ssh-rsa',
  'ssh-dss',
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'sk-ssh-ed25519@openssh.com',
  'sk-ecdsa-sha2-nistp256@openssh.com',
]);

/** The decoded key blob of an OpenSSH public key line, or undefined when the line is not one. */
export function parseAuthorizedKey(text: string): { type: string; blob: Buffer; comment: string } | undefined {
  const line = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find((l) => l && !l.startsWith('#'));
  if (!line) return undefined;
  const [type, data, ...rest] = line.split(/\s+/);
  if (!KEY_TYPES.has(type) || !data || !/^[A-Za-z0-9+/]+={0,2}$/.test(data)) return undefined;
  const blob = Buffer.from(data, 'base64');
  if (blob.length < 4) return undefined;
  const length = blob.readUInt32BE(0);
  if (length + 4 > blob.length || blob.subarray(4, 4 + length).toString('latin1') !== type) return undefined;
  if (type === 'ssh-ed25519') {
    // string type, string key (32 bytes)
    const offset = 4 + length;
    if (blob.length < offset + 4 || blob.readUInt32BE(offset) !== 32 || blob.length !== offset + 4 + 32) return undefined;
  }
  return { type, blob, comment: rest.join(' ') };
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
