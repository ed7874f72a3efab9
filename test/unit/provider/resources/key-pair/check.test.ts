/**
 * HarvesterKeyPair's pure check against upstream's rules: every case of the shared key table
 * (test/support/keypair-rules.ts, which the emulator's webhook runs too) is refused on publicKey with Harvester's
 * words and the reason, or accepted with the fingerprint Harvester computes; the labels rules; the plan's diff.
 */
import { strict as assert } from 'node:assert';
import { judgePublicKey, md5FingerprintOf } from '../../../../../provider/resources/key-pair/public-key';
import { validateInputs } from '../../../../../provider/resources/key-pair/validate';
import { desiredKeyPair } from '../../../../../provider/resources/key-pair/plan';
import { keyPairResource } from '../../../../../provider/resources/key-pair/handlers';
import { diffOf, driftOf as driftOfResource } from '../../../../../provider/core/reconciler/reconciler';
import { formatFailure } from '../../../../../provider/core/input-errors';

const diffInputs = diffOf(keyPairResource);
const driftOf = driftOfResource(keyPairResource);
import { keyPairSchema } from '../../../../../provider/resources/key-pair/model';
import { UNKNOWN } from '../../../../../provider/core/unknowns';
import { keyPairRuleCases, md5Fingerprint } from '../../../../support/keypair-rules';

describe('HarvesterKeyPair check: the public key as Harvester judges it', () => {
  const cases = keyPairRuleCases();
  for (const c of cases) {
    it(`${c.refused ? 'refuses' : 'accepts'} ${c.label}`, () => {
      const v = validateInputs({ name: 'k', publicKey: c.publicKey });
      if (c.refused) {
        assert.deepEqual(v.failures.map((f) => f.property), ['publicKey']);
        assert.match(formatFailure(v.failures[0]), new RegExp(`^publicKey: (?!publicKey).*\\(Harvester refuses it: "${c.refused}"\\)`));
        return;
      }
      assert.deepEqual(v.failures, []);
      const verdict = judgePublicKey(c.publicKey);
      assert.ok(verdict.ok);
      assert.equal(md5FingerprintOf(verdict.wire), md5Fingerprint(c.blob!));
    });
  }

  it('gives the reason: type mismatch, short data, PEM', () => {
    const reason = (k: string) => (judgePublicKey(k) as { reason: string }).reason;
    assert.match(reason(cases.find((c) => c.label.startsWith('a declared type'))!.publicKey), /the line says ssh-rsa but the key data is ssh-ed25519/);
    assert.match(reason(cases.find((c) => c.label.startsWith('a truncated'))!.publicKey), /ends too early/);
    assert.match(reason(cases.find((c) => c.label.startsWith('a PEM'))!.publicKey), /is a PEM, RFC 4716 or PuTTY file/);
  });

  it('judges nothing unknown at preview', () => {
    assert.deepEqual(validateInputs({ name: 'k', publicKey: UNKNOWN }).failures, []);
  });

  it('refuses reserved and invalid label keys and values, naming each', () => {
    const v = validateInputs({ name: 'k', publicKey: cases[1].publicKey, labels: { 'harvesterhci.io/x': 'a', 'bad key': 'a', ok: 'not valid!' } });
    assert.deepEqual(v.failures.map((f) => f.property).sort(), ['labels["bad key"]', 'labels["harvesterhci.io/x"]', 'labels["ok"]']);
  });
});

describe('HarvesterKeyPair plan', () => {
  const key = keyPairRuleCases()[1].publicKey;
  const inputs = keyPairSchema.parse({ name: 'k', publicKey: key, labels: { team: 'a' } });

  it('writes the key with the user labels and ours; a key change replaces, a labels change updates', () => {
    const kp = desiredKeyPair(inputs);
    assert.equal(kp.metadata.namespace, 'default');
    assert.equal(kp.metadata.labels!.team, 'a');
    assert.equal(kp.metadata.labels!['app.kubernetes.io/managed-by'], 'harvester-iac');
    assert.deepEqual(diffInputs({ ...inputs, drift: [] }, { ...inputs, publicKey: `${key} x` }).replaces, ['publicKey']);
    assert.deepEqual(diffInputs({ ...inputs, drift: [] }, { ...inputs, labels: {} }), { changes: true, replaces: [] });
    assert.deepEqual(diffInputs({ ...inputs, drift: [] }, inputs), { changes: false, replaces: [] });
  });

  it('drift names the property and both values; Harvester\'s and our labels are not drift', () => {
    const live = desiredKeyPair(inputs);
    live.metadata.labels!['harvesterhci.io/creator'] = 'harvester';
    assert.deepEqual(driftOf(inputs, live), []);
    live.metadata.labels!.team = 'b';
    assert.deepEqual(driftOf(inputs, live), ['KeyPair default/k: labels is {"team":"b"}, this resource set {"team":"a"}']);
  });
});
