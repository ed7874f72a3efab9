/**
 * A malformed public key gets the same reason whatever its comment, through the provider object programs reach
 * (`harvester-iac/provider`'s `keyPair.check`; a refused key is refused before any cluster is asked). Go's
 * ssh.ParseAuthorizedKey tries a line as `<type> <base64> [comment]` and then as `<options> <type> <base64> …`;
 * the reason must come from the reading that holds a key type, not from the options reading, which took the comment
 * for the key data (`me@laptop` "is not padded standard base64").
 */
import assert from 'node:assert/strict';
import { keyPair } from '../../../../../provider';
import { ed25519Blob, keyLine, rsaBlob, sshString } from '../../../../support/keypair-rules';

const COMMENTS = ['me@laptop', 'z', ''];

/** The check failures of a key text, as [property, reason]. */
async function refusal(publicKey: string): Promise<[string, string][]> {
  const r = await keyPair.check({}, { name: 'k', publicKey });
  return (r.failures ?? []).map((f) => [f.property, f.reason]);
}

const ed25519 = ed25519Blob();
const MALFORMED: { what: string; blob: Buffer; type?: string; reason: RegExp }[] = [
  { what: 'truncated (cut inside the key field)', blob: ed25519.subarray(0, ed25519.length - 8), reason: /ends too early \(truncated when copied\?\)/ },
  { what: 'truncated at a field boundary', blob: ed25519.subarray(0, 4 + 'ssh-ed25519'.length), reason: /ends too early/ },
  { what: 'of another type than the line says', blob: ed25519, type: 'ssh-rsa', reason: /the line says ssh-rsa but the key data is ssh-ed25519/ },
  { what: 'with extra bytes after the key', blob: Buffer.concat([ed25519, sshString('x')]), reason: /extra bytes after the key/ },
  { what: 'an RSA key with an even exponent', blob: rsaBlob(2048, Buffer.from([0x01, 0x00, 0x00])), type: 'ssh-rsa', reason: /public exponent/ },
];

describe('HarvesterKeyPair check: the same reason for a malformed key whatever its comment', () => {
  for (const m of MALFORMED) {
    it(`a key ${m.what}: one reason with the comment me@laptop, z or none`, async () => {
      const reasons = await Promise.all(COMMENTS.map((comment) => refusal(keyLine(m.type ?? 'ssh-ed25519', m.blob, comment))));
      for (const [i, r] of reasons.entries()) {
        assert.equal(r.length, 1, `comment ${JSON.stringify(COMMENTS[i])}: ${JSON.stringify(r)}`);
        assert.equal(r[0][0], 'publicKey');
        assert.match(r[0][1], m.reason, `comment ${JSON.stringify(COMMENTS[i])}`);
      }
      assert.deepEqual(reasons[0], reasons[1]);
      assert.deepEqual(reasons[1], reasons[2]);
    });
  }

  it('a line of options before the key still gets the reason of the key after them', async () => {
    const line = `no-pty,command="echo hi" ${keyLine('ssh-ed25519', ed25519.subarray(0, ed25519.length - 8), 'me@laptop')}`;
    const [[property, reason]] = await refusal(line);
    assert.equal(property, 'publicKey');
    assert.match(reason, /ends too early/);
  });
});
