/**
 * The machine pool's two guest-cluster inputs, planned: initUserData (only the first VM of a pool born from nothing
 * is made from it; a VM made from it is judged against it, so a userData change alone does not roll it and its
 * replacement joins) and guestKubeconfig (a VM leaves the guest before it is deleted; a roll waits for its
 * replacements' Nodes to be Ready).
 */
import assert from 'node:assert/strict';
import { desiredVirtualMachines, INIT_ANNOTATION, INIT_USER_DATA_INPUT_KEY, USER_DATA_INPUT_KEY } from '../../../../../provider/resources/machine-pool/desired';
import { diffInputs } from '../../../../../provider/resources/machine-pool/diff';
import { planPool, type PlanStep } from '../../../../../provider/resources/machine-pool/plan';
import { toOutputs } from '../../../../../provider/resources/machine-pool/outputs';
import { readCloudInit } from '../../../../../provider/resources/machine-pool/cloud-init-secret';
import type { MachinePoolArgs } from '../../../../../provider/resources/machine-pool/model';
import { asHarvesterServes, context, inputs, observed } from './fixtures';

const JOIN = '#cloud-config\nruncmd:\n- echo join\n';
const INIT = '#cloud-config\nruncmd:\n- echo init\n';

function summary(steps: PlanStep[]): string[] {
  return steps.map((s) => {
    switch (s.action) {
      case 'create': return `create ${s.machine.name}${s.machine.vm.metadata.annotations?.[INIT_ANNOTATION] ? ' (init)' : ''}`;
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

/** The live pool a born plan of `args` created (its VMs as Harvester serves them, Secrets as written). */
function bornPool(args: Partial<MachinePoolArgs>) {
  const desired = desiredVirtualMachines(inputs(args), context());
  const plan = planPool(desired, [], { initFirst: true });
  const made = plan.steps.flatMap((s) => (s.action === 'create' ? [s.machine] : []));
  return { vms: made.map((m) => asHarvesterServes(m.vm)), secrets: made.map((m) => m.secret), desired };
}

describe('machine-pool initUserData: the VM that initialises a cluster', () => {
  it('a pool born from nothing makes its first VM from initUserData, every other VM from userData', () => {
    const desired = desiredVirtualMachines(inputs({ userData: JOIN, initUserData: INIT }), context());
    const plan = planPool(desired, [], { initFirst: true });
    assert.deepEqual(summary(plan.steps), ['create pool-a-0 (init)', 'create pool-a-1', 'create pool-a-2', 'ready pool-a-0,pool-a-1,pool-a-2']);
    const [first, second] = plan.steps.flatMap((s) => (s.action === 'create' ? [s.machine] : []));
    const decode = (b64: string | undefined) => Buffer.from(b64 ?? '', 'base64').toString('utf8');
    assert.match(decode(first.secret.data?.userdata), /echo init/);
    assert.match(decode(second.secret.data?.userdata), /echo join/);
    assert.equal(decode(first.secret.data?.[INIT_USER_DATA_INPUT_KEY]), INIT, 'the init VM keeps initUserData as written, for read and import');
    assert.equal(decode(first.secret.data?.[USER_DATA_INPUT_KEY]), JOIN, 'and userData too, so every Secret confirms it');
    assert.equal(second.secret.data?.[INIT_USER_DATA_INPUT_KEY], undefined);
  });

  it('without initFirst (a scale-up, a heal) no VM is made from initUserData', () => {
    const { vms } = bornPool({ userData: JOIN, initUserData: INIT, count: 1 });
    const plan = planPool(desiredVirtualMachines(inputs({ userData: JOIN, initUserData: INIT, count: 3 }), context()), observed(vms));
    assert.deepEqual(summary(plan.steps), ['create pool-a-1', 'create pool-a-2', 'ready pool-a-0,pool-a-1,pool-a-2']);
  });

  it('the init VM is up to date against initUserData; a change of it rolls the VM and the replacement joins', () => {
    const { vms } = bornPool({ userData: JOIN, initUserData: INIT });
    assert.deepEqual(summary(planPool(desiredVirtualMachines(inputs({ userData: JOIN, initUserData: INIT }), context()), observed(vms)).steps), ['ready pool-a-0,pool-a-1,pool-a-2']);
    const changed = planPool(desiredVirtualMachines(inputs({ userData: JOIN, initUserData: `${INIT}- echo v2\n` }), context()), observed(vms));
    assert.deepEqual(summary(changed.steps), ['create pool-a-3', 'ready pool-a-3', 'delete pool-a-0', 'ready pool-a-1,pool-a-2,pool-a-3', 'gone pool-a-0']);
  });

  it('a change of userData alone rolls the joiners, not the init VM', () => {
    const { vms } = bornPool({ userData: JOIN, initUserData: INIT });
    const plan = planPool(desiredVirtualMachines(inputs({ userData: `${JOIN}- echo v2\n`, initUserData: INIT }), context()), observed(vms));
    assert.deepEqual(plan.replaces.map((r) => r.name), ['pool-a-1', 'pool-a-2']);
  });

  it('read confirms initUserData from the init VM\'s Secret, and no false drift on its user data', () => {
    const { vms, secrets, desired } = bornPool({ userData: JOIN, initUserData: INIT });
    const recorded = toOutputs(inputs({ userData: JOIN, initUserData: INIT }), [], [], desired.cloudInitHash, { machine: 'pool-a-0', cloudInitHash: desired.initCloudInitHash! });
    const read = readCloudInit({ namespace: 'default', name: 'pool-a' }, recorded, vms.map((vm, i) => ({ name: vm.metadata.name!, vm, secret: secrets[i] })));
    assert.deepEqual(read.drift, []);
    assert.equal(read.inputs.userData, JOIN);
    assert.equal(read.inputs.initUserData, INIT);
  });

  it('diff: initUserData counts only while its VM lives; guestKubeconfig never', () => {
    const withInit = toOutputs(inputs({ userData: JOIN, initUserData: INIT }), [], [], undefined, { machine: 'pool-a-0', cloudInitHash: 'h' });
    const news = { ...inputs({ userData: JOIN, initUserData: `${INIT}# v2\n` }) } as Record<string, unknown>;
    assert.ok(diffInputs(withInit, news).reasons.some((r) => r.startsWith('initUserData')));
    const gone = { ...withInit, initMachine: undefined };
    const about = (reasons: string[]) => reasons.filter((r) => /initUserData|guestKubeconfig/.test(r));
    assert.deepEqual(about(diffInputs(gone, news).reasons), []);
    assert.deepEqual(about(diffInputs(gone, { ...news, guestKubeconfig: 'apiVersion: v1' }).reasons), []);
  });
});

describe('machine-pool guestKubeconfig: rolls and scale-downs go through the guest cluster', () => {
  const live = () => observed(desiredVirtualMachines(inputs({}), context()).machines.map((m) => asHarvesterServes(m.vm)));

  it('a roll waits for each replacement\'s Node to be Ready, then removes the old VM from the guest before deleting it', () => {
    const plan = planPool(desiredVirtualMachines(inputs({ cpu: 4 }), context()), live(), { guest: true });
    assert.deepEqual(summary(plan.steps), [
      'create pool-a-3', 'ready pool-a-3', 'guest-ready pool-a-3', 'leave pool-a-0', 'delete pool-a-0',
      'create pool-a-4', 'ready pool-a-4', 'guest-ready pool-a-4', 'leave pool-a-1', 'delete pool-a-1',
      'create pool-a-5', 'ready pool-a-5', 'guest-ready pool-a-5', 'leave pool-a-2', 'delete pool-a-2',
      'ready pool-a-3,pool-a-4,pool-a-5', 'gone pool-a-0,pool-a-1,pool-a-2',
    ]);
  });

  it('a scale-down removes the VMs from the guest first; maxUnavailable removes them before their replacement', () => {
    assert.deepEqual(summary(planPool(desiredVirtualMachines(inputs({ count: 1 }), context()), live(), { guest: true }).steps).slice(0, 3), ['leave pool-a-2,pool-a-1', 'delete pool-a-2', 'delete pool-a-1']);
    const plan = planPool(desiredVirtualMachines(inputs({ cpu: 4, rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } }), context()), live(), { guest: true });
    assert.deepEqual(summary(plan.steps).slice(0, 5), ['leave pool-a-0', 'delete pool-a-0', 'create pool-a-3', 'ready pool-a-3', 'guest-ready pool-a-3']);
  });

  it('without it the roll is as before (no guest step)', () => {
    assert.ok(!summary(planPool(desiredVirtualMachines(inputs({ cpu: 4 }), context()), live()).steps).some((s) => /guest|leave/.test(s)));
  });
});
