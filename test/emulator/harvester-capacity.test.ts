/**
 * The simulated Harvester's capacity rules (docs/design/capacity.md): Harvester's mutator turning limits into
 * requests from the live overcommit-config, KubeVirt's launcher pod with its memory overhead, kube-scheduler
 * placing by Σ requests ≤ allocatable with its FailedScheduling message, and the settings' validation.
 */
import { strict as assert } from 'node:assert';
import { expectStatusError, HarvesterSim, sizedVm, startHarvesterSim } from './harvester-fixture';
import { SeedOptions } from '../../emulator/harvester';
import { seedHosts } from '../../emulator/seed';

const DELAYS = { vmiSchedule: 10, vmiBoot: 10, guestAgent: 10 };

describe('simulated Harvester: capacity', () => {
  let sim: HarvesterSim;
  const start = async (seed?: SeedOptions): Promise<void> => {
    sim = await startHarvesterSim({ delays: DELAYS }, seed);
  };
  afterEach(() => sim?.close());

  const get = (kind: 'vm' | 'vmi', name: string): any => sim.store.get(sim.kinds[kind], 'default', name);
  const podOf = (name: string): any => sim.store.list(sim.kinds.pod, { namespace: 'default', labelSelector: `vm.kubevirt.io/name=${name}` }).items[0];
  const requestsOf = (name: string) => get('vm', name).spec.template.spec.domain.resources.requests;
  const compute = (pod: any) => pod.spec.containers.find((c: any) => c.name === 'compute').resources;

  describe('requests from the live overcommit-config (Harvester mutator)', () => {
    it('a v1.6 cluster uses the 1600/150 default: 4 vCPU / 8Gi → 250m / 5461Mi, guest memory the whole limit (ratio set)', async () => {
      await start();
      sim.store.create(sim.kinds.vm, sizedVm('a', 4, '8Gi'));
      assert.deepEqual(requestsOf('a'), { cpu: '250m', memory: '5461Mi' });
      assert.equal(get('vm', 'a').spec.template.spec.domain.memory.guest, '8Gi');
    });

    it('a fresh v1.8 cluster defaults to 1000/150 (400m), an upgraded one keeps the 1600/150/200 value it was pinned to', async () => {
      await start({ serverVersion: 'v1.8.0' });
      sim.store.create(sim.kinds.vm, sizedVm('fresh', 4, '8Gi'));
      assert.deepEqual(requestsOf('fresh'), { cpu: '400m', memory: '5461Mi' });
      const setting = sim.store.get(sim.kinds.setting, undefined, 'overcommit-config')!;
      assert.equal(setting.default, '{"cpu":1000,"memory":150,"storage":100}');
      assert.equal(setting.value, undefined);
      sim.close();
      await start({ serverVersion: 'v1.8.0', settings: { 'overcommit-config': '{"cpu":1600,"memory":150,"storage":200}' } });
      sim.store.create(sim.kinds.vm, sizedVm('upgraded', 4, '8Gi'));
      assert.deepEqual(requestsOf('upgraded'), { cpu: '250m', memory: '5461Mi' });
    });

    it('a changed setting applies to VMs created after it and to limit changes, not to other updates of existing VMs', async () => {
      await start();
      sim.store.create(sim.kinds.vm, sizedVm('old', 4, '8Gi'));
      sim.store.patch(sim.kinds.setting, undefined, 'overcommit-config', 'merge', { value: '{"cpu":200,"memory":100,"storage":100}' });
      sim.store.create(sim.kinds.vm, sizedVm('new', 4, '8Gi'));
      assert.deepEqual(requestsOf('new'), { cpu: '2', memory: '8Gi' });
      sim.store.patch(sim.kinds.vm, 'default', 'old', 'merge', { metadata: { labels: { team: 'blue' } } });
      assert.deepEqual(requestsOf('old'), { cpu: '250m', memory: '5461Mi' }, 'a label change keeps the old requests');
      sim.store.patch(sim.kinds.vm, 'default', 'old', 'merge', { spec: { template: { spec: { domain: { resources: { limits: { cpu: '6' } } } } } } });
      assert.deepEqual(requestsOf('old'), { cpu: '3', memory: '8Gi' }, 'a limit change recomputes both');
    });

    it('truncates the memory request to whole MiB and keeps the limit\'s format (decimal limits stay decimal)', async () => {
      await start();
      sim.store.create(sim.kinds.vm, sizedVm('odd', 3, '7G'));
      // 7e9 × 100 / 150 = 4666666666 → 4450 MiB; 3000m × 100 / 1600 = 187m
      assert.deepEqual(requestsOf('odd'), { cpu: '187m', memory: '4666163200' });
    });

    it('without the overhead ratio the guest loses 100Mi to QEMU (harvester#1234), or the reservedMemory annotation', async () => {
      await start({ settings: { 'additional-guest-memory-overhead-ratio': '' } });
      sim.store.patch(sim.kinds.setting, undefined, 'additional-guest-memory-overhead-ratio', 'merge', { default: '' });
      sim.store.create(sim.kinds.vm, sizedVm('noratio', 2, '4Gi'));
      assert.equal(get('vm', 'noratio').spec.template.spec.domain.memory.guest, '3996Mi');
      const annotated = sizedVm('annotated', 2, '4Gi');
      annotated.metadata.annotations!['harvesterhci.io/reservedMemory'] = '256Mi';
      sim.store.create(sim.kinds.vm, annotated);
      assert.equal(get('vm', 'annotated').spec.template.spec.domain.memory.guest, '3840Mi');
    });

    it('dedicated CPUs are exempt: requests = limits, a cpumanager host is required, the pod is Guaranteed', async () => {
      await start();
      sim.store.create(sim.kinds.vm, sizedVm('pinned', 4, '8Gi', { cpu: { dedicatedCpuPlacement: true } }));
      assert.deepEqual(requestsOf('pinned'), { cpu: '4', memory: '8Gi' });
      const terms = get('vm', 'pinned').spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms;
      assert.ok(terms[0].matchExpressions.some((e: any) => e.key === 'cpumanager'));
      await sim.run(50);
      assert.equal(get('vm', 'pinned').status.printableStatus, 'ErrorUnschedulable', 'no host runs the CPU manager yet');
      sim.store.patch(sim.kinds.node, undefined, 'harvester-node-1', 'merge', { metadata: { labels: { cpumanager: 'true' } } });
      await sim.run(50);
      const pod = podOf('pinned');
      assert.equal(pod.spec.nodeName, 'harvester-node-1');
      assert.equal(pod.status.qosClass, 'Guaranteed');
      // KubeVirt 1.5: (page tables + 220Mi + 4×8Mi + 8Mi + 16Mi video) × 1.5, then + 100Mi for dedicated CPUs
      assert.deepEqual(compute(pod).requests.cpu, '4');
      assert.equal(compute(pod).requests.memory, compute(pod).limits.memory);
      // page tables of 8Gi: 16777216; (16777216 + 220Mi + 32Mi + 8Mi + 16Mi) = 306184192, × 1.5 → 459276192
      assert.equal(compute(pod).limits.memory, String(8589934592 + 459276192 + 104857600));
    });
  });

  describe('the virt-launcher pod (KubeVirt)', () => {
    it('requests the VMI requests plus KubeVirt 1.5\'s overhead × 1.5, and a guest-console-log container', async () => {
      await start();
      sim.store.create(sim.kinds.vm, sizedVm('a', 4, '8Gi'));
      await sim.run(50);
      const pod = podOf('a');
      assert.match(pod.metadata.name, /^virt-launcher-a-[a-z0-9]{5}$/);
      assert.equal(pod.metadata.labels['kubevirt.io'], 'virt-launcher');
      assert.equal(pod.metadata.labels['kubevirt.io/created-by'], get('vmi', 'a').metadata.uid);
      assert.deepEqual(pod.metadata.ownerReferences.map((r: any) => [r.kind, r.name, r.controller]), [['VirtualMachineInstance', 'a', true]]);
      // 5461Mi request; overhead (5726274000 / 512 = 11184128) + 220Mi + 32Mi vCPUs + 8Mi + 16Mi = 300591104, × 1.5 → 450887104
      assert.deepEqual(compute(pod).requests, {
        cpu: '250m',
        memory: '6177160640',
        'ephemeral-storage': '50M',
        'devices.kubevirt.io/kvm': '1',
        'devices.kubevirt.io/tun': '1',
        'devices.kubevirt.io/vhost-net': '1',
      });
      assert.equal(compute(pod).limits.memory, String(8589934592 + 450887104));
      assert.deepEqual(pod.spec.containers[1].resources, { requests: { cpu: '5m', memory: '35M' }, limits: { cpu: '15m', memory: '60M' } });
      assert.deepEqual(pod.spec.nodeSelector, { 'kubevirt.io/schedulable': 'true', 'kubernetes.io/arch': 'amd64' });
      assert.equal(pod.status.phase, 'Running');
      assert.equal(get('vmi', 'a').status.nodeName, pod.spec.nodeName);
    });

    it('KubeVirt ≥ 1.6 (Harvester ≥ v1.7) counts 32Mi of video RAM', async () => {
      await start({ serverVersion: 'v1.8.0' });
      sim.store.create(sim.kinds.vm, sizedVm('a', 4, '8Gi'));
      await sim.run(50);
      // 11184128 + 220Mi + 32Mi + 8Mi + 32Mi = 317368320; ⌈317368.32⌉ × 0.5 = 158684 (truncated) × 1000
      assert.equal(compute(podOf('a')).requests.memory, String(5726273536 + 317368320 + 158684000));
      assert.equal(compute(podOf('a')).requests.cpu, '400m');
    });

    it('the pod goes with its VMI (owner reference), and the host\'s room with it', async () => {
      await start();
      sim.store.create(sim.kinds.vm, sizedVm('a', 4, '8Gi'));
      await sim.run(50);
      sim.store.patch(sim.kinds.vm, 'default', 'a', 'merge', { spec: { runStrategy: 'Halted' } });
      await sim.run(50);
      assert.equal(podOf('a'), undefined);
    });
  });

  describe('scheduling by requests (kube-scheduler)', () => {
    const small = (count = 3) => ({ nodes: seedHosts({ count, cpu: '4', memory: '16Gi', systemRequests: { cpu: '500m', memory: '2Gi' } }) });

    it('places while Σ requests ≤ allocatable, then leaves the rest Pending with FailedScheduling and ErrorUnschedulable', async () => {
      await start(small());
      // 4Gi → 2730Mi + overhead ≈ 3.1GiB per VM; 16Gi − 2Gi system leaves room for 4 per host
      for (let i = 0; i < 13; i++) sim.store.create(sim.kinds.vm, sizedVm(`vm-${i}`, 2, '4Gi'));
      await sim.run(100);
      const placed = sim.store.list(sim.kinds.vmi, { namespace: 'default' }).items.filter((v: any) => v.status.phase === 'Running');
      assert.equal(placed.length, 12);
      const stuck = sim.store.list(sim.kinds.vm, { namespace: 'default' }).items.find((v: any) => v.status.printableStatus === 'ErrorUnschedulable')!;
      const message = '0/3 nodes are available: 3 Insufficient memory. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod..';
      assert.equal((stuck.status as any).conditions.find((c: any) => c.type === 'PodScheduled').message, message);
      const pod = podOf(String(stuck.metadata.name));
      assert.equal(pod.status.phase, 'Pending');
      assert.deepEqual(pod.status.conditions.find((c: any) => c.type === 'PodScheduled'), { ...pod.status.conditions.find((c: any) => c.type === 'PodScheduled'), status: 'False', reason: 'Unschedulable', message });
      const events = sim.store.list(sim.kinds.event, { namespace: 'default', fieldSelector: `involvedObject.name=${pod.metadata.name},reason=FailedScheduling` }).items;
      assert.equal(events.length, 1);
      assert.equal(events[0].type, 'Warning');
      assert.equal(events[0].message, message);
      assert.equal(events[0].reportingComponent, 'default-scheduler');
      // WHEN a VM goes, the waiting one takes its room
      sim.store.delete(sim.kinds.vm, 'default', String(placed[0].metadata.name));
      await sim.run(100);
      assert.equal(get('vmi', String(stuck.metadata.name)).status.phase, 'Running');
    });

    it('sorts mixed reasons as kube-scheduler does, and calls preemption useless where it cannot help', async () => {
      await start(small());
      sim.store.create(sim.kinds.vm, sizedVm('filler', 3, '4Gi'));
      sim.store.patch(sim.kinds.node, undefined, 'harvester-node-1', 'merge', { spec: { unschedulable: true } });
      sim.store.patch(sim.kinds.node, undefined, 'harvester-node-2', 'merge', { spec: { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] } });
      await sim.run(50);
      sim.store.create(sim.kinds.vm, sizedVm('big', 40, '4Gi'));
      await sim.run(50);
      assert.equal(
        get('vmi', 'big').status.conditions.find((c: any) => c.type === 'PodScheduled').message,
        '0/3 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {dedicated: gpu}, 1 node(s) were unschedulable. ' +
          'preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling..',
      );
    });

    it('a request above a host\'s whole allocatable is not helped by preemption; a full pod count says Too many pods', async () => {
      await start({ nodes: seedHosts({ count: 1, cpu: '4', memory: '16Gi', pods: 2, systemRequests: null }) });
      sim.store.create(sim.kinds.vm, sizedVm('huge', 2, '40Gi'));
      await sim.run(50);
      assert.match(get('vmi', 'huge').status.conditions.find((c: any) => c.type === 'PodScheduled').message, /1 Insufficient memory\. preemption: 0\/1 nodes are available: 1 Preemption is not helpful for scheduling\.\.$/);
      sim.store.delete(sim.kinds.vm, 'default', 'huge');
      for (const n of ['p1', 'p2', 'p3']) sim.store.create(sim.kinds.vm, sizedVm(n, 1, '1Gi'));
      await sim.run(50);
      const waiting = ['p1', 'p2', 'p3'].map((n) => get('vmi', n)).find((v) => v.status.phase !== 'Running');
      assert.match(waiting.status.conditions.find((c: any) => c.type === 'PodScheduled').message, /^0\/1 nodes are available: 1 Too many pods\./);
    });
  });

  describe('live migration and capacity', () => {
    it('the target must fit the pod\'s requests, holds them while the migration runs, and takes the pod over after it', async () => {
      // Two hosts of 16Gi (14Gi free): a 12Gi VM requests about 8.6Gi, so a host takes one.
      await start({ nodes: seedHosts({ count: 2, cpu: '8', memory: '16Gi', systemRequests: { cpu: '500m', memory: '2Gi' } }) });
      const migration = (name: string, vmiName: string) => ({ apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachineInstanceMigration', metadata: { name, namespace: 'default' }, spec: { vmiName } });
      sim.store.create(sim.kinds.vm, sizedVm('a', 2, '12Gi'));
      sim.store.create(sim.kinds.vm, sizedVm('b', 2, '12Gi'));
      await sim.run(100);
      assert.notEqual(get('vmi', 'a').status.nodeName, get('vmi', 'b').status.nodeName);
      sim.store.create(sim.kinds.vmim, migration('a-1', 'a'));
      await sim.run(100);
      assert.equal((sim.store.get(sim.kinds.vmim, 'default', 'a-1')!.status as any).phase, 'Scheduling', 'no host has room for a second such VM');
      sim.store.delete(sim.kinds.vm, 'default', 'b');
      await sim.run(50);
      const target = get('vmi', 'a').status.migrationState?.targetNode;
      assert.ok(target && target !== get('vmi', 'a').status.nodeName, 'the freed host becomes the target');
      // While it runs, the target holds the VMI's requests: a VM that would fit there stays unschedulable.
      sim.store.create(sim.kinds.vm, sizedVm('c', 2, '12Gi'));
      await sim.run(5);
      assert.match(get('vmi', 'c').status.conditions.find((x: any) => x.type === 'PodScheduled').message, /^0\/2 nodes are available: 2 Insufficient memory\./);
      sim.store.delete(sim.kinds.vm, 'default', 'c');
      await sim.run(1500);
      const pods = sim.store.list(sim.kinds.pod, { namespace: 'default', labelSelector: 'vm.kubevirt.io/name=a' }).items as any[];
      assert.deepEqual(pods.map((p) => [p.spec.nodeName, p.status.phase]).sort(), [[get('vmi', 'a').status.nodeName, 'Running'], [pods.find((p) => p.status.phase === 'Succeeded').spec.nodeName, 'Succeeded']].sort());
      assert.equal(get('vmi', 'a').status.nodeName, target);
    });
  });

  describe('settings validation (Harvester setting webhook)', () => {
    beforeEach(() => start());
    const denial = (body: Record<string, unknown>, name = 'overcommit-config') => expectStatusError(() => sim.store.patch(sim.kinds.setting, undefined, name, 'merge', body));
    const prefix = 'admission webhook "validator.harvesterhci.io" denied the request: ';

    it('refuses any overcommit percentage below 100, naming the field, and JSON that does not decode', () => {
      const e = denial({ value: '{"cpu":1000,"memory":90,"storage":100}' });
      assert.equal(e.code, 422);
      assert.equal(e.status.message, `${prefix}Cannot undercommit. Should be greater than or equal to 100 but got 90`);
      assert.equal((e.status.details as any).causes[0].field, 'memory');
      assert.equal(denial({ value: '{"cpu":1000,"memory":150}' }).status.message, `${prefix}Cannot undercommit. Should be greater than or equal to 100 but got 0`);
      assert.equal(denial({ value: '{"cpu":' }).status.message, `${prefix}Invalid JSON: {"cpu":`);
      assert.equal((denial({ value: '{"cpu":' }).status.details as any).causes[0].field, 'value');
      sim.store.patch(sim.kinds.setting, undefined, 'overcommit-config', 'merge', { value: '{"cpu":100,"memory":100,"storage":100}' });
    });

    it('refuses an overhead ratio outside 1–10 (0 and empty turn it off)', () => {
      const name = 'additional-guest-memory-overhead-ratio';
      assert.equal(denial({ value: '0.5' }, name).status.message, `${prefix}value 0.5 can't be less than 1`);
      assert.equal(denial({ value: '11' }, name).status.message, `${prefix}value 11 can't be greater than 10`);
      assert.match(denial({ value: 'x' }, name).status.message!, /value x can't be converted to float64/);
      for (const ok of ['0', '', '2.5', '10']) sim.store.patch(sim.kinds.setting, undefined, name, 'merge', { value: ok });
    });
  });
});
