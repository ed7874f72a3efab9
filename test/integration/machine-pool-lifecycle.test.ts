/**
 * The machine pool's checks against the cluster, the guest-agent failure mode, partial creates, destroy with
 * and without volume retention, and ownership (objects without our labels are never touched) — against the
 * target (emulator, or a real cluster in acceptance mode).
 */
import assert from 'node:assert/strict';
import { ResourceInitError } from '../../provider/core/errors';
import { UNKNOWN } from '../../provider/core/unknowns';
import type { MachinePoolOutputs } from '../../provider/resources/machine-pool/outputs';
import { suiteTimeout } from '../support/target';
import { literal } from './client-support';
import { startPoolHarness, type PoolHarness } from './machine-pool-support';

describe('machine pool: checks, failures, destroy', function () {
  this.timeout(suiteTimeout(90_000));
  let h: PoolHarness;
  before(async () => {
    h = await startPoolHarness();
  });
  after(async () => {
    await h?.stop();
  });

  it('refuses an ISO image at check, naming the image, the reason and the fix', async () => {
    const iso = h.target.fixtures.isoImage;
    const r = await h.provider.check({}, h.args(h.name('checked'), { disks: [{ image: iso, size: '20Gi' }] }));
    assert.equal(r.failures?.length, 1);
    assert.equal(r.failures![0].property, 'disks[0].image');
    assert.match(r.failures![0].reason, new RegExp(`${literal(iso.split('/')[1])} is an ISO installer \\(its (source URL|display name|name) ends in \\.iso\\)`));
    if (h.target.emulator) assert.match(r.failures![0].reason, /ubuntu-24.04-live-server is an ISO installer \(its source URL ends in \.iso\)/);
    assert.match(r.failures![0].reason, /cloud image/);
  });

  it('checks namespace, image, network, key pairs and zones against the cluster, all at once', async () => {
    const ns = h.namespace;
    const zones = h.target.fixtures.zones;
    const r = await h.provider.check({}, h.args(h.name('checked'), {
      namespace: h.name('nowhere'),
      disks: [{ image: `${ns}/${h.name('no-such-image')}`, size: '20Gi' }],
      networks: [{ network: `${ns}/${h.name('no-such-net')}` }],
      sshKeys: [`${ns}/${h.name('no-such-key')}`],
      zones: [zones[0], 'mars-1a'],
    }));
    const props = (r.failures ?? []).map((f) => f.property).sort();
    assert.deepEqual(props, ['disks[0].image', 'namespace', 'networks[0].network', 'sshKeys[0]', 'zones[1]']);
    const zone = r.failures!.find((f) => f.property === 'zones[1]')!;
    const nodes = await h.client.nodes.list();
    const onHosts = [...new Set(nodes.items.map((n) => n.metadata.labels?.['topology.kubernetes.io/zone']).filter(Boolean))].sort();
    assert.ok(zone.reason.includes(`zones on hosts: ${onHosts.join(', ')})`), zone.reason);
    if (h.target.emulator) assert.match(zone.reason, /zones on hosts: us-east-1a, us-east-1b, us-east-1c/);
  });

  it('skips what is unknown during preview, and still checks the rest', async () => {
    const missingNet = `${h.namespace}/${h.name('no-such-net')}`;
    const r = await h.provider.check({}, h.args(h.name('checked'), { disks: [{ image: UNKNOWN, size: '20Gi' }], networks: [{ network: missingNet }], count: UNKNOWN }));
    assert.deepEqual(r.failures?.map((f) => f.property), ['networks[0].network']);
    const ok = await h.provider.check({}, h.args(h.name('checked'), { kubeconfig: UNKNOWN, disks: [{ image: UNKNOWN, size: '20Gi' }] }));
    assert.equal(ok.failures, undefined);
  });

  it('shows no IP, and times out naming qemu-guest-agent, when guest-agent handling is off and the user data lacks it; the VMs are recorded', async () => {
    const pool = h.name('noagent');
    const boot = h.target.timeouts.boot;
    const args = h.args(pool, { count: 2, guestAgent: 'none', userData: '#cloud-config\npackages: [htop]\n', timeouts: { create: boot } });
    const checked = await h.provider.check({}, args);
    assert.equal(checked.failures, undefined);
    let caught: unknown;
    try {
      await h.provider.create(checked.inputs!);
    } catch (err) {
      caught = err;
    }
    assert.ok(caught instanceof ResourceInitError, caught ? String(caught) : 'the create succeeded: the cloud image fixture must not run qemu-guest-agent unless told to');
    assert.equal(caught.id, h.id(pool));
    assert.match(caught.message, new RegExp(`not ready within ${literal(boot)}`));
    assert.match(caught.message, /Running, waiting for an IPv4 address from qemu-guest-agent/);
    assert.match(caught.message, /guestAgent is "none".*qemu-guest-agent/s);
    assert.match(caught.message, /timeouts\.create/);
    assert.ok(!caught.message.includes('htop'), 'user data is never quoted');
    const props = caught.properties as MachinePoolOutputs;
    assert.deepEqual(props.machines.map((m) => [m.name, m.phase, m.ready, m.ip]), [[`${pool}-0`, 'Running', false, undefined], [`${pool}-1`, 'Running', false, undefined]]);
    assert.equal(JSON.stringify(props).includes('#cloud-config'), false);
    // The next run sees the recorded pool as unhealthy and converges once the agent is installed.
    const fixed = await h.provider.check({}, { ...checked.inputs!, guestAgent: 'install' });
    assert.equal((await h.provider.diff(h.id(pool), props, fixed.inputs!)).changes, true);
    const healed = await h.provider.update(h.id(pool), props, fixed.inputs!);
    assert.equal(healed.outs!.readyCount, 2);
    assert.deepEqual(healed.outs!.machines.map((m) => m.name), [`${pool}-2`, `${pool}-3`], 'the user-data change rolled both VMs');
    await h.provider.delete(h.id(pool), healed.outs!);
  });

  it('destroys a pool with its volumes (the default), waiting until the VMs are gone', async () => {
    const pool = h.name('gone');
    const checked = await h.provider.check({}, h.args(pool, { count: 2 }));
    const { outs } = await h.provider.create(checked.inputs!);
    assert.equal((await h.list('persistentVolumeClaims', pool)).length, 2);
    await h.provider.delete(h.id(pool), outs!);
    assert.equal((await h.list('virtualMachines', pool)).length, 0, 'delete waits until the VMs are gone');
    assert.equal((await h.list('secrets', pool)).length, 0);
    const pvcs = (await h.list('persistentVolumeClaims', pool)).filter((p) => !p.metadata.deletionTimestamp).length;
    assert.equal(pvcs, 0, 'volumes removed through harvesterhci.io/removedPersistentVolumeClaims');
  });

  it('destroys a pool but keeps its volumes with volumeDeletion "retain"', async () => {
    const pool = h.name('keep');
    const checked = await h.provider.check({}, h.args(pool, { count: 2, volumeDeletion: 'retain' }));
    const { outs } = await h.provider.create(checked.inputs!);
    await h.provider.delete(h.id(pool), outs!);
    assert.equal((await h.list('virtualMachines', pool)).length, 0);
    const pvcs = (await h.list('persistentVolumeClaims', pool)).map((p) => p.metadata.name as string);
    assert.equal(pvcs.length, 2);
    const named = new RegExp(`^${literal(pool)}-\\d-disk-0-[a-z0-9]{5}$`);
    assert.ok(pvcs.every((n) => named.test(n)), pvcs.join());
  });

  it('never touches a VM without its ownership labels: create refuses, delete leaves it', async () => {
    const pool = h.name('theirs');
    const foreign = `${pool}-0`;
    // Someone made a VM by hand whose name the pool would use.
    h.removeLater(foreign);
    await h.client.virtualMachines.create({
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachine',
      metadata: { name: foreign, namespace: h.namespace, labels: { app: 'someone-else' } },
      spec: { runStrategy: 'Halted', template: { spec: { domain: { cpu: { cores: 1 }, resources: { requests: { memory: '1Gi' } }, devices: {} } } } },
    });
    const checked = await h.provider.check({}, h.args(pool, { count: 1 }));
    await assert.rejects(h.provider.create(checked.inputs!), (err: Error & { code?: string }) => {
      assert.match(err.message, new RegExp(literal(foreign)));
      assert.match(err.message, /not managed by harvester-iac|NotOwned|Refusing/);
      return true;
    });
    await h.provider.delete(h.id(pool), { ...checked.inputs!, machines: [] });
    const still = await h.get('virtualMachines', foreign);
    assert.ok(still, 'the foreign VM is still there');
    assert.equal(still.metadata.labels?.app, 'someone-else');
    assert.equal(still.metadata.deletionTimestamp, undefined, 'and not being deleted');
  });
});
