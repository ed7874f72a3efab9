/**
 * Two creates of one pool at once (two hosts running the same resource's create: a CI double trigger). Each observes
 * an empty pool, so both create VM `<pool>-0`; the later one meets ours, made a moment ago with other random volume
 * claim names (desired.ts). That VM is taken as ours when it is what we wanted but for those names (apply.ts
 * ourConcurrentMachine), so both creates end with one VM; a VM differing in anything else is still refused, naming
 * what differs. The emulator delays one VM create so the other lands first every time.
 */
import assert from 'node:assert/strict';
import { createMachinePoolProvider } from '../../provider/resources/machine-pool/handlers';
import { fastConnect } from '../support/fast-connect';
import { startPoolHarness, type PoolHarness } from './machine-pool-support';

describe('machine pool: two creates of one pool at once', function () {
  this.timeout(60_000);
  let h: PoolHarness;
  const other = createMachinePoolProvider({ connect: fastConnect(4) });
  before(async function () {
    h = await startPoolHarness();
    if (!h.target.emulator) this.skip(); // the interleaving needs the emulator's injected latency
  });
  after(async () => h?.stop());

  /** The first VM create of the namespace waits, so the other host's create of the same VM lands first. */
  const delayFirstVmCreate = () =>
    h.target.emulator!.emulator.faults.add({ name: 'late-vm', match: { verb: 'create', resource: 'virtualmachines', namespace: h.namespace }, action: { type: 'latency', ms: 600 }, times: 1 });

  it('both succeed with one VM, one Secret and one volume, and a refresh of either finds no drift', async () => {
    const pool = h.name('twin');
    const inputs = (await h.provider.check({}, h.args(pool, { count: 1 }))).inputs!;
    delayFirstVmCreate();
    const results = await Promise.allSettled([h.provider.create(inputs), other.create(inputs)]);
    const reasons = results.map((r) => (r.status === 'rejected' ? String(r.reason) : 'ok'));
    assert.deepEqual(reasons, ['ok', 'ok']);
    assert.deepEqual((await h.list('virtualMachines', pool)).map((o) => o.metadata.name), [`${pool}-0`]);
    assert.equal((await h.list('secrets', pool)).length, 1);
    assert.equal((await h.list('persistentVolumeClaims', pool)).length, 1);
    for (const r of results) {
      const outs = (r as PromiseFulfilledResult<{ outs?: Record<string, unknown> }>).value.outs!;
      assert.deepEqual((await h.provider.read(h.id(pool), outs as never)).props!.drift, []);
    }
  });

  it('a VM made by the other create from other inputs is still refused, naming what differs', async () => {
    const pool = h.name('rival');
    const mine = (await h.provider.check({}, h.args(pool, { count: 1 }))).inputs!;
    const theirs = (await other.check({}, h.args(pool, { count: 1, cpu: 4 }))).inputs!;
    delayFirstVmCreate();
    const [first, second] = await Promise.allSettled([h.provider.create(mine), other.create(theirs)]);
    const outcomes = [first, second].map((r) => r.status);
    assert.deepEqual(outcomes.sort(), ['fulfilled', 'rejected'], 'one create made the VM, the other refused it');
    const refused = ([first, second].find((r) => r.status === 'rejected') as PromiseRejectedResult).reason as Error;
    assert.match(refused.message, /already exists, owned by this resource, but differs at spec\.template\.spec\.domain\.cpu/);
    assert.equal((await h.list('virtualMachines', pool)).length, 1);
  });
});
