import assert from 'node:assert/strict';
import { desiredVirtualMachines } from '../../../../../provider/resources/machine-pool/desired';
import { indexOf, planPool, type PlanStep } from '../../../../../provider/resources/machine-pool/plan';
import type { MachinePoolArgs } from '../../../../../provider/resources/machine-pool/model';
import { asHarvesterServes, context, inputs, observed } from './fixtures';

const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];

/** A live pool as `args` would have created it. */
function livePool(args: Partial<MachinePoolArgs>) {
  return desiredVirtualMachines(inputs(args), context()).machines.map((m) => asHarvesterServes(m.vm));
}

function summary(steps: PlanStep[]): string[] {
  return steps.map((s) => {
    switch (s.action) {
      case 'create': return `create ${s.machine.name}${s.machine.zone ? `@${s.machine.zone}` : ''}`;
      case 'delete': return `delete ${s.name}`;
      case 'patch': return `patch ${s.name}`;
      case 'ensureSecret': return `secret ${s.machine.name}`;
      case 'awaitReady': return `ready ${s.names.join(',')}`;
      case 'awaitGone': return `gone ${s.names.join(',')}`;
      case 'awaitGuestReady': return `guest-ready ${s.names.join(',')}`;
      case 'leaveGuest': return `leave ${s.names.join(',')}`;
    }
  });
}

