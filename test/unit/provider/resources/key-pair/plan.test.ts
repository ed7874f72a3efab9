/**
 * HarvesterKeyPair's pure plan, exactly: the object written, the id a machine pool takes, the live key pair read
 * back as inputs, the wait's verdict on Harvester's `validated` condition (True done, False final with its reason,
 * absent pending) and the outputs a program reads (fingerprint, validated, message); and labels that are not a map.
 */
import { strict as assert } from 'node:assert';
import type { KeyPair } from '../../../../../provider/client/objects';
import { keyPairSchema } from '../../../../../provider/resources/key-pair/model';
import { desiredKeyPair, keyPairId, liveInputs, toOutputs, validation } from '../../../../../provider/resources/key-pair/plan';
import { validateInputs } from '../../../../../provider/resources/key-pair/validate';
import { ed25519Blob, keyLine } from '../../../../support/keypair-rules';

const KEY = keyLine('ssh-ed25519', ed25519Blob(), 'me@laptop');
const inputs = keyPairSchema.parse({ name: 'ops', namespace: 'team-a', publicKey: KEY, labels: { team: 'a' } });
const OURS = { 'app.kubernetes.io/managed-by': 'harvester-iac', 'harvester-iac.io/resource-type': 'key-pair', 'harvester-iac.io/resource-name': 'ops' };

/** A live key pair with these conditions and fingerprint. */
const live = (conditions?: { type: string; status: string; reason?: string; message?: string }[], fingerPrint?: string): KeyPair => ({
  ...desiredKeyPair(inputs),
  status: { ...(fingerPrint ? { fingerPrint } : {}), ...(conditions ? { conditions } : {}) },
});

describe('HarvesterKeyPair plan: the object, the id, the wait and the outputs', () => {
  it('writes a harvesterhci.io/v1beta1 KeyPair with the key, the user\'s labels and our ownership labels', () => {
    assert.deepEqual(desiredKeyPair(inputs), {
      apiVersion: 'harvesterhci.io/v1beta1',
      kind: 'KeyPair',
      metadata: { name: 'ops', namespace: 'team-a', labels: { team: 'a', ...OURS } },
      spec: { publicKey: KEY },
    });
  });

  it('its id is "namespace/name", what a machine pool\'s sshKeys[] takes', () => {
    assert.equal(keyPairId(inputs), 'team-a/ops');
  });

  it('reads the live key and the user\'s labels back (no key read as empty)', () => {
    const kp = desiredKeyPair(inputs);
    kp.metadata.labels!['harvesterhci.io/creator'] = 'harvester';
    assert.deepEqual(liveInputs(kp), { publicKey: KEY, labels: { team: 'a' } });
    assert.deepEqual(liveInputs({ ...kp, spec: {} }), { publicKey: '', labels: { team: 'a' } });
  });

  it('the wait is done once validated=True, whatever other conditions say', () => {
    assert.deepEqual(validation('team-a/ops', live([{ type: 'Ready', status: 'False' }, { type: 'validated', status: 'True' }])), { done: true, description: 'KeyPair team-a/ops is validated' });
  });

  it('validated=False is final, with Harvester\'s reason, else its message, else "no reason given"', () => {
    const verdict = validation('team-a/ops', live([{ type: 'validated', status: 'False', reason: 'failed to parse the public key, error: ssh: no key found', message: 'm' }]));
    assert.equal(verdict.done, false);
    assert.equal(verdict.description, 'KeyPair team-a/ops was not validated');
    assert.equal(verdict.error?.message, 'Harvester did not validate KeyPair team-a/ops: failed to parse the public key, error: ssh: no key found');
    assert.equal(validation('team-a/ops', live([{ type: 'validated', status: 'False', message: 'only a message' }])).error?.message, 'Harvester did not validate KeyPair team-a/ops: only a message');
    assert.equal(validation('team-a/ops', live([{ type: 'validated', status: 'False' }])).error?.message, 'Harvester did not validate KeyPair team-a/ops: no reason given');
  });

  it('waits while there is no key pair, no validated condition (another False condition is not it) or an Unknown one', () => {
    const pending = { done: false, description: 'KeyPair team-a/ops: waiting for Harvester\'s key pair controller', pending: ['validated condition'] };
    assert.deepEqual(validation('team-a/ops', undefined), pending);
    assert.deepEqual(validation('team-a/ops', live()), pending);
    assert.deepEqual(validation('team-a/ops', live([{ type: 'Ready', status: 'False', reason: 'not it' }])), pending);
    assert.deepEqual(validation('team-a/ops', live([{ type: 'validated', status: 'Unknown' }])), pending);
  });

  it('outputs: the inputs, the fingerprint, validated and an empty message once validated; no drift unless given', () => {
    const fp = 'aa:bb:cc:dd:ee:ff:00:11:22:33:44:55:66:77:88:99';
    assert.deepEqual(toOutputs(inputs, live([{ type: 'Ready', status: 'False', reason: 'x' }, { type: 'validated', status: 'True', reason: 'ignored' }], fp)), {
      ...inputs, fingerprint: fp, validated: true, message: '', drift: [],
    });
    assert.deepEqual(toOutputs(inputs, live(), ['d']).drift, ['d']);
  });

  it('outputs before or without validation: no fingerprint, not validated, and why', () => {
    const out = (kp: KeyPair) => ((o) => ({ fingerprint: o.fingerprint, validated: o.validated, message: o.message }))(toOutputs(inputs, kp));
    assert.deepEqual(out(live()), { fingerprint: '', validated: false, message: 'not validated yet' });
    assert.deepEqual(out(live([{ type: 'Ready', status: 'True' }])), { fingerprint: '', validated: false, message: 'not validated yet' });
    assert.deepEqual(out(live([{ type: 'validated', status: 'False', reason: 'bad key', message: 'm' }])), { fingerprint: '', validated: false, message: 'bad key' });
    assert.deepEqual(out(live([{ type: 'validated', status: 'False', message: 'only a message' }])), { fingerprint: '', validated: false, message: 'only a message' });
  });
});

describe('HarvesterKeyPair check: labels that are not a map', () => {
  for (const labels of [null, 'team=a', ['team']]) {
    it(`labels ${JSON.stringify(labels)} is one failure on labels, not a crash`, () => {
      const failures = validateInputs({ name: 'k', publicKey: KEY, labels }).failures;
      assert.deepEqual(failures.map((f) => f.property), ['labels']);
      assert.match(failures[0].reason, /^must be an object of string keys \(got /);
    });
  }
});
