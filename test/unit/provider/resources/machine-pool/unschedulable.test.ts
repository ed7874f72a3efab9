/**
 * When the readiness wait may stop for a VM no host can take: the VMI's PodScheduled=False/Unschedulable (what
 * KubeVirt copies from the launcher pod), trusted only when no room of the pool's own is on its way back.
 */
import assert from 'node:assert/strict';
import type { VirtualMachineInstance } from '../../../../../provider/client/objects';
import { PlacementWatch, placementOf, unplacedError, unschedulableMessage } from '../../../../../provider/resources/machine-pool/unschedulable';

const FIT_ERROR = '0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod..';

function vmi(name: string, extra: { message?: string; deleting?: boolean; node?: string; zone?: string; uid?: string } = {}): VirtualMachineInstance {
  const conditions = extra.message ? [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: extra.message }] : [];
  const affinity = extra.zone
    ? { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: [extra.zone] }] }] } } }
    : undefined;
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name, namespace: 'default', uid: extra.uid ?? `uid-${name}`, ...(extra.deleting ? { deletionTimestamp: '2026-11-27T00:00:00Z' } : {}) },
    spec: { affinity },
    status: { phase: extra.node ? 'Running' : 'Scheduling', conditions, ...(extra.node ? { nodeName: extra.node } : {}) },
  } as VirtualMachineInstance;
}

describe('machine-pool: a VM no host can take', () => {
  it('reads the scheduler\'s verdict from the VMI (PodScheduled False, reason Unschedulable) only', () => {
    assert.equal(unschedulableMessage(vmi('p-0', { message: FIT_ERROR })), FIT_ERROR);
    assert.equal(unschedulableMessage(vmi('p-0')), undefined);
    const other = vmi('p-0');
    other.status!.conditions = [{ type: 'PodScheduled', status: 'False', reason: 'SchedulerError', message: 'x' }];
    assert.equal(unschedulableMessage(other), undefined);
  });

  it('a verdict with no room of ours coming back stops the wait at once, with the VM\'s zone', () => {
    const watch = new PlacementWatch(new Set());
    const stuck = watch.stuck(['p-0', 'p-1'], [vmi('p-0', { node: 'h1' }), vmi('p-1', { message: FIT_ERROR, zone: 'b' })]);
    assert.deepEqual(stuck.map((s) => [s.name, s.zone, s.message]), [['p-1', 'b', FIT_ERROR]]);
  });

  it('while a VM of the pool is being deleted (or one this operation deleted is still there) the verdict waits for the scheduler\'s next try', () => {
    const released = new Set<string>();
    const watch = new PlacementWatch(released);
    assert.deepEqual(watch.stuck(['p-3'], [vmi('p-0', { deleting: true, node: 'h1' }), vmi('p-3', { message: FIT_ERROR })]), []);
    // The deleted VM is gone, but the condition is the one written while it still held the room: stale.
    assert.deepEqual(watch.stuck(['p-3'], [vmi('p-3', { message: FIT_ERROR })]), []);
    // The scheduler tried again and still found no room: a new verdict, trusted.
    const again = '0/3 nodes are available: 2 Insufficient cpu, 1 node(s) were unschedulable. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling..';
    assert.deepEqual(watch.stuck(['p-3'], [vmi('p-3', { message: again })]).map((s) => s.message), [again]);
  });

  it('a verdict seen first after this operation deleted VMs is not trusted until it changes', () => {
    const watch = new PlacementWatch(new Set(['p-0']));
    assert.deepEqual(watch.stuck(['p-3'], [vmi('p-3', { message: FIT_ERROR })]), []);
    assert.deepEqual(watch.stuck(['p-3'], [vmi('p-3', { message: FIT_ERROR })]), []);
    assert.equal(watch.stuck(['p-3'], [vmi('p-3', { message: FIT_ERROR, uid: 'a-new-vmi' })]).length, 1, 'a new VMI is a new verdict');
  });

  it('a verdict found to have room is left to the scheduler, not reported again', () => {
    const watch = new PlacementWatch(new Set());
    const first = watch.stuck(['p-1'], [vmi('p-1', { message: FIT_ERROR })]);
    watch.judge(first);
    assert.deepEqual(watch.stuck(['p-1'], [vmi('p-1', { message: FIT_ERROR })]), []);
  });

  it('counts the pool\'s VMs not placed yet (demand) and placed (kept), per zone, by their launcher pods when read', () => {
    const vmis = [vmi('p-0', { node: 'h1', zone: 'a' }), vmi('p-1', { message: FIT_ERROR, zone: 'b' }), vmi('p-2', { zone: 'b' }), vmi('p-3', { deleting: true, zone: 'a' })];
    assert.deepEqual(placementOf(vmis, true), { waiting: [{ zone: 'b', count: 2 }], placed: [{ zone: 'a', count: 1 }] });
    assert.deepEqual(placementOf(vmis, true, new Set(['p-0', 'p-2'])), { waiting: [{ zone: 'b', count: 1 }], placed: [{ zone: 'a', count: 1 }, { zone: 'b', count: 1 }] });
    assert.deepEqual(placementOf(vmis, false).waiting, [{ count: 2 }]);
  });

  it('says which VMs, in the scheduler\'s words, then the capacity now and what could not be read', () => {
    const err = unplacedError('team/p', [{ name: 'p-1', message: FIT_ERROR, zone: 'b', signature: 's' }], { problems: ['zone "b" can take 0 of 1 new VMs (…)'], warnings: ['capacity: could not read the pods\' requests (forbidden: …)'] });
    assert.equal(err.code, 'Unschedulable');
    assert.equal(
      err.message,
      'Machine pool team/p: 1 VM cannot be placed on any host (the scheduler\'s reason below), so waiting for it would only run out the timeout:\n' +
        `  - VirtualMachine team/p-1 (zone b): ${FIT_ERROR}\n` +
        'Capacity now:\n  - zone "b" can take 0 of 1 new VMs (…)\n' +
        'Not read:\n  - capacity: could not read the pods\' requests (forbidden: …)\n' +
        'Make room (the options above: fewer or smaller VMs, more hosts, a higher overcommit-config, or stop other VMs), then run up again: what was made so far is recorded, and the next up carries on from it.',
    );
  });
});
