/**
 * The emulator's KeyPair webhook and controller against upstream: every case of the shared table
 * (test/support/keypair-rules.ts, which the provider's check runs too) is refused on create and update with
 * upstream's 422 and message, or accepted and fingerprinted; the controller's own upstream test table
 * (TestHandler_OnKeyPairChanged, harvester pkg/controller/master/keypair/controller_test.go) row by row.
 */
import { strict as assert } from 'node:assert';
import { KubeObject } from '../../emulator/api/types';
import { onKeyPairChanged } from '../../emulator/controllers/keypair-stages';
import { keyLine, keyPairRuleCases, md5Fingerprint, rsaBlob } from '../support/keypair-rules';
import { expectStatusError, HarvesterSim, startHarvesterSim } from './harvester-fixture';

const DENIED = 'admission webhook "validator.harvesterhci.io" denied the request: ';
const NOW = '2026-11-26T00:00:00Z';

function keyPair(name: string, publicKey: string, status?: Record<string, unknown>): KubeObject {
  return { apiVersion: 'harvesterhci.io/v1beta1', kind: 'KeyPair', metadata: { name, namespace: 'default' }, spec: { publicKey }, ...(status ? { status } : {}) };
}

/** Conditions without their timestamps (upstream's test blanks them too). */
const verdict = (kp: KubeObject | undefined) => {
  const status = (kp?.status ?? {}) as { fingerPrint?: string; conditions?: Record<string, unknown>[] };
  return { fingerPrint: status.fingerPrint, conditions: (status.conditions ?? []).map(({ lastUpdateTime: _u, lastTransitionTime: _t, ...c }) => c) };
};

describe('simulated Harvester: KeyPair rules as upstream has them', () => {
  let sim: HarvesterSim;
  beforeEach(async () => {
    sim = await startHarvesterSim();
  });
  afterEach(() => sim.close());

  const cases = keyPairRuleCases();
  for (const c of cases) {
    it(`${c.refused ? 'refuses' : 'accepts'} ${c.label}`, async () => {
      if (c.refused) {
        const err = expectStatusError(() => sim.store.create(sim.kinds.keyPair, keyPair('k', c.publicKey)));
        assert.equal(err.status.code, 422);
        assert.equal(err.status.reason, 'Invalid');
        assert.equal(err.status.message, `${DENIED}${c.refused}`);
        assert.deepEqual((err.status.details as { causes?: unknown[] }).causes, [{ reason: 'FieldValueInvalid', message: c.refused, field: 'spec.publicKey' }]);
        // The same rule on update.
        const good = sim.store.create(sim.kinds.keyPair, keyPair('good', cases[1].publicKey));
        const update = expectStatusError(() => sim.store.update(sim.kinds.keyPair, { ...good, spec: { publicKey: c.publicKey } }));
        assert.equal(update.status.message, `${DENIED}${c.refused}`);
        return;
      }
      sim.store.create(sim.kinds.keyPair, keyPair('k', c.publicKey));
      await sim.run(0);
      assert.deepEqual(verdict(sim.store.get(sim.kinds.keyPair, 'default', 'k')), {
        fingerPrint: md5Fingerprint(c.blob!),
        conditions: [{ type: 'validated', status: 'True' }],
      });
    });
  }

  it('keeps the first fingerprint when the key changes later (upstream skips a key pair with a fingerprint)', async () => {
    sim.store.create(sim.kinds.keyPair, keyPair('k', cases[1].publicKey));
    await sim.run(0);
    const validated = sim.store.get(sim.kinds.keyPair, 'default', 'k')!;
    sim.store.update(sim.kinds.keyPair, { ...validated, spec: { publicKey: keyLine('ssh-rsa', rsaBlob(1024)) } });
    await sim.run(0);
    assert.equal(verdict(sim.store.get(sim.kinds.keyPair, 'default', 'k')).fingerPrint, md5Fingerprint(cases[1].blob!));
  });

  it('never checks a delete', async () => {
    sim.store.create(sim.kinds.keyPair, keyPair('k', cases[1].publicKey));
    sim.store.delete(sim.kinds.keyPair, 'default', 'k');
    assert.equal(sim.store.get(sim.kinds.keyPair, 'default', 'k'), undefined);
  });
});

describe('KeyPair controller: upstream TestHandler_OnKeyPairChanged', () => {
  const rsa = rsaBlob(2048);
  const deleted = keyPair('test', keyLine('ssh-rsa', rsa));
  deleted.metadata.deletionTimestamp = NOW;
  const rows: { name: string; given: KubeObject | undefined; expected: ReturnType<typeof verdict> | 'unchanged' }[] = [
    { name: 'nil resource', given: undefined, expected: 'unchanged' },
    { name: 'deleted resource', given: deleted, expected: 'unchanged' },
    { name: 'blank public key', given: keyPair('test', ''), expected: 'unchanged' },
    { name: 'not blank fingerprint', given: keyPair('test', 'FAKE_PUBLIC_KEY', { fingerPrint: 'FAKE_FINGER_PRINT' }), expected: 'unchanged' },
    {
      name: 'illegal public key',
      given: keyPair('test', 'FAKE_PUBLIC_KEY'),
      expected: { fingerPrint: undefined, conditions: [{ type: 'validated', status: 'False', reason: 'failed to parse the public key, error: ssh: no key found' }] },
    },
    {
      name: 'generate fingerprint for legal public key',
      given: keyPair('test', keyLine('ssh-rsa', rsa, 'test@harvester')),
      expected: { fingerPrint: md5Fingerprint(rsa), conditions: [{ type: 'validated', status: 'True' }] },
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const out = onKeyPairChanged(row.given, NOW);
      if (row.expected === 'unchanged') assert.equal(out, undefined);
      else assert.deepEqual(verdict(out), row.expected);
    });
  }

  it('fingerprints a key fixed after a failed parse (no fingerprint yet, so upstream parses again)', () => {
    const failed = onKeyPairChanged(keyPair('test', 'FAKE_PUBLIC_KEY'), NOW)!;
    const fixed = onKeyPairChanged({ ...failed, spec: { publicKey: keyLine('ssh-rsa', rsa) } }, NOW);
    assert.deepEqual(verdict(fixed), { fingerPrint: md5Fingerprint(rsa), conditions: [{ type: 'validated', status: 'True' }] });
    assert.equal(onKeyPairChanged(failed, NOW), undefined, 'the same failure again writes nothing');
  });
});