describe('machine-pool planPool', () => {
  it('creates a new pool in parallel, then waits for every VM', () => {
    const plan = planPool(desiredVirtualMachines(inputs({ zones: ZONES }), context()), []);
    assert.equal(plan.upToDate, false);
    assert.deepEqual(summary(plan.steps), ['create pool-a-0@us-east-1a', 'create pool-a-1@us-east-1b', 'create pool-a-2@us-east-1c', 'ready pool-a-0,pool-a-1,pool-a-2']);
  });

  it('is up to date when the live pool matches, whatever Harvester added', () => {
    const plan = planPool(desiredVirtualMachines(inputs({ zones: ZONES }), context()), observed(livePool({ zones: ZONES })));
    assert.equal(plan.upToDate, true);
    assert.deepEqual(plan.changes, []);
    assert.deepEqual(summary(plan.steps), ['ready pool-a-0,pool-a-1,pool-a-2']);
  });

  it('scales 3 → 5 over zones, keeping the spread even', () => {
    const plan = planPool(desiredVirtualMachines(inputs({ count: 5, zones: ZONES }), context()), observed(livePool({ zones: ZONES })));
    assert.deepEqual(summary(plan.steps).slice(0, 2), ['create pool-a-3@us-east-1a', 'create pool-a-4@us-east-1b']);
  });

  it('scales 5 → 2 removing the highest indexes first, and waits until they are gone', () => {
    const plan = planPool(desiredVirtualMachines(inputs({ count: 2, zones: ZONES }), context()), observed(livePool({ count: 5, zones: ZONES })));
    assert.deepEqual(summary(plan.steps), ['delete pool-a-4', 'delete pool-a-3', 'delete pool-a-2', 'ready pool-a-0,pool-a-1', 'gone pool-a-2,pool-a-3,pool-a-4']);
    const del = plan.steps[0];
    assert.ok(del.action === 'delete' && del.claimNames[0] === 'pool-a-4-disk-0-x7k2q', 'delete carries the claims to remove with the VM');
  });

  it('heals a VM lost out of band by recreating its index in its zone', () => {
    const live = livePool({ zones: ZONES }).filter((vm) => vm.metadata.name !== 'pool-a-1');
    const plan = planPool(desiredVirtualMachines(inputs({ zones: ZONES }), context()), observed(live));
    assert.deepEqual(summary(plan.steps), ['create pool-a-1@us-east-1b', 'ready pool-a-0,pool-a-1,pool-a-2']);
  });

  it('rolls a spec change with surge 1: each new VM ready before an old one goes, same zone, fresh index', () => {
    const desired = desiredVirtualMachines(inputs({ zones: ZONES, disks: [{ image: 'opensuse-leap-15.6', size: '40Gi' }] }), context());
    const plan = planPool(desired, observed(livePool({ zones: ZONES })));
    assert.deepEqual(summary(plan.steps), [
      'create pool-a-3@us-east-1a', 'ready pool-a-3', 'delete pool-a-0',
      'create pool-a-4@us-east-1b', 'ready pool-a-4', 'delete pool-a-1',
      'create pool-a-5@us-east-1c', 'ready pool-a-5', 'delete pool-a-2',
      'ready pool-a-3,pool-a-4,pool-a-5', 'gone pool-a-0,pool-a-1,pool-a-2',
    ]);
    assert.deepEqual(plan.replaces.map((r) => r.name), ['pool-a-0', 'pool-a-1', 'pool-a-2']);
    assert.ok(plan.replaces[0].differences.some((d) => d.input === 'disks'));
  });

  it('resumes an interrupted roll: the surplus VM removed is an outdated one, never the replacement already made', () => {
    // A roll of 2 VMs stopped after creating pool-a-2 with the new spec (timeout, outage): 3 VMs for count 2.
    const desired = desiredVirtualMachines(inputs({ count: 2, cpu: 4 }), context());
    const live = [...livePool({ count: 2 }), asHarvesterServes(desired.build(2, undefined).vm)];
    const plan = planPool(desired, observed(live));
    assert.deepEqual(summary(plan.steps), ['delete pool-a-1', 'create pool-a-3', 'ready pool-a-3', 'delete pool-a-0', 'ready pool-a-2,pool-a-3', 'gone pool-a-0,pool-a-1']);
    assert.deepEqual(plan.replaces.map((r) => r.name), ['pool-a-0']);
  });

  it('resumes an interrupted roll over zones: removes the outdated VM of the crowded zone', () => {
    const desired = desiredVirtualMachines(inputs({ zones: ZONES, cpu: 4 }), context());
    const live = [...livePool({ zones: ZONES }), asHarvesterServes(desired.build(3, 'us-east-1a').vm)];
    const plan = planPool(desired, observed(live));
    assert.deepEqual(summary(plan.steps).slice(0, 1), ['delete pool-a-0']);
    assert.deepEqual(plan.replaces.map((r) => r.name), ['pool-a-1', 'pool-a-2']);
  });

  it('rolls with maxUnavailable 1 and no surge: old VM first', () => {
    const desired = desiredVirtualMachines(inputs({ count: 2, cpu: 4, rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } }), context());
    const plan = planPool(desired, observed(livePool({ count: 2 })));
    assert.deepEqual(summary(plan.steps), [
      'delete pool-a-0', 'create pool-a-2', 'ready pool-a-2',
      'delete pool-a-1', 'create pool-a-3', 'ready pool-a-3',
      'ready pool-a-2,pool-a-3', 'gone pool-a-0,pool-a-1',
    ]);
    const first = plan.steps[0];
    assert.ok(first.action === 'delete');
    assert.equal(first.reason, 'roll pool-a-0: remove it before its replacement (maxUnavailable 1)');
  });

  it('rolls in waves of surge + unavailable', () => {
    const desired = desiredVirtualMachines(inputs({ count: 4, cpu: 4, rollingUpdate: { maxSurge: 2, maxUnavailable: 1 } }), context());
    const plan = planPool(desired, observed(livePool({ count: 4 })));
    assert.deepEqual(summary(plan.steps).slice(0, 7), [
      'delete pool-a-0', 'create pool-a-4', 'create pool-a-5', 'create pool-a-6', 'ready pool-a-4,pool-a-5,pool-a-6', 'delete pool-a-1', 'delete pool-a-2',
    ]);
  });

  it('rolls every VM when only networkData changes on a live pool, and says so', () => {
    const before = { count: 2, networkData: 'version: 2\nethernets:\n  eth0:\n    dhcp4: true\n' };
    const after = { count: 2, networkData: 'version: 2\nethernets:\n  eth0:\n    dhcp4: false\n    addresses: [10.0.0.5/24]\n' };
    const plan = planPool(desiredVirtualMachines(inputs(after), context()), observed(livePool(before)));
    assert.deepEqual(summary(plan.steps), [
      'create pool-a-2', 'ready pool-a-2', 'delete pool-a-0', 'create pool-a-3', 'ready pool-a-3', 'delete pool-a-1',
      'ready pool-a-2,pool-a-3', 'gone pool-a-0,pool-a-1',
    ]);
    assert.deepEqual(plan.replaces.map((r) => [r.name, r.differences.map((d) => d.input)]), [['pool-a-0', ['networkData']], ['pool-a-1', ['networkData']]]);
    const creates = plan.steps.filter((st) => st.action === 'create').map((st) => st.reason);
    assert.deepEqual(creates, ['roll pool-a-0 (networkData changed): create its replacement pool-a-2', 'roll pool-a-1 (networkData changed): create its replacement pool-a-3']);
    const added = planPool(desiredVirtualMachines(inputs(after), context()), observed(livePool({ count: 2 })));
    assert.deepEqual(added.replaces.map((r) => r.differences.some((d) => d.input === 'networkData')), [true, true], 'adding networkData rolls too');
  });

  it('reports a userData-only change once per VM, as userData alone', () => {
    const plan = planPool(desiredVirtualMachines(inputs({ count: 2, userData: '#cloud-config\nhostname: b\n' }), context()), observed(livePool({ count: 2, userData: '#cloud-config\nhostname: a\n' })));
    assert.deepEqual(plan.changes, [
      'roll pool-a-0: cloud-init user data differs from the inputs (userData, guestAgent, sshKeys or guestCredentials)',
      'roll pool-a-1: cloud-init user data differs from the inputs (userData, guestAgent, sshKeys or guestCredentials)',
    ]);
    const creates = plan.steps.filter((st) => st.action === 'create').map((st) => st.reason);
    assert.deepEqual(creates, ['roll pool-a-0 (userData changed): create its replacement pool-a-2', 'roll pool-a-1 (userData changed): create its replacement pool-a-3']);
  });

  it('names a roll by the inputs that differ, and by the fields no input reads back only when no input differs', () => {
    const image = planPool(desiredVirtualMachines(inputs({ count: 1, disks: [{ image: 'opensuse-leap-15.6', size: '40Gi' }] }), context()), observed(livePool({ count: 1 })));
    const storageClass = 'metadata.annotations["harvesterhci.io/volumeClaimTemplates"][0].spec.storageClassName';
    assert.deepEqual(image.replaces[0].differences.map((d) => d.input ?? d.field), ['disks', storageClass], 'the image moves its storage class too');
    assert.equal(image.steps.find((st) => st.action === 'create')?.reason, 'roll pool-a-0 (disks changed): create its replacement pool-a-1');
    const live = livePool({ count: 1 });
    (live[0].spec!.template!.spec as Record<string, unknown>).evictionStrategy = 'None';
    const unread = planPool(desiredVirtualMachines(inputs({ count: 1 }), context()), observed(live));
    assert.deepEqual(unread.changes, ['roll pool-a-0: spec.template.spec.evictionStrategy is "None", the pool writes "LiveMigrateIfPossible" (no input reads it back)']);
    assert.equal(unread.steps.find((st) => st.action === 'create')?.reason, 'roll pool-a-0 (spec.template.spec.evictionStrategy changed): create its replacement pool-a-1');
  });

  it('patches label changes in place instead of rolling', () => {
    const plan = planPool(desiredVirtualMachines(inputs({ count: 1, labels: { team: 'b' } }), context()), observed(livePool({ count: 1, labels: { team: 'a' } })));
    assert.deepEqual(summary(plan.steps), ['patch pool-a-0', 'ready pool-a-0']);
    const patch = plan.steps[0];
    assert.ok(patch.action === 'patch');
    assert.deepEqual(patch.patch.labels, { team: 'b' });
    assert.deepEqual(patch.patch.templateLabels, { team: 'b' });
  });

  it('removes a label the inputs dropped (patch with null)', () => {
    const plan = planPool(desiredVirtualMachines(inputs({ count: 1 }), context()), observed(livePool({ count: 1, labels: { team: 'a' } })));
    const patch = plan.steps[0];
    assert.ok(patch.action === 'patch');
    assert.deepEqual(patch.patch.labels, { team: null });
  });

  it('recreates a missing cloud-init Secret left by a partial create', () => {
    const plan = planPool(desiredVirtualMachines(inputs({ count: 1 }), context()), observed(livePool({ count: 1 }), { secretExists: false }));
    assert.deepEqual(summary(plan.steps), ['secret pool-a-0', 'ready pool-a-0']);
    assert.deepEqual(plan.changes, ['recreate the cloud-init Secret of pool-a-0 (missing)']);
  });

  it('writes back a cloud-init Secret whose content differs from the inputs, without rolling its VM; an equal one is left alone', () => {
    const desired = desiredVirtualMachines(inputs({ count: 1, userData: '#cloud-config\nhostname: a\n' }), context());
    const secret = desired.build(0, undefined).secret;
    const same = planPool(desired, observed(livePool({ count: 1, userData: '#cloud-config\nhostname: a\n' }), { secret }));
    assert.deepEqual(summary(same.steps), ['ready pool-a-0']);
    const edited = { ...secret, data: { ...secret.data, userdata: Buffer.from('#cloud-config\nhostname: b\n').toString('base64') } };
    const plan = planPool(desired, observed(livePool({ count: 1, userData: '#cloud-config\nhostname: a\n' }), { secret: edited }));
    assert.deepEqual(summary(plan.steps), ['secret pool-a-0', 'ready pool-a-0']);
    assert.deepEqual(plan.changes, ['rewrite the cloud-init Secret of pool-a-0 (its content differs from the inputs)']);
  });

  it('does not reuse the index of a VM still terminating, and waits for it', () => {
    const live = observed(livePool({ count: 2 }));
    live[1].deleting = true;
    const plan = planPool(desiredVirtualMachines(inputs({ count: 2 }), context()), live);
    assert.deepEqual(summary(plan.steps), ['create pool-a-2', 'ready pool-a-0,pool-a-2', 'gone pool-a-1']);
  });

  it('moves VMs out of a zone dropped from the list, and keeps the others', () => {
    const desired = desiredVirtualMachines(inputs({ zones: ['us-east-1a', 'us-east-1b'] }), context());
    const plan = planPool(desired, observed(livePool({ zones: ZONES })));
    assert.deepEqual(plan.replaces.map((r) => r.name), ['pool-a-2']);
    assert.ok(summary(plan.steps).includes('create pool-a-3@us-east-1a'));
  });

  it('scales to zero', () => {
    const plan = planPool(desiredVirtualMachines(inputs({ count: 0 }), context()), observed(livePool({ count: 2 })));
    assert.deepEqual(summary(plan.steps), ['delete pool-a-1', 'delete pool-a-0', 'gone pool-a-0,pool-a-1']);
  });
});

