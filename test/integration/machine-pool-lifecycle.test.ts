/**
 * The machine pool's checks against the cluster, the guest-agent failure mode, partial creates, destroy with
 * and without volume retention, and ownership (objects without our labels are never touched).
 */
import assert from 'node:assert/strict';
import { KINDS } from '../../emulator/kinds';
import { ResourceInitError } from '../../provider/core/errors';
import { UNKNOWN } from '../../provider/core/unknowns';
import type { MachinePoolOutputs } from '../../provider/resources/machine-pool/outputs';
import { startPoolHarness, type PoolHarness } from './machine-pool-support';

describe('machine pool on the emulator: checks, failures, destroy', function () {
  this.timeout(90_000);
  let h: PoolHarness;
  before(async () => {
    h = await startPoolHarness();
  });
  after(async () => {
    await h?.stop();
  });

  it('refuses an ISO image at check, naming the image, the reason and the fix', async () => {
    const r = await h.provider.check({}, h.args({ disks: [{ image: 'default/ubuntu-24.04-live-server', size: '20Gi' }] }));
    assert.equal(r.failures?.length, 1);
    assert.equal(r.failures![0].property, 'disks[0].image');
    assert.match(r.failures![0].reason, /ubuntu-24.04-live-server is an ISO installer \(its source URL ends in \.iso\)/);
    assert.match(r.failures![0].reason, /cloud image/);
  });

  it('checks namespace, image, network, key pairs and zones against the cluster, all at once', async () => {
    const r = await h.provider.check({}, h.args({
      namespace: 'nowhere',
      disks: [{ image: 'default/no-such-image', size: '20Gi' }],
      networks: [{ network: 'default/no-such-net' }],
      sshKeys: ['default/no-such-key'],
      zones: ['us-east-1a', 'mars-1a'],
    }));
    const props = (r.failures ?? []).map((f) => f.property).sort();
    assert.deepEqual(props, ['disks[0].image', 'namespace', 'networks[0].network', 'sshKeys[0]', 'zones[1]']);
    const zone = r.failures!.find((f) => f.property === 'zones[1]')!;
    assert.match(zone.reason, /zones on hosts: us-east-1a, us-east-1b, us-east-1c/);
  });

  it('skips what is unknown during preview, and still checks the rest', async () => {
    const r = await h.provider.check({}, h.args({ disks: [{ image: UNKNOWN, size: '20Gi' }], networks: [{ network: 'default/no-such-net' }], count: UNKNOWN }));
    assert.deepEqual(r.failures?.map((f) => f.property), ['networks[0].network']);
    const ok = await h.provider.check({}, h.args({ kubeconfig: UNKNOWN, disks: [{ image: UNKNOWN, size: '20Gi' }] }));
    assert.equal(ok.failures, undefined);
  });

  it('shows no IP, and times out naming qemu-guest-agent, when guest-agent handling is off and the user data lacks it; the VMs are recorded', async () => {
    const args = h.args({ name: 'noagent', count: 2, guestAgent: 'none', userData: '#cloud-config\npackages: [htop]\n', timeouts: { create: '3s' } });
    const checked = await h.provider.check({}, args);
    assert.equal(checked.failures, undefined);
    let caught: unknown;
    try {
      await h.provider.create(checked.inputs!);
    } catch (err) {
      caught = err;
    }
    assert.ok(caught instanceof ResourceInitError, String(caught));
    assert.equal(caught.id, 'default/noagent');
    assert.match(caught.message, /not ready within 3s/);
    assert.match(caught.message, /Running, waiting for an IPv4 address from qemu-guest-agent/);
    assert.match(caught.message, /guestAgent is "none".*qemu-guest-agent/s);
    assert.match(caught.message, /timeouts\.create/);
    assert.ok(!caught.message.includes('htop'), 'user data is never quoted');
    const props = caught.properties as MachinePoolOutputs;
    assert.deepEqual(props.machines.map((m) => [m.name, m.phase, m.ready, m.ip]), [['noagent-0', 'Running', false, undefined], ['noagent-1', 'Running', false, undefined]]);
    assert.equal(JSON.stringify(props).includes('#cloud-config'), false);
    // The next run sees the recorded pool as unhealthy and converges once the agent is installed.
    const fixed = await h.provider.check({}, { ...checked.inputs!, guestAgent: 'install' });
    assert.equal((await h.provider.diff('default/noagent', props, fixed.inputs!)).changes, true);
    const healed = await h.provider.update('default/noagent', props, fixed.inputs!);
    assert.equal(healed.outs!.readyCount, 2);
    assert.deepEqual(healed.outs!.machines.map((m) => m.name), ['noagent-2', 'noagent-3'], 'the user-data change rolled both VMs');
    await h.provider.delete('default/noagent', healed.outs!);
  });

  it('destroys a pool with its volumes (the default), waiting until the VMs are gone', async () => {
    const checked = await h.provider.check({}, h.args({ name: 'gone', count: 2 }));
    const { outs } = await h.provider.create(checked.inputs!);
    assert.equal(h.list('persistentVolumeClaim', 'gone').length, 2);
    await h.provider.delete('default/gone', outs!);
    assert.equal(h.list('virtualMachine', 'gone').length, 0, 'delete waits until the VMs are gone');
    assert.equal(h.list('secret', 'gone').length, 0);
    const pvcs = () => h.list('persistentVolumeClaim', 'gone').filter((p) => !p.metadata.deletionTimestamp).length;
    assert.equal(pvcs(), 0, 'volumes removed through harvesterhci.io/removedPersistentVolumeClaims');
  });

  it('destroys a pool but keeps its volumes with volumeDeletion "retain"', async () => {
    const checked = await h.provider.check({}, h.args({ name: 'keep', count: 2, volumeDeletion: 'retain' }));
    const { outs } = await h.provider.create(checked.inputs!);
    await h.provider.delete('default/keep', outs!);
    assert.equal(h.list('virtualMachine', 'keep').length, 0);
    const pvcs = h.list('persistentVolumeClaim', 'keep').map((p) => p.metadata.name as string);
    assert.equal(pvcs.length, 2);
    assert.ok(pvcs.every((n) => /^keep-\d-disk-0-[a-z0-9]{5}$/.test(n)), pvcs.join());
  });

  it('never touches a VM without its ownership labels: create refuses, delete leaves it', async () => {
    h.emulator.store.create(KINDS.virtualMachine, {
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachine',
      metadata: { name: 'theirs-0', namespace: 'default', labels: { app: 'someone-else' } },
      spec: { runStrategy: 'Halted', template: { spec: { domain: { devices: {} } } } },
    });
    const checked = await h.provider.check({}, h.args({ name: 'theirs', count: 1 }));
    await assert.rejects(h.provider.create(checked.inputs!), (err: Error & { code?: string }) => {
      assert.match(err.message, /theirs-0/);
      assert.match(err.message, /not managed by harvester-iac|NotOwned|Refusing/);
      return true;
    });
    await h.provider.delete('default/theirs', { ...checked.inputs!, machines: [] });
    assert.ok(h.get('virtualMachine', 'theirs-0'), 'the foreign VM is still there');
  });
});
