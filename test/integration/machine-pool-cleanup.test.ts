/**
 * What a pool leaves behind, judged only by the objects on the target before and after each operation (never
 * by the handlers' internals): every claim of a multi-disk VM removed on scale-down, roll and destroy; cloud-init
 * Secrets left without their VM swept by destroy; a VM's missing cloud-init Secret healed by the next update; a
 * removed VM held by another controller's finalizer waited for, and named.
 */
import assert from 'node:assert/strict';
import type { KubeObject } from '../../provider/client/objects';
import type { MachinePoolOutputs } from '../../provider/resources/machine-pool/outputs';
import { eventually } from '../support/emulator-harness';
import { suiteTimeout } from '../support/target';
import { literal } from './client-support';
import { startPoolHarness, type PoolHarness } from './machine-pool-support';

const live = (objects: KubeObject[]): string[] => objects.filter((o) => !o.metadata.deletionTimestamp).map((o) => o.metadata.name!).sort();

describe('machine pool: nothing left behind, nothing lost', function () {
  this.timeout(suiteTimeout(120_000));
  let h: PoolHarness;
  before(async () => {
    h = await startPoolHarness();
  });
  after(async () => {
    await h?.stop();
  });

  /** Claims of `vm` (its name, then "-disk-"), not being deleted. */
  const claimsOf = async (pool: string, vm: string) => live(await h.list('persistentVolumeClaims', pool)).filter((n) => n.startsWith(`${vm}-disk-`));

  it('volumeDeletion "delete" removes every claim of a two-disk VM on scale-down, roll and destroy', async () => {
    const pool = h.name('twodisk');
    const twoDisks = { count: 2, disks: [{ image: h.target.fixtures.cloudImage, size: '20Gi' }, { size: '10Gi' }], volumeDeletion: 'delete' };
    const created = await h.provider.create((await h.provider.check({}, h.args(pool, twoDisks))).inputs!);
    assert.equal((await claimsOf(pool, `${pool}-0`)).length, 2);
    assert.equal((await claimsOf(pool, `${pool}-1`)).length, 2);

    const scaledInputs = (await h.provider.check({}, h.args(pool, { ...twoDisks, count: 1 }))).inputs!;
    const scaled = await h.provider.update(h.id(pool), created.outs!, scaledInputs);
    assert.deepEqual(scaled.outs!.machines.map((m) => m.name), [`${pool}-0`]);
    assert.deepEqual(await claimsOf(pool, `${pool}-1`), [], 'both claims of the removed VM are gone');
    assert.equal((await claimsOf(pool, `${pool}-0`)).length, 2, 'the kept VM keeps both');

    const rolledInputs = (await h.provider.check({}, h.args(pool, { ...twoDisks, count: 1, cpu: 4 }))).inputs!;
    const rolled = await h.provider.update(h.id(pool), scaled.outs!, rolledInputs);
    const [replacement] = rolled.outs!.machines.map((m) => m.name);
    assert.notEqual(replacement, `${pool}-0`, 'the cpu change rolled the VM');
    assert.deepEqual(await claimsOf(pool, `${pool}-0`), [], 'both claims of the rolled VM are gone');
    assert.equal((await claimsOf(pool, replacement)).length, 2);

    await h.provider.delete(h.id(pool), rolled.outs!);
    assert.deepEqual(live(await h.list('persistentVolumeClaims', pool)), [], 'destroy removes both claims');
  });

  it('destroy sweeps cloud-init Secrets left without their VM (a create cut short, a VM deleted with orphaning)', async () => {
    const pool = h.name('strays');
    const { outs } = await h.provider.create((await h.provider.check({}, h.args(pool, { count: 2 }))).inputs!);
    const secrets = await h.list('secrets', pool);
    assert.equal(secrets.length, 2);
    // A create cut short between the Secret and its VM: a Secret of the pool for an index that has no VM.
    const template = secrets[0];
    const stray = `${pool}-7-cloudinit`;
    await h.client.secrets.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: stray, namespace: h.namespace, labels: { ...template.metadata.labels }, annotations: { ...template.metadata.annotations } },
      type: (template as KubeObject & { type?: string }).type,
      data: { userdata: Buffer.from('#cloud-config\n').toString('base64') },
    } as KubeObject);
    // A VM deleted out of band with orphaning: its Secret stays, owned by nothing.
    await h.client.virtualMachines.delete(`${pool}-1`, { namespace: h.namespace, propagationPolicy: 'Orphan' });
    const before = live(await h.list('secrets', pool));
    assert.ok(before.includes(stray) && before.length === 3, before.join());

    await h.provider.delete(h.id(pool), outs!);
    assert.deepEqual(live(await h.list('secrets', pool)), [], 'no Secret of the pool is left');
    assert.equal(await h.get('secrets', stray), undefined);
  });

  it('a VM whose cloud-init Secret is missing gets it back on the next update, without being rolled', async () => {
    const pool = h.name('nosecret');
    const inputs = (await h.provider.check({}, h.args(pool, { count: 1 }))).inputs!;
    const { outs } = await h.provider.create(inputs);
    const [secret] = await h.list('secrets', pool);
    const vm = (await h.get('virtualMachines', `${pool}-0`))!;
    await h.client.secrets.delete(secret.metadata.name!, { namespace: h.namespace });
    assert.deepEqual(live(await h.list('secrets', pool)), []);

    const healed = await h.provider.update(h.id(pool), outs as MachinePoolOutputs, inputs);
    const back = await h.get('secrets', secret.metadata.name!);
    assert.ok(back && !back.metadata.deletionTimestamp, 'the Secret is back under its name');
    assert.deepEqual((back as KubeObject & { data?: Record<string, string> }).data, (secret as KubeObject & { data?: Record<string, string> }).data, 'with the same cloud-init data');
    assert.deepEqual(
      back.metadata.ownerReferences?.map((r) => [r.kind, r.name, r.uid]),
      [['VirtualMachine', `${pool}-0`, vm.metadata.uid]],
      'owned by its VM again, so it goes with the VM',
    );
    assert.deepEqual(healed.outs!.machines.map((m) => m.name), [`${pool}-0`]);
    assert.equal((await h.get('virtualMachines', `${pool}-0`))!.metadata.uid, vm.metadata.uid, 'the VM was not replaced');
    await h.provider.delete(h.id(pool), healed.outs!);
  });

  it('a scale-down waits while another controller\'s finalizers hold the removed VMs, naming each VM and finalizer, and ends once they are released', async () => {
    const pool = h.name('held');
    const { outs } = await h.provider.create((await h.provider.check({}, h.args(pool, { count: 3 }))).inputs!);
    const held = [`${pool}-1`, `${pool}-2`];
    const hold = 'example.com/backup-in-progress';
    const audit = 'example.com/audit';
    for (const name of held) {
      const vm = (await h.get('virtualMachines', name))!;
      await h.client.virtualMachines.mergePatch(name, { metadata: { finalizers: [...(vm.metadata.finalizers ?? []), hold, audit] } }, { namespace: h.namespace });
    }
    const progressFrom = h.progress.length;
    const scaling = h.provider.update(h.id(pool), outs!, (await h.provider.check({}, h.args(pool, { count: 1 }))).inputs!);
    const names = new RegExp(`^waiting for (${literal(held[0])}, ${literal(held[1])}|${literal(held[1])}, ${literal(held[0])}) to be deleted \\(finalizers: `);
    const line = await eventually(
      () => h.progress.slice(progressFrom).find((l) => names.test(l)),
      `a progress line naming ${held.join(' and ')} and their finalizers`,
      10_000,
    );
    assert.ok(line.endsWith(`${hold}, ${audit})`), line);
    for (const name of held) {
      const stuck = (await h.get('virtualMachines', name))!;
      await h.client.virtualMachines.mergePatch(name, { metadata: { finalizers: (stuck.metadata.finalizers ?? []).filter((f) => f !== hold && f !== audit) } }, { namespace: h.namespace });
    }
    const scaled = await scaling;
    assert.deepEqual(scaled.outs!.machines.map((m) => m.name), [`${pool}-0`]);
    for (const name of held) assert.equal(await h.get('virtualMachines', name), undefined);
    assert.ok(h.progress.slice(progressFrom).includes('removed VMs are gone (2)'), h.progress.slice(progressFrom).join(' | '));
    await h.provider.delete(h.id(pool), scaled.outs!);
  });
});
