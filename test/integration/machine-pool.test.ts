/**
 * The machine pool's handlers against the emulator: create over zones, read with one LIST per kind, scale,
 * roll an image change with surge 1, heal a VM deleted out of band, and see an out-of-band CPU edit as drift.
 * The scenarios share one pool and run in order (each starts from the state the previous one left).
 */
import assert from 'node:assert/strict';
import type { WatchHandle } from '../../emulator/api/types';
import { KINDS } from '../../emulator/kinds';
import type { MachinePoolOutputs } from '../../provider/resources/machine-pool/outputs';
import { startPoolHarness, type PoolHarness } from './machine-pool-support';

const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
const get = (o: unknown, ...path: (string | number)[]): any => path.reduce((c: any, k) => (c == null ? c : c[k]), o);

describe('machine pool on the emulator: create, scale, roll, heal, drift', function () {
  this.timeout(90_000);
  let h: PoolHarness;
  let outs: MachinePoolOutputs;
  let inputs: Record<string, unknown>;

  before(async () => {
    h = await startPoolHarness();
  });
  after(async () => {
    await h?.stop();
  });

  async function up(next: Record<string, unknown>): Promise<MachinePoolOutputs> {
    const checked = await h.provider.check(inputs ?? {}, next);
    assert.equal(checked.failures, undefined, JSON.stringify(checked.failures));
    const d = await h.provider.diff('default/pool-a', outs, checked.inputs!);
    assert.deepEqual(d.replaces, [], 'never replaces the pool');
    const r = await h.provider.update('default/pool-a', outs, checked.inputs!);
    inputs = checked.inputs!;
    return r.outs!;
  }

  it('creates a 3-VM pool over 3 zones: driver labels, Secret owned by the VM, PVCs, every VM Running with an IPv4 address', async () => {
    const checked = await h.provider.check({}, h.args({ zones: ZONES, guestCluster: 'gc1' }));
    assert.equal(checked.failures, undefined, JSON.stringify(checked.failures));
    inputs = checked.inputs!;
    const created = await h.provider.create(inputs);
    outs = created.outs!;
    assert.equal(created.id, 'default/pool-a');
    assert.deepEqual(outs.machines.map((m) => [m.name, m.zone, m.ready]), [
      ['pool-a-0', 'us-east-1a', true], ['pool-a-1', 'us-east-1b', true], ['pool-a-2', 'us-east-1c', true],
    ]);
    assert.deepEqual(new Set(outs.machines.map((m) => m.host)).size, 3, 'one VM per host (one host per zone)');
    for (const m of outs.machines) assert.match(m.ip ?? '', /^\d+\.\d+\.\d+\.\d+$/);
    assert.equal(JSON.stringify(outs).includes('userData"'), false);

    const vm = h.get('virtualMachine', 'pool-a-1')!;
    assert.equal(vm.metadata.labels!['harvesterhci.io/creator'], 'docker-machine-driver-harvester');
    assert.equal(vm.metadata.labels!['guestcluster.harvesterhci.io/name'], 'gc1');
    assert.equal(get(vm, 'spec', 'template', 'metadata', 'labels', 'harvesterhci.io/vmName'), 'pool-a-1');
    const secret = h.get('secret', 'pool-a-1-cloudinit')!;
    assert.deepEqual(secret.metadata.ownerReferences!.map((r) => [r.kind, r.name, r.uid]), [['VirtualMachine', 'pool-a-1', vm.metadata.uid]]);
    const pvcs = h.list('persistentVolumeClaim', 'pool-a');
    assert.equal(pvcs.length, 3);
    assert.ok(pvcs.every((p) => get(p, 'spec', 'storageClassName') === 'longhorn-ubuntu-22.04-server-cloudimg'));
  });

  it('creating again (a retried create) converges on the same VMs: no duplicates', async () => {
    const again = await h.provider.create(inputs);
    assert.deepEqual(again.outs!.machines.map((m) => m.name), ['pool-a-0', 'pool-a-1', 'pool-a-2']);
    assert.equal(h.list('virtualMachine', 'pool-a').length, 3);
    assert.equal(h.list('persistentVolumeClaim', 'pool-a').length, 3);
  });

  it('reads with one label-selected LIST of VMs and one of VMIs, and finds no drift in what Harvester added', async () => {
    const mark = h.emulator.journal.mark();
    const read = await h.provider.read('default/pool-a', outs);
    const requests = h.emulator.journal.entries({ since: mark }).map((e) => `${e.verb} ${e.resource}`);
    assert.deepEqual(requests.sort(), ['list virtualmachineinstances', 'list virtualmachines']);
    assert.deepEqual(read.props!.drift, []);
    assert.equal((await h.provider.diff('default/pool-a', read.props!, inputs)).changes, false);
    assert.equal(read.inputs!.cpu, 2);
    assert.equal('userData' in read.inputs!, false);
  });

  it('scales to 5 and to 2, keeping the zones even and removing the highest indexes (and their volumes) first', async () => {
    outs = await up({ ...inputs, count: 5 });
    assert.deepEqual(outs.machines.map((m) => [m.name, m.zone]), [
      ['pool-a-0', 'us-east-1a'], ['pool-a-1', 'us-east-1b'], ['pool-a-2', 'us-east-1c'], ['pool-a-3', 'us-east-1a'], ['pool-a-4', 'us-east-1b'],
    ]);
    assert.equal(outs.readyCount, 5);
    outs = await up({ ...inputs, count: 2 });
    assert.deepEqual(outs.machines.map((m) => m.name), ['pool-a-0', 'pool-a-1']);
    assert.deepEqual(h.list('virtualMachine', 'pool-a').map((v) => v.metadata.name), ['pool-a-0', 'pool-a-1']);
    const pvcs = h.list('persistentVolumeClaim', 'pool-a').map((p) => p.metadata.name as string);
    assert.equal(pvcs.length, 2, `volumes of removed VMs are deleted with them: ${pvcs}`);
    assert.equal(h.list('secret', 'pool-a').length, 2);
  });

  it('rolls an image change with surge 1: each new VM ready before an old one goes, never more than count + 1', async () => {
    const selector = 'harvester-iac.io/resource-name=pool-a';
    const present = new Set(h.list('virtualMachine', 'pool-a').map((v) => v.metadata.name as string));
    const ready = new Set<string>();
    let maxPresent = present.size;
    const violations: string[] = [];
    const watches: WatchHandle[] = [
      h.emulator.store.watch(KINDS.virtualMachineInstance, { namespace: 'default', labelSelector: selector }, (e) => {
        const o = e.object as any;
        const ok = e.type !== 'DELETED' && o.status?.phase === 'Running' && o.status?.interfaces?.[0]?.ipAddress;
        if (ok) ready.add(o.metadata.name);
        else ready.delete(o.metadata.name);
      }),
      h.emulator.store.watch(KINDS.virtualMachine, { namespace: 'default', labelSelector: selector }, (e) => {
        const o = e.object as any;
        const name = o.metadata.name as string;
        if (e.type === 'ADDED' && !o.metadata.deletionTimestamp) present.add(name);
        if ((e.type === 'MODIFIED' && o.metadata.deletionTimestamp) || e.type === 'DELETED') {
          if (present.delete(name)) {
            const others = [...ready].filter((n) => n !== name && present.has(n)).length;
            if (others < 2) violations.push(`${name} removed while only ${others} other VMs were ready`);
          }
        }
        maxPresent = Math.max(maxPresent, present.size);
      }),
    ];
    try {
      outs = await up({ ...inputs, count: 2, disks: [{ image: 'default/opensuse-leap-15.6', size: '30Gi' }] });
    } finally {
      watches.forEach((w) => w.stop());
    }
    assert.deepEqual(violations, []);
    assert.equal(maxPresent, 3, 'surge 1 over a pool of 2');
    assert.deepEqual(outs.machines.map((m) => [m.name, m.zone, m.ready]), [['pool-a-2', 'us-east-1a', true], ['pool-a-3', 'us-east-1b', true]]);
    const templates = JSON.parse(h.get('virtualMachine', 'pool-a-2')!.metadata.annotations!['harvesterhci.io/volumeClaimTemplates']);
    assert.equal(templates[0].metadata.annotations['harvesterhci.io/imageId'], 'default/opensuse-leap-15.6');
    assert.ok(h.progress.some((l) => /roll pool-a-0 \(disks changed\)/.test(l)), 'the reason names the property');
  });

  it('heals a VM deleted out of band: read shows it, the update recreates the same index in its zone', async () => {
    h.emulator.store.delete(KINDS.virtualMachine, 'default', 'pool-a-3', { propagationPolicy: 'Background' });
    const { props } = await h.provider.read('default/pool-a', outs);
    assert.equal(props!.count, 1);
    assert.ok(props!.drift.some((l) => /1 VMs exist, 2 recorded/.test(l)), JSON.stringify(props!.drift));
    assert.equal((await h.provider.diff('default/pool-a', props!, inputs)).changes, true);
    const healed = await h.provider.update('default/pool-a', props!, inputs);
    outs = healed.outs!;
    assert.deepEqual(outs.machines.map((m) => [m.name, m.zone, m.ready]), [['pool-a-2', 'us-east-1a', true], ['pool-a-3', 'us-east-1b', true]]);
  });

  it('sees a CPU edit made out of band as drift of cpu, and rolls it back', async () => {
    h.emulator.store.patch(KINDS.virtualMachine, 'default', 'pool-a-2', 'merge', { spec: { template: { spec: { domain: { cpu: { cores: 8 } } } } } });
    const { props, inputs: rebuilt } = await h.provider.read('default/pool-a', outs);
    assert.equal(rebuilt!.cpu, 8);
    assert.deepEqual(props!.drift, ['VirtualMachine default/pool-a-2: cpu is 8, recorded 2']);
    const d = await h.provider.diff('default/pool-a', props!, inputs);
    assert.equal(d.changes, true);
    outs = (await h.provider.update('default/pool-a', props!, inputs)).outs!;
    const cores = h.list('virtualMachine', 'pool-a').map((v) => get(v, 'spec', 'template', 'spec', 'domain', 'cpu', 'cores'));
    assert.deepEqual(cores, [2, 2]);
    const again = await h.provider.read('default/pool-a', outs);
    assert.deepEqual(again.props!.drift, []);
  });

  it('patches a label change in place, without replacing any VM', async () => {
    const before = h.list('virtualMachine', 'pool-a').map((v) => v.metadata.uid);
    outs = await up({ ...inputs, labels: { team: 'blue' } });
    const after = h.list('virtualMachine', 'pool-a');
    assert.deepEqual(after.map((v) => v.metadata.uid), before);
    assert.ok(after.every((v) => v.metadata.labels!.team === 'blue'));
  });

  it('imports a pool by id: inputs come from the live VMs, without drift', async () => {
    const { id, props, inputs: imported } = await h.provider.read('default/pool-a', { kubeconfig: h.emulator.kubeconfig });
    assert.equal(id, 'default/pool-a');
    assert.deepEqual(props!.drift, []);
    assert.equal(imported!.count, 2);
    assert.equal(imported!.cpu, 2);
    assert.deepEqual(imported!.zones, ['us-east-1a', 'us-east-1b']);
    assert.deepEqual(imported!.labels, { team: 'blue' });
    assert.equal(imported!.guestCluster, 'gc1');
    assert.deepEqual((imported!.disks as { image: string }[]).map((d) => d.image), ['default/opensuse-leap-15.6']);
  });
});
