/**
 * The machine pool's handlers against the target (emulator, or a real cluster in acceptance mode): create over
 * zones, read without drift (with one LIST per kind: emulator journal), scale, roll an image change with
 * surge 1, heal a VM deleted out of band, and see an out-of-band CPU edit as drift.
 * The scenarios share one pool and run in order (each starts from the state the previous one left).
 */
import assert from 'node:assert/strict';
import type { MachinePoolOutputs } from '../../provider/resources/machine-pool/outputs';
import { eventually } from '../support/emulator-harness';
import { requireEmulator, suiteTimeout } from '../support/target';
import { startPoolHarness, type PoolHarness } from './machine-pool-support';
import { recordRoll } from './roll-recorder';

const get = (o: unknown, ...path: (string | number)[]): any => path.reduce((c: any, k) => (c == null ? c : c[k]), o);

describe('machine pool: create, scale, roll, heal, drift', function () {
  this.timeout(suiteTimeout(90_000));
  let h: PoolHarness;
  let outs: MachinePoolOutputs;
  let inputs: Record<string, unknown>;
  /** The pool, its provider id and namespace. */
  let pool: string;
  let id: string;
  let ns: string;
  /** Fixture zones; `zone(i)` is where the i-th VM of an even spread goes. */
  let zones: string[];
  const zone = (i: number) => zones[i % zones.length];
  const vm = (i: number) => `${pool}-${i}`;

  before(async () => {
    h = await startPoolHarness();
    pool = h.name('pool-a');
    id = h.id(pool);
    ns = h.namespace;
    zones = h.target.fixtures.zones;
  });
  after(async () => {
    await h?.stop();
  });

  async function up(next: Record<string, unknown>): Promise<MachinePoolOutputs> {
    const checked = await h.provider.check(inputs ?? {}, next);
    assert.equal(checked.failures, undefined, JSON.stringify(checked.failures));
    const d = await h.provider.diff(id, outs, checked.inputs!);
    assert.deepEqual(d.replaces, [], 'never replaces the pool');
    const r = await h.provider.update(id, outs, checked.inputs!);
    inputs = checked.inputs!;
    return r.outs!;
  }

  it('creates a 3-VM pool over the zones: driver labels, Secret owned by the VM, PVCs, every VM Running with an IPv4 address', async () => {
    const guestCluster = h.name('gc1');
    const checked = await h.provider.check({}, h.args(pool, { zones, guestCluster }));
    assert.equal(checked.failures, undefined, JSON.stringify(checked.failures));
    inputs = checked.inputs!;
    const created = await h.provider.create(inputs);
    outs = created.outs!;
    assert.equal(created.id, id);
    assert.deepEqual(outs.machines.map((m) => [m.name, m.zone, m.ready]), [
      [vm(0), zone(0), true], [vm(1), zone(1), true], [vm(2), zone(2), true],
    ]);
    assert.ok(new Set(outs.machines.map((m) => m.host)).size >= Math.min(3, zones.length), 'VMs in different zones run on different hosts');
    if (h.target.emulator) assert.equal(new Set(outs.machines.map((m) => m.host)).size, 3, 'one VM per host (one host per zone)');
    for (const m of outs.machines) assert.match(m.ip ?? '', /^\d+\.\d+\.\d+\.\d+$/);
    assert.equal(JSON.stringify(outs).includes('userData"'), false);

    const live = (await h.get('virtualMachines', vm(1)))!;
    assert.equal(live.metadata.labels!['harvesterhci.io/creator'], 'docker-machine-driver-harvester');
    assert.equal(live.metadata.labels!['guestcluster.harvesterhci.io/name'], guestCluster);
    assert.equal(get(live, 'spec', 'template', 'metadata', 'labels', 'harvesterhci.io/vmName'), vm(1));
    const secret = (await h.get('secrets', `${vm(1)}-cloudinit`))!;
    assert.deepEqual(secret.metadata.ownerReferences!.map((r) => [r.kind, r.name, r.uid]), [['VirtualMachine', vm(1), live.metadata.uid]]);
    const pvcs = await h.list('persistentVolumeClaims', pool);
    assert.equal(pvcs.length, 3);
    const [imageNs, imageName] = h.target.fixtures.cloudImage.split('/');
    const storageClass = (await h.client.images.get(imageName, imageNs))?.status?.storageClassName;
    assert.ok(storageClass, 'the image reports its storage class');
    if (h.target.emulator) assert.equal(storageClass, 'longhorn-ubuntu-22.04-server-cloudimg');
    assert.ok(pvcs.every((p) => get(p, 'spec', 'storageClassName') === storageClass), 'volumes use the image\'s storage class');
  });

  it('creating again (a retried create) converges on the same VMs: no duplicates', async () => {
    const again = await h.provider.create(inputs);
    assert.deepEqual(again.outs!.machines.map((m) => m.name), [vm(0), vm(1), vm(2)]);
    assert.equal((await h.list('virtualMachines', pool)).length, 3);
    assert.equal((await h.list('persistentVolumeClaims', pool)).length, 3);
  });

  it('reads and finds no drift in what Harvester added', async () => {
    const read = await h.provider.read(id, outs);
    assert.deepEqual(read.props!.drift, []);
    assert.equal((await h.provider.diff(id, read.props!, inputs)).changes, false);
    assert.equal(read.inputs!.cpu, 2);
    assert.equal('userData' in read.inputs!, false);
  });

  it('reads with one label-selected LIST each of VMs, VMIs, cloud-init Secrets and PVCs (emulator: request journal)', async function () {
    requireEmulator(this, h.target);
    const emu = h.target.emulator.emulator;
    const mark = emu.journal.mark();
    const read = await h.provider.read(id, outs);
    const requests = emu.journal.entries({ since: mark }).map((e) => `${e.verb} ${e.resource}`);
    // PVCs by the pool's labels, so disks of VMs deleted out of band show up (issue 8); Secrets to read the
    // secret inputs back (issue 24).
    assert.deepEqual(requests.sort(), ['list persistentvolumeclaims', 'list secrets', 'list virtualmachineinstances', 'list virtualmachines']);
    assert.deepEqual(read.props!.drift, []);
  });

  it('scales to 5 and to 2, keeping the zones even and removing the highest indexes (and their volumes) first', async () => {
    const mark = h.target.emulator?.emulator.journal.mark();
    outs = await up({ ...inputs, count: 5 });
    assert.deepEqual(outs.machines.map((m) => [m.name, m.zone]), [0, 1, 2, 3, 4].map((i) => [vm(i), zone(i)]));
    assert.equal(outs.readyCount, 5);
    assert.ok(outs.machines.every((m) => m.ip && m.host), 'the outputs carry what the readiness watch saw');
    if (mark !== undefined) {
      // The outputs come from the readiness wait's own VMIs: no VMI list once its watch is open.
      const entries = h.target.emulator!.emulator.journal.entries({ since: mark }).map((e) => `${e.verb} ${e.resource}`);
      const after = entries.slice(entries.lastIndexOf('watch virtualmachineinstances'));
      assert.ok(after.length > 0, `the readiness wait watched the VMIs: ${entries}`);
      assert.equal(after.includes('list virtualmachineinstances'), false, `requests after the watch opened: ${after}`);
    }
    outs = await up({ ...inputs, count: 2 });
    assert.deepEqual(outs.machines.map((m) => m.name), [vm(0), vm(1)]);
    assert.deepEqual((await h.list('virtualMachines', pool)).map((v) => v.metadata.name), [vm(0), vm(1)]);
    // Removed VMs' volumes and Secrets go with them (a real cluster may take a moment to finish deleting them).
    for (const kind of ['persistentVolumeClaims', 'secrets'] as const) {
      let left: string[] = [];
      const gone = await eventually(async () => (left = (await h.list(kind, pool)).map((p) => p.metadata.name as string)).length === 2, kind, h.target.timeouts.waitMs).catch(() => false);
      assert.ok(gone, `${kind} of removed VMs are deleted with them: ${left}`);
    }
  });

  it('rolls an image change with surge 1: each new VM ready before an old one goes, never more than count + 1', async () => {
    const image = h.target.fixtures.rollImage ?? h.target.fixtures.cloudImage;
    const recorder = await recordRoll(h, pool, 2);
    outs = await up({ ...inputs, count: 2, disks: [{ image, size: '30Gi' }] });
    const { violations, maxPresent } = await recorder.finish({ gone: [vm(0), vm(1)], ready: [vm(2), vm(3)] });
    assert.deepEqual(violations, []);
    assert.equal(maxPresent, 3, 'surge 1 over a pool of 2');
    assert.deepEqual(outs.machines.map((m) => [m.name, m.zone, m.ready]), [[vm(2), zone(0), true], [vm(3), zone(1), true]]);
    const templates = JSON.parse((await h.get('virtualMachines', vm(2)))!.metadata.annotations!['harvesterhci.io/volumeClaimTemplates']);
    assert.equal(templates[0].metadata.annotations['harvesterhci.io/imageId'], image);
    assert.equal(templates[0].spec.resources.requests.storage, '30Gi');
    assert.ok(h.progress.some((l) => l.includes(`roll ${vm(0)} (disks changed)`)), 'the reason names the property');
  });

  it('heals a VM deleted out of band: read shows it, the update recreates the same index in its zone', async () => {
    // Someone deletes a VM in the Harvester UI.
    await h.client.virtualMachines.delete(vm(3), { namespace: ns, propagationPolicy: 'Background' });
    const { props } = await h.provider.read(id, outs);
    assert.equal(props!.count, 1);
    assert.ok(props!.drift.some((l) => /1 VMs exist, 2 recorded/.test(l)), JSON.stringify(props!.drift));
    assert.equal((await h.provider.diff(id, props!, inputs)).changes, true);
    const healed = await h.provider.update(id, props!, inputs);
    outs = healed.outs!;
    assert.deepEqual(outs.machines.map((m) => [m.name, m.zone, m.ready]), [[vm(2), zone(0), true], [vm(3), zone(1), true]]);
  });

  it('sees a CPU edit made out of band as drift of cpu, and rolls it back', async () => {
    // Someone edits the VM's CPU in the Harvester UI.
    await h.client.virtualMachines.mergePatch(vm(2), { spec: { template: { spec: { domain: { cpu: { cores: 8 } } } } } }, { namespace: ns });
    const { props, inputs: rebuilt } = await h.provider.read(id, outs);
    assert.equal(rebuilt!.cpu, 8);
    assert.deepEqual(props!.drift, [`VirtualMachine ${ns}/${vm(2)}: cpu is 8, recorded 2`]);
    const d = await h.provider.diff(id, props!, inputs);
    assert.equal(d.changes, true);
    outs = (await h.provider.update(id, props!, inputs)).outs!;
    const cores = (await h.list('virtualMachines', pool)).map((v) => get(v, 'spec', 'template', 'spec', 'domain', 'cpu', 'cores'));
    assert.deepEqual(cores, [2, 2]);
    const again = await h.provider.read(id, outs);
    assert.deepEqual(again.props!.drift, []);
  });

  it('patches a label change in place, without replacing any VM', async () => {
    const before = (await h.list('virtualMachines', pool)).map((v) => v.metadata.uid);
    outs = await up({ ...inputs, labels: { team: 'blue' } });
    const after = await h.list('virtualMachines', pool);
    assert.deepEqual(after.map((v) => v.metadata.uid), before);
    assert.ok(after.every((v) => v.metadata.labels!.team === 'blue'));
  });

  it('imports a pool by id: inputs come from the live VMs, without drift', async () => {
    const { id: importedId, props, inputs: imported } = await h.provider.read(id, { kubeconfig: h.target.kubeconfig });
    assert.equal(importedId, id);
    assert.deepEqual(props!.drift, []);
    assert.equal(imported!.count, 2);
    assert.equal(imported!.cpu, 2);
    assert.deepEqual(imported!.zones, [...new Set([zone(0), zone(1)])]);
    assert.deepEqual(imported!.labels, { team: 'blue' });
    assert.equal(imported!.guestCluster, h.name('gc1'));
    assert.deepEqual((imported!.disks as { image: string }[]).map((d) => d.image), [h.target.fixtures.rollImage ?? h.target.fixtures.cloudImage]);
    if (h.namespace === 'default') {
      // `pulumi import` with a bare name: the namespace is "default".
      const bare = await h.provider.read(id.split('/')[1], { kubeconfig: h.target.kubeconfig });
      assert.deepEqual([bare.props!.namespace, bare.props!.name, bare.inputs!.count], ['default', id.split('/')[1], 2]);
    }
  });
});
