/**
 * HarvesterKeyPair's handlers in process on the emulator: check naming a namespace that does not exist; create
 * waiting on Harvester's key pair controller (progress from "waiting" to "validated") with the fingerprint Harvester
 * computed; an update removing a label (nulled) while keeping the others and Harvester's own; a key pair Harvester
 * refused (validated=False, as its controller writes when a key got past the webhook) failing with Harvester's reason; a
 * validation that never comes timing out with what was awaited and the option to raise. Emulator only.
 */
import assert from 'node:assert/strict';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { createKeyPairProvider } from '../../provider/resources/key-pair/handlers';
import { desiredKeyPair } from '../../provider/resources/key-pair/plan';
import { validateInputs } from '../../provider/resources/key-pair/validate';
import { eventually, startTestEmulator, type TestEmulator } from '../support/emulator-harness';
import { fastConnect } from '../support/fast-connect';
import { ed25519Blob, keyLine, md5Fingerprint } from '../support/keypair-rules';
import { acceptanceMode } from '../support/target';

type Raw = Record<string, unknown>;

describe('HarvesterKeyPair handlers: check, create, label update, refusal by Harvester and timeout', function () {
  this.timeout(60_000);
  let t: TestEmulator;
  let client: HarvesterClient;
  const progress: string[] = [];
  const keyPairs = createKeyPairProvider({ connect: fastConnect(), onProgress: (line) => progress.push(line) });
  const blob = ed25519Blob();
  const publicKey = keyLine('ssh-ed25519', blob, 'me@laptop');
  const args = (name: string, extra: Raw = {}): Raw => ({ kubeconfig: t.emulator.kubeconfig, name, publicKey, timeouts: { create: '20s', update: '20s', delete: '20s' }, ...extra });
  const inputsOf = (raw: Raw) => validateInputs(raw).inputs!;
  /** Writes the key pair's status as Harvester's controller does (the KeyPair CRD has no status subresource). */
  const writeStatus = (name: string, status: Raw) => t.kubectlOk(['patch', 'keypairs.harvesterhci.io', name, '-n', 'default', '--type=merge', '-p', JSON.stringify({ status })]);
  /** Our key pair, written directly and validated by the emulator's controller. */
  async function validatedKeyPair(name: string) {
    await client.keyPairs.create(desiredKeyPair(inputsOf(args(name))));
    return eventually(async () => (await client.keyPairs.get(name, 'default'))?.status?.fingerPrint, `KeyPair default/${name} to be validated`);
  }

  before(async function () {
    if (acceptanceMode()) this.skip();
    t = await startTestEmulator({ harvester: { delays: { keyPairValidate: 100 } } });
    client = await HarvesterClient.connect({ kubeconfig: t.emulator.kubeconfig });
  });
  after(async () => t?.stop());

  it('check refuses a namespace that does not exist, naming it and the way out', async () => {
    const r = await keyPairs.check({}, args('nowhere', { namespace: 'no-such-namespace' }));
    assert.deepEqual(r.failures, [{ property: 'namespace', reason: 'namespace no-such-namespace does not exist: create it, or choose an existing one' }]);
    assert.deepEqual((await keyPairs.check({}, args('somewhere'))).failures ?? [], []);
  });

  it('create waits for Harvester\'s controller to validate the key; the outputs carry its fingerprint', async () => {
    progress.length = 0;
    const { id, outs } = await keyPairs.create(inputsOf(args('ops', { labels: { team: 'a' } })));
    assert.equal(id, 'default/ops');
    assert.deepEqual(progress, ['KeyPair default/ops: waiting for Harvester\'s key pair controller', 'KeyPair default/ops is validated']);
    assert.equal(outs!.fingerprint, md5Fingerprint(blob));
    assert.equal(outs!.validated, true);
    assert.equal(outs!.message, '');
    const live = (await client.keyPairs.get('ops', 'default'))!;
    assert.equal(live.spec?.publicKey, publicKey);
    assert.equal(live.metadata.labels?.team, 'a');
  });

  it('an update removes a label no longer set and keeps the others, ours and Harvester\'s', async () => {
    const before = inputsOf(args('labelled', { labels: { team: 'a', tier: 'gold' } }));
    const { outs } = await keyPairs.create(before);
    await client.keyPairs.mergePatch('labelled', { metadata: { labels: { 'harvesterhci.io/creator': 'harvester' } } }, { namespace: 'default' });
    const after = inputsOf(args('labelled', { labels: { team: 'b', owner: 'ops' } }));
    const updated = await keyPairs.update('default/labelled', outs as unknown as Raw, after);
    const labels = (await client.keyPairs.get('labelled', 'default'))!.metadata.labels!;
    assert.deepEqual(labels, {
      team: 'b',
      owner: 'ops',
      'harvesterhci.io/creator': 'harvester',
      'app.kubernetes.io/managed-by': 'harvester-iac',
      'harvester-iac.io/resource-type': 'key-pair',
      'harvester-iac.io/resource-name': 'labelled',
    });
    assert.deepEqual(updated.outs!.labels, { team: 'b', owner: 'ops' });
    assert.equal(updated.outs!.validated, true);
  });

  it('a key pair Harvester refused (validated=False) fails the create with Harvester\'s reason', async () => {
    await validatedKeyPair('refused');
    const reason = 'failed to parse the public key, error: ssh: no key found';
    await writeStatus('refused', { conditions: [{ type: 'validated', status: 'False', reason }] });
    await assert.rejects(keyPairs.create(inputsOf(args('refused'))), (err: Error) => {
      assert.match(err.message, new RegExp(`Harvester did not validate KeyPair default/refused: ${reason}`));
      return true;
    });
  });

  it('a validation that never comes times out naming what it waited for, what is pending and the option to raise', async () => {
    await validatedKeyPair('stuck');
    // Harvester's controller never validates a key pair that has a fingerprint again: the condition stays gone.
    await writeStatus('stuck', { conditions: null });
    const inputs = inputsOf(args('stuck', { labels: { team: 'a' }, timeouts: { create: '20s', update: '1s', delete: '20s' } }));
    await assert.rejects(keyPairs.update('default/stuck', inputs as unknown as Raw, inputs), (err: Error) => {
      assert.match(
        err.message,
        /Timed out after 1s waiting for KeyPair default\/stuck to be validated\. Last seen: KeyPair default\/stuck: waiting for Harvester's key pair controller\. Still pending: validated condition\./,
      );
      assert.match(err.message, /raise `timeouts\.update` \(now 1s\)/);
      return true;
    });
  });
});
