/**
 * Crashes: Pulumi's real dynamic-provider host killed (SIGKILL) in the middle of a create, of a rolling update and
 * of a delete, then the next run (a new host, as the next `pulumi up` starts one) from what the engine recorded:
 * for an interrupted create nothing (the create never returned), for an interrupted update the state before it.
 * Every re-run converges with no duplicate and no orphan (VMs, cloud-init Secrets, volumes).
 */
import assert from 'node:assert/strict';
import { startEngineHarness, until, type EngineHarness } from '../engine/engine-support';

describe('chaos: the provider process killed mid-operation, then the next run', function () {
  this.timeout(120_000);
  let h: EngineHarness;
  let text: string;
  const urn = () => h.urn('HarvesterMachinePool', 'crash');
  const objects = async () => {
    const opts = { namespace: 'default', labelSelector: 'harvester-iac.io/resource-name=crash' };
    const names = (items: { metadata: { name?: string } }[]) => items.map((i) => i.metadata.name!).sort();
    return {
      vms: names((await h.client.virtualMachines.list(opts)).items),
      secrets: names((await h.client.secrets.list(opts)).items),
      pvcs: names((await h.client.persistentVolumeClaims.list(opts)).items),
    };
  };

  before(async () => {
    h = await startEngineHarness();
    text = await h.providerText('machinePool');
    // Slow boots, so an operation is surely in flight when the host dies.
    h.t.emulator.harvester!.setDelays({ vmiBoot: 600 });
  });
  after(async () => h?.stop());

  let recorded: { id: string; properties: Record<string, unknown> };
  const inputs = (userData: string) => h.poolInputs('crash', text, { count: 3, userData, rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } });

  it('mid-create: the next run creates again and adopts what the first left, exactly 3 VMs', async () => {
    const host = await h.newHost();
    const checked = await host.check(urn(), {}, inputs('#cloud-config\nruncmd: [echo one]\n'));
    const pending = host.create(urn(), checked.inputs).catch((e: Error) => e);
    await until(async () => (await objects()).vms.length >= 1);
    host.kill();
    assert.ok((await pending) instanceof Error, 'the interrupted create failed');
    const next = await h.newHost();
    const again = await next.check(urn(), {}, inputs('#cloud-config\nruncmd: [echo one]\n'));
    assert.deepEqual(again.failures, [], 'what the crash left is ours: no name conflict');
    recorded = await next.create(urn(), again.inputs);
    const o = await objects();
    assert.deepEqual(o.vms, ['crash-0', 'crash-1', 'crash-2']);
    assert.deepEqual(o.secrets, ['crash-0-cloudinit', 'crash-1-cloudinit', 'crash-2-cloudinit']);
    assert.equal(o.pvcs.length, 3, `one volume per VM: ${o.pvcs.join(', ')}`);
  });

  it('mid-rolling-update: the next run updates from the state before it and finishes the roll, no stray volume', async () => {
    const host = await h.newHost();
    const news = (await host.check(urn(), recorded.properties, inputs('#cloud-config\nruncmd: [echo two]\n'))).inputs;
    const before = (await objects()).pvcs;
    const pending = host.update(urn(), recorded.id, recorded.properties, news).catch((e: Error) => e);
    await until(async () => (await objects()).pvcs.some((p) => !before.includes(p)));
    host.kill();
    assert.ok((await pending) instanceof Error);
    const next = await h.newHost();
    const refreshed = await next.read(urn(), recorded.id, recorded.properties);
    const healed = await next.update(urn(), recorded.id, refreshed.properties, news);
    recorded = { id: recorded.id, properties: healed.properties };
    const o = await objects();
    // A roll gives each new VM the next free index (the surge VM first), so the names move on.
    assert.equal(o.vms.length, 3, o.vms.join(', '));
    assert.deepEqual(o.secrets, o.vms.map((vm) => `${vm}-cloudinit`));
    assert.equal(o.pvcs.length, 3, `no volume left from the interrupted roll: ${o.pvcs.join(', ')}`);
    assert.deepEqual((await next.read(urn(), recorded.id, recorded.properties)).properties.drift, []);
  });

  it('mid-delete: the next run deletes what is left, leaving nothing', async () => {
    const host = await h.newHost();
    const pending = host.delete(urn(), recorded.id, recorded.properties).catch((e: Error) => e);
    await until(async () => (await objects()).vms.length < 3);
    host.kill();
    await pending;
    const next = await h.newHost();
    await next.delete(urn(), recorded.id, recorded.properties);
    assert.deepEqual(await objects(), { vms: [], secrets: [], pvcs: [] });
  });
});