describe('machine-pool indexOf and VMs without an index', () => {
  const vm = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine', metadata: { name, labels } });

  it('reads the index label first, else <pool>-<index> with the pool name taken literally', () => {
    assert.equal(indexOf(vm('anything', { 'harvester-iac.io/pool-index': '4' }), 'pool.a'), 4);
    assert.equal(indexOf(vm('pool.a-3'), 'pool.a'), 3);
    assert.ok(Number.isNaN(indexOf(vm('poolXa-3'), 'pool.a')), 'the dot matches only a dot');
    assert.ok(Number.isNaN(indexOf(vm('pool.a-3-x'), 'pool.a')));
    assert.equal(indexOf(vm('pool.a-3', { 'harvester-iac.io/pool-index': 'three' }), 'pool.a'), 3, 'a malformed label falls back to the name');
  });

  it('removes a VM that carries the pool\'s labels but no index, saying why', () => {
    const live = livePool({ count: 1 });
    const stray = { ...observed([live[0]])[0], name: 'pool-a-extra', index: Number.NaN };
    const plan = planPool(desiredVirtualMachines(inputs({ count: 1 }), context()), [...observed(live), stray]);
    assert.deepEqual(plan.changes, ["remove pool-a-extra: it carries the pool's labels but no pool index"]);
    assert.deepEqual(summary(plan.steps), ['delete pool-a-extra', 'ready pool-a-0', 'gone pool-a-extra']);
  });
});

describe('machine-pool planPool healing with a recorded pool', () => {
  it('recreates a lost VM at its recorded index, not at the lowest free one', () => {
    const live = livePool({ count: 4 }).filter((vm) => ['pool-a-2', 'pool-a-3'].includes(vm.metadata.name!));
    const plan = planPool(desiredVirtualMachines(inputs({ count: 3 }), context()), observed(live), { recordedIndexes: [1, 2, 3] });
    assert.deepEqual(summary(plan.steps), ['create pool-a-1', 'ready pool-a-1,pool-a-2,pool-a-3']);
  });

  it('recreates several lost VMs lowest index first, whatever the order on record', () => {
    const live = livePool({ count: 3 }).filter((vm) => vm.metadata.name === 'pool-a-0');
    const plan = planPool(desiredVirtualMachines(inputs({ count: 3 }), context()), observed(live), { recordedIndexes: [2, 1, 0] });
    assert.deepEqual(summary(plan.steps), ['create pool-a-1', 'create pool-a-2', 'ready pool-a-0,pool-a-1,pool-a-2']);
  });
});
