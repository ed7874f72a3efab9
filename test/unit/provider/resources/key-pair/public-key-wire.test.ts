/**
 * judgePublicKey on the key data itself (the wire form, RFC 4253 §6.6 / RFC 5656 / RFC 8709 / OpenSSH PROTOCOL.u2f),
 * as golang.org/x/crypto/ssh parses it for Harvester's KeyPair webhook: the limits at their edges (RSA exponent 3 and
 * 2^24-1, a modulus of 16384 bits and one of 16385, a field ending exactly at the end, a length prefix cut short),
 * each type's own checks, and the exact reason the user reads for each refusal.
 */
import { strict as assert } from 'node:assert';
import { generateKeyPairSync } from 'node:crypto';
import { judgePublicKey, md5FingerprintOf } from '../../../../../provider/resources/key-pair/public-key';
import { dsaBlob, ed25519Blob, ecdsaBlob, keyLine, md5Fingerprint, sshString } from '../../../../support/keypair-rules';

const NO_KEY = 'holds no key Harvester accepts: ';

/** The reason a key text is refused (fails when it is accepted). */
function refusal(text: string): string {
  const v = judgePublicKey(text);
  assert.equal(v.ok, false, `expected ${JSON.stringify(text.slice(0, 60))} to be refused`);
  return v.reason;
}

/** The accepted key's wire form (fails, with the reason, when it is refused). */
function accepted(text: string): Buffer {
  const v = judgePublicKey(text);
  assert.ok(v.ok, v.ok ? '' : v.reason);
  return v.wire;
}

const edKey = (blob: Buffer) => blob.subarray(4 + 'ssh-ed25519'.length + 4);
const modulus = Buffer.from(generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'jwk' }).n!, 'base64url');
/** An ssh-rsa wire form from the raw bytes of its exponent and modulus fields (no mpint normalising). */
const rsaWire = (exponent: number[] | Buffer, n: Buffer = Buffer.concat([Buffer.from([0]), modulus])) =>
  Buffer.concat([sshString('ssh-rsa'), sshString(Buffer.from(exponent)), sshString(n)]);
/** The uncompressed P-256 point of a fresh ecdsa blob. */
const p256Point = () => {
  const blob = ecdsaBlob('nistp256');
  return blob.subarray(4 + 'ecdsa-sha2-nistp256'.length + 4 + 'nistp256'.length + 4);
};
const ecdsaWire = (point: Buffer, type = 'ecdsa-sha2-nistp256') => Buffer.concat([sshString(type), sshString('nistp256'), sshString(point)]);

