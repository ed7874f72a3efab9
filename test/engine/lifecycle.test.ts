/**
 * HarvesterMachinePool through Pulumi's real dynamic-provider host, as the engine drives it: check → create →
 * refresh (no false drift) → out-of-band deletion → refresh shows drift → update heals → delete leaves nothing.
 * Credentials come from stack config only (the host's environment points KUBECONFIG at nothing).
 */
import assert from 'node:assert/strict';
import { waitForDeletion } from '../../provider/await/awaiter';
import { startEngineHarness, type EngineHarness } from './engine-support';

describe('engine contract: machine pool lifecycle through the real dynamic-provider host', function () {
  this.timeout(120_000);
  let h: EngineHarness;
  before(async () => {
    h = await startEngineHarness();
  });
  after(async () => h?.stop());

  it('creates, refreshes without drift, heals an out-of-band deletion and deletes everything, with credentials from stack config', async () => {
    const text = await h.providerText('machinePool');
    const urn = h.urn('HarvesterMachinePool', 'engine-life');
    const news = h.poolInputs('engine-life', text);

    const checked = await h.host.check(urn, {}, news);
    assert.deepEqual(checked.failures, []);
    assert.equal(checked.inputs.__provider, text, 'the host puts __provider back into the checked inputs');

    const created = await h.host.create(urn, checked.inputs);
    assert.equal(created.id, 'default/engine-life');
    assert.equal(created.properties.readyCount, 1);
    assert.equal(created.properties.__provider, text);
    assert.equal(JSON.stringify(created.properties).includes('s3cr3t-user-data'), false, 'user data never in outputs');
    assert.equal('kubeconfig' in created.properties, false, 'credentials from stack config never reach state');

    const refreshed = await h.host.read(urn, created.id, created.properties);
    assert.equal(refreshed.id, created.id);
    assert.deepEqual(refreshed.properties.drift, []);
    assert.equal((await h.host.diff(urn, created.id, refreshed.properties, checked.inputs)).changes, 'none');

    await h.client.virtualMachines.delete('engine-life-0', { namespace: 'default' });
    await waitForDeletion({ resource: h.client.virtualMachines, name: 'engine-life-0', namespace: 'default', timeoutMs: 30_000, what: 'VM engine-life-0 gone' });
    const drifted = await h.host.read(urn, created.id, refreshed.properties);
    assert.match((drifted.properties.drift as string[]).join('\n'), /engine-life-0/);
    assert.equal((await h.host.diff(urn, created.id, drifted.properties, checked.inputs)).changes, 'some');

    const healed = await h.host.update(urn, created.id, drifted.properties, checked.inputs);
    assert.equal(healed.properties.readyCount, 1);
    assert.equal(healed.properties.__provider, text);

    await h.host.delete(urn, created.id, healed.properties);
    const left = await h.client.virtualMachines.list({ namespace: 'default', labelSelector: 'harvester-iac.io/resource-name=engine-life' });
    assert.equal(left.items.length, 0);
    const secrets = await h.client.secrets.list({ namespace: 'default', labelSelector: 'harvester-iac.io/resource-name=engine-life' });
    assert.equal(secrets.items.length, 0);
  });
});
