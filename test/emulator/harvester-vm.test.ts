/** The simulated Harvester's VirtualMachine → VMI lifecycle, volumes, guest agent and deletion. */
import { strict as assert } from 'node:assert';
import { KubeObject } from '../../emulator/api/types';
import { AGENT_USERDATA, expectStatusError, HarvesterSim, nodeDriverVm, startHarvesterSim } from './harvester-fixture';

describe('simulated Harvester: virtual machines', () => {
  let sim: HarvesterSim;

  beforeEach(async () => {
    sim = await startHarvesterSim({ delays: { vmiSchedule: 100, vmiBoot: 500, guestAgent: 300 } });
  });
  afterEach(() => sim.close());

  const vmi = (name: string): KubeObject | undefined => sim.store.get(sim.kinds.vmi, 'default', name);
  const vm = (name: string): KubeObject => sim.store.get(sim.kinds.vm, 'default', name)!;
  const status = (o: KubeObject | undefined): Record<string, any> => (o?.status ?? {}) as Record<string, any>;

  it('refuses a masquerade interface on a VM (Multus) network, and an interface without its network, as KubeVirt does', () => {
    // GIVEN a node-driver VM whose nic-0 binds with masquerade to the Multus network default/vm-net
    const masquerade = nodeDriverVm('vm-m', { userData: AGENT_USERDATA });
    const devices = (masquerade.spec as any).template.spec.domain.devices;
    devices.interfaces = [{ name: 'nic-0', model: 'virtio', masquerade: {} }, { name: 'nic-9', model: 'virtio', bridge: {} }];
    // WHEN it is created THEN KubeVirt's validator answers 422 naming both interfaces
    const err = expectStatusError(() => sim.store.create(sim.kinds.vm, masquerade));
    assert.equal(err.code, 422);
    assert.match(err.message, /^admission webhook "virtualmachine-validator\.kubevirt\.io" denied the request: Masquerade interface only implemented with pod network/);
    assert.deepEqual((err.status.details!.causes as { field: string }[]).map((c) => c.field), [
      'spec.template.spec.domain.devices.interfaces[0].name',
      'spec.template.spec.domain.devices.interfaces[1].name',
    ]);
    assert.equal(sim.store.get(sim.kinds.vm, 'default', 'vm-m'), undefined);
  });

  it('creates a VMI owned by the VM and walks it Pending → Scheduling → Scheduled → Running', async () => {
    // GIVEN a running-strategy VM
    sim.store.create(sim.kinds.vm, nodeDriverVm('vm-a', { userData: AGENT_USERDATA }));
    await sim.run(0);
    // THEN a VMI of the same name exists, controlled by the VM, and is Scheduling
    const created = vmi('vm-a')!;
    assert.ok(created);
    const owner = created.metadata.ownerReferences![0];
    assert.equal(owner.kind, 'VirtualMachine');
    assert.equal(owner.uid, vm('vm-a').metadata.uid);
    assert.equal(owner.controller, true);
    assert.equal(status(created).phase, 'Scheduling');
    assert.equal(status(vm('vm-a')).printableStatus, 'Starting');
    // WHEN the schedule delay passes
    await sim.run(100);
    assert.equal(status(vmi('vm-a')).phase, 'Scheduled');
    assert.match(status(vmi('vm-a')).nodeName, /^harvester-node-\d$/);
    // AND the boot delay passes
    await sim.run(500);
    assert.equal(status(vmi('vm-a')).phase, 'Running');
    const vmStatus = status(vm('vm-a'));
    assert.equal(vmStatus.printableStatus, 'Running');
    assert.equal(vmStatus.ready, true);
    assert.equal(vmStatus.created, true);
    assert.equal(vmStatus.conditions.find((c: any) => c.type === 'Ready').status, 'True');
    const phases = status(vmi('vm-a')).phaseTransitionTimestamps.map((p: any) => p.phase);
    assert.deepEqual(phases, ['Pending', 'Scheduling', 'Scheduled', 'Running']);
  });

  it('reports an IPv4 through the guest agent only when cloud-init installs and starts it', async () => {
    sim.store.create(sim.kinds.vm, nodeDriverVm('with-agent', { userData: AGENT_USERDATA }));
    sim.store.create(sim.kinds.vm, nodeDriverVm('no-agent', { userData: '#cloud-config\npackages:\n  - qemu-guest-agent\n' }));
    await sim.run(1000);
    const withAgent = status(vmi('with-agent'));
    assert.equal(withAgent.phase, 'Running');
    const nic = withAgent.interfaces[0];
    assert.equal(nic.name, 'nic-0');
    assert.equal(nic.infoSource, 'domain, guest-agent');
    assert.match(nic.ipAddress, /^172\.16\.100\.\d+$/);
    assert.equal(nic.ipAddresses[0], nic.ipAddress);
    assert.match(nic.mac, /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/);
    assert.equal(withAgent.conditions.find((c: any) => c.type === 'AgentConnected').status, 'True');
    const noAgent = status(vmi('no-agent'));
    assert.equal(noAgent.phase, 'Running');
    assert.equal(noAgent.interfaces[0].ipAddress, undefined);
    assert.equal(noAgent.conditions.find((c: any) => c.type === 'AgentConnected'), undefined);
  });

  it('reads the user data from the cloud-init Secret created after the VM', async () => {
    sim.store.create(sim.kinds.vm, nodeDriverVm('secret-vm', { secretRef: 'secret-vm-cloudinit' }));
    await sim.run(700);
    assert.equal(status(vmi('secret-vm')).phase, 'Running');
    assert.equal(status(vmi('secret-vm')).interfaces[0].ipAddress, undefined);
    // WHEN the driver creates the Secret (owned by the VM) with the agent user data
    const owner = vm('secret-vm');
    sim.store.create(sim.kinds.secret, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'secret-vm-cloudinit',
        namespace: 'default',
        ownerReferences: [{ apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine', name: 'secret-vm', uid: String(owner.metadata.uid) }],
      },
      data: { userdata: Buffer.from(AGENT_USERDATA).toString('base64') },
    });
    await sim.run(300);
    assert.match(status(vmi('secret-vm')).interfaces[0].ipAddress, /^172\.16\.100\./);
  });

  it('gives the same VM the same IP after a restart, and different VMs different IPs', async () => {
    sim.store.create(sim.kinds.vm, nodeDriverVm('ip-a', { userData: AGENT_USERDATA }));
    sim.store.create(sim.kinds.vm, nodeDriverVm('ip-b', { userData: AGENT_USERDATA }));
    await sim.run(1000);
    const first = status(vmi('ip-a')).interfaces[0].ipAddress;
    assert.notEqual(first, status(vmi('ip-b')).interfaces[0].ipAddress);
    // stop
    sim.store.patch(sim.kinds.vm, 'default', 'ip-a', 'merge', { spec: { runStrategy: 'Halted' } });
    await sim.run(0);
    assert.equal(vmi('ip-a'), undefined);
    assert.equal(status(vm('ip-a')).printableStatus, 'Stopped');
    assert.equal(status(vm('ip-a')).ready, false);
    // start again
    sim.store.patch(sim.kinds.vm, 'default', 'ip-a', 'merge', { spec: { runStrategy: 'RerunOnFailure' } });
    await sim.run(1000);
    assert.equal(status(vmi('ip-a')).interfaces[0].ipAddress, first);
  });

  it('follows spec.running true/false like runStrategy Always/Halted', async () => {
    sim.store.create(sim.kinds.vm, nodeDriverVm('legacy', { running: true }));
    await sim.run(700);
    assert.equal(status(vmi('legacy')).phase, 'Running');
    assert.equal(status(vm('legacy')).runStrategy, 'Always');
    assert.equal(vm('legacy').metadata.annotations!['harvesterhci.io/vmRunStrategy'], 'Always');
    sim.store.patch(sim.kinds.vm, 'default', 'legacy', 'merge', { spec: { running: false } });
    await sim.run(0);
    assert.equal(vmi('legacy'), undefined);
    assert.equal(status(vm('legacy')).printableStatus, 'Stopped');
    assert.equal(vm('legacy').metadata.annotations!['harvesterhci.io/vmRunStrategy'], 'Always', 'the last running strategy is kept');
  });

  it('a running VMI follows the template labels without a restart, keeping kubevirt.io labels (Harvester SyncLabelsToVmi)', async () => {
    sim.store.create(sim.kinds.vm, nodeDriverVm('relabel'));
    await sim.run(700);
    const before = vmi('relabel')!;
    assert.equal(status(before).phase, 'Running');
    const templateLabels = (vm('relabel').spec as any).template.metadata.labels as Record<string, string>;
    const dropped = Object.keys(templateLabels).find((k) => !k.startsWith('kubevirt.io'));
    sim.store.patch(sim.kinds.vm, 'default', 'relabel', 'merge', {
      metadata: { labels: { 'harvesterhci.io/maintain-mode-strategy': 'Migrate' } },
      spec: { template: { metadata: { labels: { team: 'blue', ...(dropped ? { [dropped]: null } : {}) } } } },
    });
    await sim.run(0);
    const after = vmi('relabel')!;
    assert.equal(after.metadata.uid, before.metadata.uid, 'the same VMI, not a restart');
    assert.equal(after.metadata.labels!.team, 'blue');
    if (dropped) assert.equal(after.metadata.labels![dropped], undefined, `${dropped} left the template, so it leaves the VMI`);
    assert.equal(after.metadata.labels!['harvesterhci.io/maintain-mode-strategy'], 'Migrate');
    assert.ok(after.metadata.labels!['kubevirt.io/nodeName'], 'kubevirt.io labels stay');
  });

  it('honours per-object delay annotations and the setDelays knob', async () => {
    const quick = nodeDriverVm('quick');
    (quick.spec as any).template.metadata.annotations['vmi-running.emulator.harvester-iac.local/delay'] = '2s';
    sim.store.create(sim.kinds.vm, quick);
    sim.harvester.setDelays({ vmiSchedule: 1000 });
    await sim.run(999);
    assert.equal(status(vmi('quick')).phase, 'Scheduling');
    await sim.run(1);
    assert.equal(status(vmi('quick')).phase, 'Scheduled');
    await sim.run(1990);
    assert.equal(status(vmi('quick')).phase, 'Scheduled');
    await sim.run(10);
    assert.equal(status(vmi('quick')).phase, 'Running');
  });

  it('adds Harvester server-side fields: annotations, finalizers, requests, guest memory, affinity, MACs', async () => {
    sim.store.create(sim.kinds.vm, nodeDriverVm('mut', { userData: AGENT_USERDATA }));
    await sim.run(1000);
    const live = vm('mut');
    const ann = live.metadata.annotations!;
    assert.equal(ann['harvesterhci.io/vmRunStrategy'], 'RerunOnFailure');
    const macs = JSON.parse(ann['harvesterhci.io/mac-address']);
    assert.equal(macs['nic-0'], status(vmi('mut')).interfaces[0].mac);
    assert.ok(live.metadata.finalizers!.includes('wrangler.cattle.io/VMController.CleanupPVCAndSnapshot'));
    assert.ok(live.metadata.finalizers!.includes('kubevirt.io/virtualMachineControllerFinalize'));
    const podSpec = (live.spec as any).template.spec;
    assert.deepEqual(podSpec.domain.resources.requests, { cpu: '125m', memory: '2730Mi' });
    assert.equal(podSpec.domain.memory.guest, '4Gi');
    assert.equal(podSpec.domain.cpu.maxSockets, 1);
    assert.equal(podSpec.terminationGracePeriodSeconds, 120);
    const terms = podSpec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms;
    assert.deepEqual(terms[0].matchExpressions, [{ key: 'network.harvesterhci.io/mgmt', operator: 'In', values: ['true'] }]);
    // The MAC lands in the interface on the next update (Harvester's mutator reads the annotation).
    assert.equal(podSpec.domain.devices.interfaces[0].macAddress, macs['nic-0']);
  });

  it('VM webhook refuses a negative grace period and a reservedMemory not below the memory limit', () => {
    const prefix = 'admission webhook "validator.harvesterhci.io" denied the request: ';
    const negative = nodeDriverVm('neg');
    (negative.spec as any).template.spec.terminationGracePeriodSeconds = -1;
    const e1 = expectStatusError(() => sim.store.create(sim.kinds.vm, negative));
    assert.equal(e1.code, 422);
    assert.equal(e1.status.message, `${prefix}Termination grace period can't be negative`);
    // Harvester's mutator runs first and refuses a reservation it cannot apply (generateMemoryPatch): a plain
    // error, so 500 InternalError under the mutator's name, with both byte counts.
    const mutatorPrefix = 'admission webhook "mutator.harvesterhci.io" denied the request: ';
    const reserved = nodeDriverVm('res');
    reserved.metadata.annotations!['harvesterhci.io/reservedMemory'] = '4Gi';
    const e2 = expectStatusError(() => sim.store.create(sim.kinds.vm, reserved));
    assert.equal(e2.code, 500);
    assert.equal(e2.status.message, `${mutatorPrefix}reservedMemory can't be equal or greater than limits.memory  4294967296 4294967296`);
    reserved.metadata.annotations!['harvesterhci.io/reservedMemory'] = 'lots';
    const e3 = expectStatusError(() => sim.store.create(sim.kinds.vm, reserved));
    assert.equal(e3.code, 500);
    assert.equal(e3.status.message, `${mutatorPrefix}annotation lots can't be converted to memory unit`);
    // A valid reservation lowers the guest memory.
    reserved.metadata.annotations!['harvesterhci.io/reservedMemory'] = '256Mi';
    const created = sim.store.create(sim.kinds.vm, reserved);
    assert.equal((created.spec as any).template.spec.domain.memory.guest, '3840Mi');
  });

  it('places VMIs per nodeAffinity and reports unschedulable ones on the VM', async () => {
    const zoneAffinity = (zone: string) => ({
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: [zone] }] }],
        },
      },
    });
    sim.store.create(sim.kinds.vm, nodeDriverVm('in-b', { affinity: zoneAffinity('us-east-1b') }));
    sim.store.create(sim.kinds.vm, nodeDriverVm('in-d', { affinity: zoneAffinity('us-east-1d') }));
    await sim.run(700);
    assert.equal(status(vmi('in-b')).nodeName, 'harvester-node-1');
    assert.equal(status(vmi('in-b')).phase, 'Running');
    const stuck = status(vmi('in-d'));
    assert.equal(stuck.phase, 'Scheduling');
    const podScheduled = status(vm('in-d')).conditions.find((c: any) => c.type === 'PodScheduled');
    assert.equal(podScheduled.status, 'False');
    assert.equal(podScheduled.reason, 'Unschedulable');
    assert.equal(
      podScheduled.message,
      "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling..",
    );
    assert.equal(status(vm('in-d')).printableStatus, 'ErrorUnschedulable');
    // WHEN a host gains the zone, the VMI gets scheduled
    sim.store.patch(sim.kinds.node, undefined, 'harvester-node-2', 'merge', { metadata: { labels: { 'topology.kubernetes.io/zone': 'us-east-1d' } } });
    await sim.run(700);
    assert.equal(status(vmi('in-d')).nodeName, 'harvester-node-2');
    assert.equal(status(vm('in-d')).conditions.find((c: any) => c.type === 'PodScheduled'), undefined);
  });

  it('mirrors host topology labels onto node-driver VMIs (and removes them when the host lacks them)', async () => {
    sim.store.create(sim.kinds.vm, nodeDriverVm('topo', {}));
    await sim.run(700);
    const running = vmi('topo')!;
    const node = sim.store.get(sim.kinds.node, undefined, status(running).nodeName)!;
    const ann = running.metadata.annotations!;
    assert.equal(ann['topology.kubernetes.io/region'], 'us-east');
    assert.equal(ann['topology.kubernetes.io/zone'], node.metadata.labels!['topology.kubernetes.io/zone']);
    assert.equal(ann['kubernetes.io/hostname'], node.metadata.name);
    // WHEN the host loses its zone label, nothing happens until the VMI changes (Harvester triggers on VMI changes)
    sim.store.patch(sim.kinds.node, undefined, String(node.metadata.name), 'json', [{ op: 'remove', path: '/metadata/labels/topology.kubernetes.io~1zone' }]);
    await sim.run(10);
    assert.ok(vmi('topo')!.metadata.annotations!['topology.kubernetes.io/zone']);
    sim.store.patch(sim.kinds.vmi, 'default', 'topo', 'merge', { metadata: { labels: { touched: 'yes' } } });
    await sim.run(10);
    assert.equal(vmi('topo')!.metadata.annotations!['topology.kubernetes.io/zone'], undefined);
  });
});
