/**
 * The machine pool's checks against the cluster, the guest-agent failure mode, partial creates, destroy with
 * and without volume retention, and ownership (objects without our labels are never touched) — against the
 * target (emulator, or a real cluster in acceptance mode).
 */
import assert from 'node:assert/strict';
import { ManualClock } from '../../emulator/clock';
import { waitFor } from '../../provider/await';
import { parseDuration } from '../../provider/await/duration';
import { ResourceInitError } from '../../provider/core/errors';
import { UNKNOWN } from '../../provider/core/unknowns';
import { createMachinePoolProvider } from '../../provider/resources/machine-pool/handlers';
import type { MachinePoolOutputs } from '../../provider/resources/machine-pool/outputs';
import { validateInputs } from '../../provider/resources/machine-pool/validate';
import { requireEmulator, suiteTimeout } from '../support/target';
import { fastConnect } from '../support/fast-connect';
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

  it('does not import a pool that does not exist (read answers "gone"), and keeps a recorded pool whose VMs were all lost', async () => {
    const missing = h.name('never-made');
    const imported = await h.provider.read(h.id(missing), { kubeconfig: h.target.kubeconfig });
    assert.equal(imported.id, undefined, `read reported ${imported.props?.count} VMs`);
    // A recorded pool with every VM deleted out of band stays, so the next update recreates them.
    const recorded = { ...h.args(missing, { count: 1 }), machines: [{ name: `${missing}-0`, index: 0, phase: 'Running', ready: true }], readyCount: 1, drift: [] };
    const refreshed = await h.provider.read(h.id(missing), recorded);
    assert.equal(refreshed.id, h.id(missing));
    assert.deepEqual(refreshed.props!.machines.map((m) => [m.name, m.phase]), [[`${missing}-0`, 'Missing']]);
  });

  it('create refuses at apply what check would (inputs never checked), raising the error itself when nothing was made', async () => {
    const pool = h.name('unchecked');
    const missingImage = validateInputs(h.args(pool, { disks: [{ image: `${h.namespace}/no-such-image`, size: '10Gi' }, { image: `${h.namespace}/no-such-image-2`, size: '10Gi' }] })).inputs!;
    const err = await h.provider.create(missingImage as never).catch((e) => e);
    assert.ok(!(err instanceof ResourceInitError), 'nothing exists, so there is no partial state to record');
    assert.equal(err.code, 'InvalidInputs');
    assert.match(err.message, new RegExp(`^Machine pool ${literal(h.id(pool))} cannot be created:\n  - disks\\[0\\]\\.image: [^\n]*no-such-image[^\n]*\n  - disks\\[1\\]\\.image: [^\n]*no-such-image-2[^\n]*\nFix the inputs above and run again\\.$`));
    assert.deepEqual(await h.list('virtualMachines', pool), []);
    await assert.rejects(h.provider.create({ ...h.args(pool), count: -1, cpu: 0 }), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'InvalidInputs');
      assert.match(e.message, /^The HarvesterMachinePool inputs are invalid:\n  - [^\n]*\n  - [^\n]*\nFix the inputs above and run again\.$/);
      assert.match(e.message, /\n  - count: /);
      assert.match(e.message, /\n  - cpu: /);
      return true;
    });
  });

  it('a malformed reference is reported once, by its format, not again as missing from the cluster', async () => {
    const r = await h.provider.check({}, h.args(h.name('malformed'), { sshKeys: ['Bad Key'], networks: [{ network: 'Bad Net' }] }));
    assert.deepEqual(r.failures, [
      { property: 'networks[0].network', reason: 'must name a NetworkAttachmentDefinition as "name" or "namespace/name" (lower-case DNS names)' },
      { property: 'sshKeys[0]', reason: 'must name a KeyPair as "name" or "namespace/name" (lower-case DNS names)' },
    ]);
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

  it('shows no IP, and times out naming qemu-guest-agent, when guest-agent handling is off and the user data lacks it; the VM is recorded', async () => {
    // The provider's deadline runs on a manual clock, moved past the timeout only once the provider has seen the VM
    // running without an address: the outcome does not depend on how fast a loaded machine boots the VM.
    const clock = new ManualClock(Date.now());
    const progress: string[] = [];
    let seenRunning: () => void = () => undefined;
    const runningWithoutIp = new Promise<void>((resolve) => (seenRunning = resolve));
    const provider = createMachinePoolProvider({
      connect: fastConnect(4),
      clock,
      onProgress: (line) => {
        progress.push(line);
        if (/^0\/1 VMs ready; .*-0: Running, waiting for an IPv4 address from qemu-guest-agent$/.test(line)) seenRunning();
      },
    });
    const pool = h.name('noagent');
    const boot = h.target.timeouts.boot;
    const args = h.args(pool, { count: 1, guestAgent: 'none', userData: '#cloud-config\npackages: [htop]\n', timeouts: { create: boot } });
    const checked = await provider.check({}, args);
    assert.equal(checked.failures, undefined);
    const creating = provider.create(checked.inputs!).then(
      () => undefined,
      (err: unknown) => err,
    );
    await Promise.race([runningWithoutIp, creating]);
    clock.advance(parseDuration(boot)!);
    const caught = await creating;
    assert.ok(caught instanceof ResourceInitError, caught ? String(caught) : `the create succeeded (progress: ${progress.join(' | ')}): the cloud image fixture must not run qemu-guest-agent unless told to`);
    assert.equal(caught.id, h.id(pool));
    assert.match(caught.message, new RegExp(`not ready within ${literal(boot)}`));
    assert.match(caught.message, /Running, waiting for an IPv4 address from qemu-guest-agent/);
    assert.match(caught.message, /guestAgent is "none".*qemu-guest-agent/s);
    assert.match(caught.message, /timeouts\.create/);
    assert.ok(!caught.message.includes('htop'), 'user data is never quoted');
    const props = caught.properties as MachinePoolOutputs;
    assert.deepEqual(props.machines.map((m) => [m.name, m.phase, m.ready, m.ip]), [[`${pool}-0`, 'Running', false, undefined]]);
    assert.equal(JSON.stringify(props).includes('#cloud-config'), false);
    // The next run sees the recorded pool as unhealthy and converges once the agent is installed.
    const fixed = await h.provider.check({}, { ...checked.inputs!, guestAgent: 'install' });
    assert.equal((await h.provider.diff(h.id(pool), props, fixed.inputs!)).changes, true);
    const healed = await h.provider.update(h.id(pool), props, fixed.inputs!);
    assert.equal(healed.outs!.readyCount, 1);
    assert.deepEqual(healed.outs!.machines.map((m) => m.name), [`${pool}-1`], 'the user-data change rolled the VM');
    await h.provider.delete(h.id(pool), healed.outs!);
  });

  it('with capacityCheck "off", times out naming only the VM that cannot be scheduled (its zone\'s hosts are cordoned) with the scheduler\'s reason; the ready VM is recorded ready (emulator)', async function () {
    requireEmulator(this, h.target);
    const clock = new ManualClock(Date.now());
    let seenPending: () => void = () => undefined;
    const onePending = new Promise<void>((resolve) => (seenPending = resolve));
    const pool = h.name('cordoned');
    const provider = createMachinePoolProvider({
      connect: fastConnect(4),
      clock,
      onProgress: (line) => {
        if (line === `1/2 VMs ready; ${pool}-1: waiting to be scheduled on a host` || line.startsWith(`1/2 VMs ready; ${pool}-1: waiting to be scheduled on a host (`)) seenPending();
      },
    });
    const [zoneA, zoneB] = h.target.fixtures.zones;
    const inZoneB = (await h.client.nodes.list()).items.filter((n) => n.metadata.labels?.['topology.kubernetes.io/zone'] === zoneB).map((n) => n.metadata.name!);
    assert.ok(inZoneB.length > 0, `a host in ${zoneB}`);
    const cordon = (unschedulable: boolean) => Promise.all(inZoneB.map((n) => h.client.nodes.mergePatch(n, { spec: { unschedulable: unschedulable || null } })));
    await cordon(true);
    try {
      // "off" is the way to wait for room the check cannot see coming (a host joining): the wait runs its course.
      const checked = await provider.check({}, h.args(pool, { count: 2, zones: [zoneA, zoneB], timeouts: { create: '10m' }, capacityCheck: 'off' }));
      assert.deepEqual(checked.failures, undefined);
      const creating = provider.create(checked.inputs!).then(() => undefined, (err: unknown) => err);
      await Promise.race([onePending, creating]);
      clock.advance(parseDuration('10m')!);
      const caught = await creating;
      assert.ok(caught instanceof ResourceInitError, String(caught));
      const lines = caught.message.split('\n').filter((l) => l.startsWith('  - '));
      assert.equal(lines.length, 1, caught.message);
      assert.match(lines[0], new RegExp(`^  - VirtualMachine ${literal(h.id(`${pool}-1`))}: waiting to be scheduled on a host \\(0/\\d+ nodes are available: .+\\) \\(phase (Pending|Scheduling)\\)$`));
      assert.match(caught.message, /Check the VMs' events in Harvester \(scheduling, image, storage\)/);
      const props = caught.properties as MachinePoolOutputs;
      assert.deepEqual(props.machines.map((m) => [m.name, m.zone, m.ready]), [[`${pool}-0`, zoneA, true], [`${pool}-1`, zoneB, false]]);
      await h.provider.delete(h.id(pool), props);
    } finally {
      await cordon(false);
    }
  });

  it('refuses a zone whose hosts are all cordoned at check, and a create run anyway fails at once with the scheduler\'s reason and the numbers, recording both VMs (emulator)', async function () {
    requireEmulator(this, h.target);
    // The clock never moves: only the scheduler's verdict can end this wait before its 10 minutes.
    const provider = createMachinePoolProvider({ connect: fastConnect(4), clock: new ManualClock(Date.now()) });
    const pool = h.name('cordoned-fast');
    const [zoneA, zoneB] = h.target.fixtures.zones;
    const inZoneB = (await h.client.nodes.list()).items.filter((n) => n.metadata.labels?.['topology.kubernetes.io/zone'] === zoneB).map((n) => n.metadata.name!);
    const cordon = (unschedulable: boolean) => Promise.all(inZoneB.map((n) => h.client.nodes.mergePatch(n, { spec: { unschedulable: unschedulable || null } })));
    await cordon(true);
    try {
      const program = h.args(pool, { count: 2, zones: [zoneA, zoneB], timeouts: { create: '10m' } });
      const checked = await provider.check({}, program);
      assert.deepEqual(checked.failures?.map((f) => f.property), ['zones[1]']);
      assert.match(checked.failures![0].reason, new RegExp(`^zone "${literal(zoneB)}" can take 0 of 1 new VMs \\(2 vCPU / 4 GiB each = \\d+m CPU \\+ [\\d.]+ GiB requested at overcommit cpu \\d+% / memory \\d+%\\); zone ${literal(zoneB)}: no eligible host \\(${literal(inZoneB[0])} cordoned`));
      // As if the preview had been skipped: the handlers are called directly.
      const caught = await provider.create(validateInputs(program).inputs as never).then(() => undefined, (err: unknown) => err);
      assert.ok(caught instanceof ResourceInitError, String(caught));
      assert.match(caught.message, new RegExp(`^Machine pool ${literal(h.id(pool))}: 1 VM cannot be placed on any host \\(the scheduler's reason below\\), so waiting for it would only run out the timeout:\n  - VirtualMachine ${literal(h.id(`${pool}-1`))} \\(zone ${literal(zoneB)}\\): 0/\\d+ nodes are available: .*node\\(s\\) were unschedulable`));
      assert.match(caught.message, new RegExp(`\nCapacity now:\n  - zone "${literal(zoneB)}" can take 0 of 1 new VMs `));
      const props = caught.properties as MachinePoolOutputs;
      // At once: the other VM, which fits, need not even have booted yet; both are recorded, so destroy removes them.
      assert.deepEqual(props.machines.map((m) => [m.name, m.zone]), [[`${pool}-0`, zoneA], [`${pool}-1`, zoneB]]);
      assert.equal(props.machines[1].ready, false);
      await h.provider.delete(h.id(pool), props);
      assert.deepEqual(await h.list('virtualMachines', pool), []);
    } finally {
      await cordon(false);
    }
  });

  it('records an update that failed before changing anything so that the next run retries it (emulator: fault injection)', async function () {
    requireEmulator(this, h.target);
    const emu = h.target.emulator.emulator;
    const pool = h.name('outage');
    const created = await h.provider.create((await h.provider.check({}, h.args(pool, { count: 1 }))).inputs!);
    const next = (await h.provider.check({}, h.args(pool, { count: 1, cpu: 4 }))).inputs!;
    // The API server refuses every VM create during the update (an outage outlasting the retries).
    emu.faults.add({ name: 'outage', match: { verb: 'create', resource: 'virtualmachines' }, action: { type: 'error', code: 503 } });
    const err = await h.provider.update(h.id(pool), created.outs!, next).catch((e) => e);
    emu.faults.clear();
    assert.ok(err instanceof ResourceInitError, String(err));
    assert.match(err.message, /503|Unavailable|unable/i);
    const recorded = err.properties as MachinePoolOutputs;
    assert.deepEqual(recorded.machines.map((m) => [m.name, m.ready]), [[`${pool}-0`, true]], 'the old VM is untouched and ready');
    const d = await h.provider.diff(h.id(pool), recorded, next);
    assert.equal(d.changes, true, 'the unfinished update is planned again, not forgotten');
    const done = await h.provider.update(h.id(pool), recorded, next);
    assert.deepEqual(done.outs!.drift, []);
    assert.equal(done.outs!.readyCount, 1);
    assert.equal((await h.provider.diff(h.id(pool), done.outs!, next)).changes, false);
    const cores = (await h.list('virtualMachines', pool)).map((v) => (v.spec as any).template.spec.domain.cpu.cores);
    assert.deepEqual(cores, [4]);
    await h.provider.delete(h.id(pool), done.outs!);
  });

  it('refuses a VM network whose cluster network no host has, then finds no drift once hosts join it (emulator: own network)', async function () {
    requireEmulator(this, h.target);
    // A VLAN on cluster network "data" (it must exist: Harvester's webhook refuses a network on a missing one),
    // no host attached yet; a VlanConfig attaching every host comes later (Harvester then labels the hosts
    // network.harvesterhci.io/data=true).
    const net = h.name('data-net');
    await h.client.clusterNetworks.create({ apiVersion: 'network.harvesterhci.io/v1beta1', kind: 'ClusterNetwork', metadata: { name: 'data' } } as never);
    await h.client.networks.create({
      apiVersion: 'k8s.cni.cncf.io/v1',
      kind: 'NetworkAttachmentDefinition',
      metadata: {
        name: net,
        namespace: h.namespace,
        labels: { 'network.harvesterhci.io/clusternetwork': 'data', 'network.harvesterhci.io/vlan-id': '200' },
        annotations: { 'network.harvesterhci.io/route': JSON.stringify({ mode: 'auto', cidr: '172.16.200.0/24', gateway: '172.16.200.1', connectivity: 'true' }) },
      },
      spec: { config: JSON.stringify({ cniVersion: '0.3.1', name: net, type: 'bridge', bridge: 'data-br', vlan: 200, ipam: {} }) },
    });
    const pool = h.name('on-data');
    const onData = (): Record<string, unknown> => h.args(pool, { count: 1, zones: [h.target.fixtures.zones[0]], networks: [{ network: `${h.namespace}/${net}` }] });
    // GIVEN no host is attached to "data" yet THEN check refuses the network before anything is written
    const refused = await h.provider.check({}, onData());
    assert.deepEqual(refused.failures?.map((f) => f.property), ['networks[0].network']);
    assert.match(refused.failures![0].reason, /runs on cluster network "data", but no Harvester host carries the label network\.harvesterhci\.io\/data=true/);
    assert.equal((await h.list('virtualMachines', pool)).length, 0);
    await h.client.vlanConfigs.create({ apiVersion: 'network.harvesterhci.io/v1beta1', kind: 'VlanConfig', metadata: { name: 'data-all' }, spec: { clusterNetwork: 'data', uplink: { nics: ['eth1'] } } } as never);
    await waitFor({
      resource: h.client.nodes,
      what: 'every host attached to cluster network data',
      timeoutMs: 10_000,
      check: (nodes) => ({ done: nodes.length > 0 && nodes.every((n) => n.metadata.labels?.['network.harvesterhci.io/data'] === 'true'), description: 'hosts attached to data' }),
    });
    const inputs = (await h.provider.check({}, onData())).inputs!;
    const { outs } = await h.provider.create(inputs);
    const vm = await h.get('virtualMachines', `${pool}-0`);
    assert.match(JSON.stringify(vm), /network\.harvesterhci\.io\/data/, 'Harvester added its cluster-network term');
    const { props } = await h.provider.read(h.id(pool), outs!);
    assert.deepEqual(props!.drift, []);
    assert.equal((await h.provider.diff(h.id(pool), props!, inputs)).changes, false);
    const again = await h.provider.update(h.id(pool), props!, inputs);
    assert.equal(again.outs!.machines[0].name, `${pool}-0`, 'no roll');
    await h.provider.delete(h.id(pool), again.outs!);
    await h.client.networks.delete(net, { namespace: h.namespace });
    await h.client.vlanConfigs.delete('data-all');
    await h.client.clusterNetworks.delete('data');
  });

  it('destroys a pool with its volumes (the default), waiting until the VMs are gone', async () => {
    const pool = h.name('gone');
    const checked = await h.provider.check({}, h.args(pool, { count: 2 }));
    const { outs } = await h.provider.create(checked.inputs!);
    assert.equal((await h.list('persistentVolumeClaims', pool)).length, 2);
    // State written before volumeDeletion and timeouts existed lacks both: the defaults (delete, 10m) apply.
    const { volumeDeletion: _policy, timeouts: _timeouts, ...recorded } = outs!;
    await h.provider.delete(h.id(pool), recorded);
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
    const refused = await h.provider.check({}, h.args(pool, { count: 1 }));
    assert.deepEqual(refused.failures?.map((f) => f.property), ['name'], 'preview already names the collision');
    const reason = refused.failures![0].reason;
    assert.match(reason, new RegExp(`VirtualMachine ${literal(`${h.namespace}/${foreign}`)} already exists and is not managed by machine pool`));
    assert.match(reason, /labels app=someone-else/, 'who holds it');
    assert.match(reason, new RegExp(`delete it .*kubectl delete virtualmachine -n ${literal(h.namespace)} ${literal(foreign)}`));
    assert.match(reason, /import it into the pool .*kubectl label virtualmachine/);
    // Were the preview skipped, create still refuses to touch it.
    const checked = validateInputs(h.args(pool, { count: 1 }));
    await assert.rejects(h.provider.create(checked.inputs!), (err: Error & { code?: string }) => {
      assert.match(err.message, new RegExp(literal(foreign)));
      assert.match(err.message, /not managed by (harvester-iac|this pool|machine pool)|NotOwned|Refusing/);
      return true;
    });
    await h.provider.delete(h.id(pool), { ...checked.inputs!, machines: [] });
    const still = await h.get('virtualMachines', foreign);
    assert.ok(still, 'the foreign VM is still there');
    assert.equal(still.metadata.labels?.app, 'someone-else');
    assert.equal(still.metadata.deletionTimestamp, undefined, 'and not being deleted');
  });
});
