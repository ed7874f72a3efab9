/**
 * Two `up`s of the same stack at once (a CI double trigger): two dynamic-provider hosts create the same machine pool
 * concurrently. Both succeed, and the cluster ends with exactly one pool of the asked size (no duplicate VM, Secret
 * or volume), which a refresh finds without drift. And a person's edit of a managed VM is never overwritten
 * blindly: a refresh shows it as drift, and only the next up rolls it back. (Edits racing a write are 409s that the
 * client re-reads, never forces: test/integration/client-faults.test.ts.)
 */
import assert from 'node:assert/strict';
import { startEngineHarness, type EngineHarness } from '../engine/engine-support';

describe('chaos: concurrent runs and a person editing during a run', function () {
  this.timeout(120_000);
  let h: EngineHarness;
  let text: string;
  before(async () => {
    h = await startEngineHarness();
    text = await h.providerText('machinePool');
  });
  after(async () => h?.stop());

  const objects = async (pool: string) => {
    const opts = { namespace: 'default', labelSelector: `harvester-iac.io/resource-name=${pool}` };
    return {
      vms: (await h.client.virtualMachines.list(opts)).items.length,
      secrets: (await h.client.secrets.list(opts)).items.length,
      pvcs: (await h.client.persistentVolumeClaims.list(opts)).items.length,
    };
  };

  it('two creates of one pool at once both succeed with one pool of the asked size, which a refresh finds without drift', async () => {
    const urn = h.urn('HarvesterMachinePool', 'twice');
    const inputs = h.poolInputs('twice', text, { count: 3 });
    const [a, b] = [await h.newHost(), await h.newHost()];
    const [ca, cb] = [await a.check(urn, {}, inputs), await b.check(urn, {}, inputs)];
    const results = await Promise.allSettled([a.create(urn, ca.inputs), b.create(urn, cb.inputs)]);
    // Both succeed: a VM the other host made a moment ago is ours but for its random claim names (apply.ts ourConcurrentMachine).
    assert.deepEqual(results.map((r) => (r.status === 'rejected' ? String(r.reason) : 'ok')), ['ok', 'ok']);
    assert.deepEqual(await objects('twice'), { vms: 3, secrets: 3, pvcs: 3 });
    const winner = results.find((r) => r.status === 'fulfilled') as PromiseFulfilledResult<{ id: string; properties: Record<string, unknown> }>;
    const refreshed = await a.read(urn, winner.value.id, winner.value.properties);
    assert.deepEqual(refreshed.properties.drift, []);
    await a.delete(urn, winner.value.id, refreshed.properties);
    assert.deepEqual(await objects('twice'), { vms: 0, secrets: 0, pvcs: 0 });
  });

  it('a VM edited by a person between runs is reported as drift and rolled back by the next up, never silently kept or lost', async () => {
    const urn = h.urn('HarvesterMachinePool', 'edited');
    const checked = await h.host.check(urn, {}, h.poolInputs('edited', text, { count: 1 }));
    const made = await h.host.create(urn, checked.inputs);
    await h.client.virtualMachines.mergePatch('edited-0', { spec: { template: { spec: { domain: { cpu: { cores: 8 } } } } } }, { namespace: 'default' });
    const refreshed = await h.host.read(urn, made.id, made.properties);
    assert.match((refreshed.properties.drift as string[]).join('\n'), /cpu/i);
    assert.equal((await h.host.diff(urn, made.id, refreshed.properties, checked.inputs)).changes, 'some');
    const healed = await h.host.update(urn, made.id, refreshed.properties, checked.inputs);
    assert.deepEqual((await h.host.read(urn, made.id, healed.properties)).properties.drift, []);
    await h.host.delete(urn, made.id, healed.properties);
  });
});