describe('HarvesterKeyPair public key: the key data, field by field', () => {
  describe('fields and their lengths', () => {
    it('a field that ends exactly at the end of the data is read, even an empty one (a security key with an empty application)', () => {
      const wire = Buffer.concat([sshString('sk-ssh-ed25519@openssh.com'), sshString(edKey(ed25519Blob())), sshString('')]);
      assert.equal(md5FingerprintOf(accepted(keyLine('sk-ssh-ed25519@openssh.com', wire))), md5Fingerprint(wire));
    });

    it('a length prefix cut short (3 of its 4 bytes) is "ends too early", not an empty field', () => {
      const wire = Buffer.concat([sshString('ssh-ed25519'), Buffer.from([0, 0, 0])]);
      assert.equal(refusal(keyLine('ssh-ed25519', wire)), `${NO_KEY}the key data ends too early (truncated when copied?)`);
    });

    it('key data without any type says so', () => {
      const wire = Buffer.concat([sshString(''), sshString(edKey(ed25519Blob()))]);
      assert.equal(refusal(keyLine('ssh-ed25519', wire)), `${NO_KEY}the line says ssh-ed25519 but the key data is of no type`);
    });

    it('an unknown type is named, with the types Harvester knows', () => {
      const wire = Buffer.concat([sshString('ssh-foo'), sshString(Buffer.alloc(32, 7))]);
      assert.equal(refusal(keyLine('ssh-foo', wire)), `${NO_KEY}ssh-foo is not a key type Harvester knows (ssh-ed25519, ssh-rsa, ecdsa-sha2-nistp256/384/521, ssh-dss, or a security key)`);
    });
  });

  describe('ssh-rsa', () => {
    it('takes the exponents at the edges: 3 and 2^24-1', () => {
      accepted(keyLine('ssh-rsa', rsaWire([3])));
      accepted(keyLine('ssh-rsa', rsaWire([0, 0xff, 0xff, 0xff])));
    });

    it('refuses an exponent with its top bit set (a negative mpint), even 0x800001', () => {
      for (const e of [[0x80, 0, 1], [0x81, 0, 1], [0xff, 0xff, 0xff]]) {
        assert.equal(refusal(keyLine('ssh-rsa', rsaWire(e))), `${NO_KEY}the RSA public exponent is not an odd number from 3 to 2^24`, `exponent ${Buffer.from(e).toString('hex')}`);
      }
    });

    it('takes a modulus of 16384 bits and refuses one of 16385, saying so', () => {
      accepted(keyLine('ssh-rsa', rsaWire([1, 0, 1], Buffer.concat([Buffer.from([0]), Buffer.alloc(2048, 0xff)]))));
      assert.equal(refusal(keyLine('ssh-rsa', rsaWire([1, 0, 1], Buffer.concat([Buffer.from([0, 1]), Buffer.alloc(2048, 0xff)])))), `${NO_KEY}the RSA modulus is longer than 16384 bits`);
    });

    it('judges a negative modulus (its top bit set) by its size as Go does: one of 16392 bits is refused, -1 is taken', () => {
      // 0x80 then 2048 zero bytes is -2^16391 in two's complement: 16392 bits long.
      assert.equal(refusal(keyLine('ssh-rsa', rsaWire([1, 0, 1], Buffer.concat([Buffer.from([0x80]), Buffer.alloc(2048, 0)])))), `${NO_KEY}the RSA modulus is longer than 16384 bits`);
      accepted(keyLine('ssh-rsa', rsaWire([1, 0, 1], Buffer.alloc(2048, 0xff))));
    });
  });

  describe('ssh-dss', () => {
    it('names the size of a prime that is not 1024 bits: 2048, and 0 for an empty one', () => {
      assert.equal(refusal(keyLine('ssh-dss', dsaBlob(2048))), `${NO_KEY}a DSA key must have a 1024-bit prime, this one has 2048 bits`);
      const rest = dsaBlob(1024).subarray(4 + 'ssh-dss'.length);
      const p = rest.subarray(0, 4 + rest.readUInt32BE(0));
      const emptyP = Buffer.concat([sshString('ssh-dss'), sshString(''), rest.subarray(p.length)]);
      assert.equal(refusal(keyLine('ssh-dss', emptyP)), `${NO_KEY}a DSA key must have a 1024-bit prime, this one has 0 bits`);
    });
  });

  describe('ecdsa', () => {
    it('refuses a compressed point, a point marked 04 with only x, and one of the right length not marked 04, as not an uncompressed point', () => {
      const point = p256Point();
      const compressed = Buffer.concat([Buffer.from([2 + (point[64] & 1)]), point.subarray(1, 33)]);
      const why = `${NO_KEY}the nistp256 point is not an uncompressed point of that curve`;
      assert.equal(refusal(keyLine('ecdsa-sha2-nistp256', ecdsaWire(compressed))), why);
      assert.equal(refusal(keyLine('ecdsa-sha2-nistp256', ecdsaWire(Buffer.concat([Buffer.from([3]), point.subarray(1)])))), why);
      assert.equal(refusal(keyLine('ecdsa-sha2-nistp256', ecdsaWire(point.subarray(0, 33)))), why, 'marked 04 but only x');
      accepted(keyLine('ecdsa-sha2-nistp256', ecdsaWire(point)));
    });

    it('refuses a point off the curve, saying so', () => {
      assert.equal(refusal(keyLine('ecdsa-sha2-nistp256', ecdsaBlob('nistp256', true))), `${NO_KEY}the nistp256 point is not on the curve`);
    });

    it('refuses a key naming another curve than its type, naming both', () => {
      const wire = Buffer.concat([sshString('ecdsa-sha2-nistp384'), sshString('nistp256'), sshString(p256Point())]);
      assert.equal(refusal(keyLine('ecdsa-sha2-nistp384', wire)), `${NO_KEY}an ecdsa-sha2-nistp384 key names curve nistp256`);
    });

    it('takes a security key (sk-ecdsa-sha2-nistp256@openssh.com) with its application, and only with it', () => {
      const type = 'sk-ecdsa-sha2-nistp256@openssh.com';
      const wire = Buffer.concat([ecdsaWire(p256Point(), type), sshString('ssh:')]);
      assert.equal(md5FingerprintOf(accepted(keyLine(type, wire))), md5Fingerprint(wire));
      assert.equal(refusal(keyLine(type, Buffer.concat([wire, sshString('x')]))), `${NO_KEY}there are extra bytes after the key`);
    });
  });

  describe('ssh-ed25519', () => {
    it('names the size of a key that is not 32 bytes', () => {
      const wire = Buffer.concat([sshString('ssh-ed25519'), sshString(edKey(ed25519Blob()).subarray(1))]);
      assert.equal(refusal(keyLine('ssh-ed25519', wire)), `${NO_KEY}an Ed25519 key is 32 bytes, this one is 31`);
    });
  });

  describe('OpenSSH certificates', () => {
    it('are let through to Harvester whole (not judged here), by their type\'s suffix', () => {
      const type = 'ssh-ed25519-cert-v01@openssh.com';
      const wire = Buffer.concat([sshString(type), sshString(Buffer.alloc(32, 1)), sshString(edKey(ed25519Blob())), Buffer.alloc(40, 2)]);
      const v = judgePublicKey(keyLine(type, wire, 'ca-signed'));
      assert.deepEqual(v, { ok: true, type, wire, comment: 'ca-signed' });
    });

    it('a type that only contains the suffix is not a certificate', () => {
      const type = 'ssh-ed25519-cert-v01@openssh.com.old';
      const wire = Buffer.concat([sshString(type), sshString(Buffer.alloc(32, 1))]);
      assert.match(refusal(keyLine(type, wire)), /^holds no key Harvester accepts: ssh-ed25519-cert-v01@openssh\.com\.old is not a key type Harvester knows/);
    });
  });
});
