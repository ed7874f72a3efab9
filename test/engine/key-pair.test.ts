/**
 * HarvesterKeyPair through Pulumi's real dynamic-provider host, as the engine drives it: a key Harvester would
 * refuse is refused by check, naming publicKey, with no write; create waits for Harvester's validation and gives
 * the fingerprint; a `kubectl edit` of the key shows as drift on refresh and plans a delete-before-replace (the
 * fingerprint is computed once), which the engine's delete + create heals; delete leaves nothing.
 */
import assert from 'node:assert/strict';
import { ed25519Blob, keyLine, md5Fingerprint, rsaBlob } from '../support/keypair-rules';
import { startEngineHarness, type EngineHarness } from './engine-support';

describe('engine contract: key pair through the real dynamic-provider host', function () {
  this.timeout(120_000);
  let h: EngineHarness;
  before(async () => {
    h = await startEngineHarness();
  });
  after(async () => h?.stop());

  it('refuses a bad key at check; creates, fingerprints, shows a key edit as drift, replaces it and deletes', async () => {
    const text = await h.providerText('keyPair');
    const urn = h.urn('HarvesterKeyPair', 'engine-key');
    const blob = ed25519Blob();
    const news = { __provider: text, name: 'engine-key', publicKey: keyLine('ssh-ed25519', blob, 'engine') };

    const mark = h.t.emulator.journal.mark();
    const refused = await h.host.check(urn, {}, { ...news, publicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA' });
    assert.deepEqual(refused.failures.map((f) => f.property), ['publicKey']);
    assert.match(refused.failures[0].reason, /key is not in valid OpenSSH public key format/);
    assert.deepEqual(h.t.emulator.journal.entries({ since: mark }).filter((e) => ['create', 'update', 'patch', 'delete'].includes(e.verb ?? '')), []);

    const checked = await h.host.check(urn, {}, news);
    assert.deepEqual(checked.failures, []);
    const created = await h.host.create(urn, checked.inputs);
    assert.equal(created.id, 'default/engine-key', 'the id is what a machine pool\'s sshKeys[] takes');
    assert.equal(created.properties.fingerprint, md5Fingerprint(blob));
    assert.equal(created.properties.validated, true);
    assert.equal(created.properties.__provider, text);

    const refreshed = await h.host.read(urn, created.id, created.properties);
    assert.equal((await h.host.diff(urn, created.id, refreshed.properties, checked.inputs)).changes, 'none');

    const other = keyLine('ssh-rsa', rsaBlob(2048), 'edited');
    await h.client.keyPairs.mergePatch('engine-key', { spec: { publicKey: other } }, { namespace: 'default' });
    const drifted = await h.host.read(urn, created.id, refreshed.properties);
    assert.match((drifted.properties.drift as string[]).join('\n'), /KeyPair default\/engine-key: publicKey is/);
    assert.equal(drifted.properties.fingerprint, md5Fingerprint(blob), 'Harvester keeps the first fingerprint');
    const plan = await h.host.diff(urn, created.id, drifted.properties, checked.inputs);
    assert.deepEqual([plan.changes, plan.replaces, plan.deleteBeforeReplace], ['some', ['publicKey'], true]);

    await h.host.delete(urn, created.id, drifted.properties);
    const replaced = await h.host.create(urn, checked.inputs);
    assert.equal(replaced.properties.fingerprint, md5Fingerprint(blob));
    assert.equal((await h.client.keyPairs.get('engine-key', 'default'))?.spec?.publicKey, news.publicKey);

    await h.host.delete(urn, replaced.id, replaced.properties);
    assert.equal(await h.client.keyPairs.get('engine-key', 'default'), undefined);
  });
});
