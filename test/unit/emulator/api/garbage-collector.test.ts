import assert from 'node:assert/strict';
import { KubeObject, OwnerReference, WatchEvent } from '../../../../emulator/api/types';
import { lb, lbKind, newStore, nsKind, vm, vmiKind, vmKind } from './fixtures';

function ownerRef(owner: KubeObject, extra: Partial<OwnerReference> = {}): OwnerReference {
  return { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name!, uid: owner.metadata.uid!, ...extra };
}

function vmi(name: string, meta: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachineInstance', metadata: { name, namespace: 'default', ...meta }, spec: {} };
}

describe('garbage collector', () => {
  it('Background: deleting an owner deletes its dependents after the DELETE answered', async () => {
    const { store, errors } = newStore();
    const owner = store.create(vmKind, vm('v1'));
    store.create(vmiKind, vmi('v1', { ownerReferences: [ownerRef(owner, { controller: true })] }));
    store.delete(vmKind, 'default', 'v1');
    assert.ok(store.get(vmiKind, 'default', 'v1'), 'dependents go asynchronously');
    await store.settle();
    assert.equal(store.get(vmiKind, 'default', 'v1'), undefined);
    assert.deepEqual(errors, []);
  });

  it('a dependent with another existing owner only loses the dangling reference', async () => {
    const { store } = newStore();
    const a = store.create(vmKind, vm('a'));
    const b = store.create(vmKind, vm('b'));
    store.create(vmiKind, vmi('shared', { ownerReferences: [ownerRef(a), ownerRef(b)] }));
    store.delete(vmKind, 'default', 'a');
    await store.settle();
    const d = store.get(vmiKind, 'default', 'shared')!;
    assert.deepEqual(d.metadata.ownerReferences!.map((r) => r.name), ['b']);
  });

  it('Foreground: dependents go first, then the owner; a blocking dependent with a finalizer holds it', async () => {
    const { store } = newStore();
    const owner = store.create(vmKind, vm('v1'));
    store.create(vmiKind, vmi('v1', { finalizers: ['example.com/hold'], ownerReferences: [ownerRef(owner, { blockOwnerDeletion: true })] }));
    const order: string[] = [];
    store.watch(vmKind, { resourceVersion: store.resourceVersion() }, (e) => order.push(`vm ${e.type}`));
    store.watch(vmiKind, { resourceVersion: store.resourceVersion() }, (e) => order.push(`vmi ${e.type}`));
    const marked = store.delete(vmKind, 'default', 'v1', { propagationPolicy: 'Foreground' }).object!;
    assert.deepEqual(marked.metadata.finalizers, ['foregroundDeletion']);
    await store.settle();
    assert.ok(store.get(vmKind, 'default', 'v1'), 'owner waits for the blocking dependent');
    assert.ok(store.get(vmiKind, 'default', 'v1')!.metadata.deletionTimestamp);
    const d = store.get(vmiKind, 'default', 'v1')!;
    store.update(vmiKind, { ...d, metadata: { ...d.metadata, finalizers: [] } });
    await store.settle();
    assert.equal(store.get(vmKind, 'default', 'v1'), undefined);
    // Removing the owner's last finalizer deletes it at once: no MODIFIED in between.
    assert.deepEqual(order, ['vm MODIFIED', 'vmi MODIFIED', 'vmi DELETED', 'vm DELETED']);
  });

  it('Foreground without dependents removes the owner once the GC runs', async () => {
    const { store } = newStore();
    store.create(lbKind, lb('lb1'));
    store.delete(lbKind, 'default', 'lb1', { propagationPolicy: 'Foreground' });
    assert.ok(store.get(lbKind, 'default', 'lb1'));
    await store.settle();
    assert.equal(store.get(lbKind, 'default', 'lb1'), undefined);
  });

  it('Orphan: dependents keep existing without the owner reference', async () => {
    const { store } = newStore();
    const owner = store.create(vmKind, vm('v1'));
    store.create(vmiKind, vmi('v1', { ownerReferences: [ownerRef(owner)] }));
    store.delete(vmKind, 'default', 'v1', { propagationPolicy: 'Orphan' });
    await store.settle();
    assert.equal(store.get(vmKind, 'default', 'v1'), undefined);
    const d = store.get(vmiKind, 'default', 'v1')!;
    assert.equal(d.metadata.ownerReferences, undefined);
  });

  it('cascades through several levels', async () => {
    const { store } = newStore();
    const a = store.create(vmKind, vm('a'));
    const b = store.create(vmiKind, vmi('b', { ownerReferences: [ownerRef(a)] }));
    store.create(lbKind, lb('c', { ipam: 'dhcp' }, { ownerReferences: [ownerRef(b)] }));
    store.delete(vmKind, 'default', 'a');
    await store.settle();
    assert.equal(store.get(vmiKind, 'default', 'b'), undefined);
    assert.equal(store.get(lbKind, 'default', 'c'), undefined);
  });

  it('reports a refused dependent deletion instead of throwing, and leaves the dependent', async () => {
    const { store, errors } = newStore();
    store.addAdmissionHook({
      name: 'validator.test',
      resources: ['virtualmachineinstances.kubevirt.io'],
      validate: (req) => {
        if (req.operation === 'DELETE') throw new Error('no');
      },
    });
    const owner = store.create(vmKind, vm('v1'));
    store.create(vmiKind, vmi('v1', { ownerReferences: [ownerRef(owner)] }));
    store.delete(vmKind, 'default', 'v1');
    await store.settle();
    assert.ok(store.get(vmiKind, 'default', 'v1'));
    assert.equal(errors.length, 1);
    assert.match(String((errors[0] as Error).message), /failed calling webhook "validator.test"/);
  });

  describe('namespace deletion', () => {
    it('marks the namespace Terminating, deletes its content, then removes it', async () => {
      const { store } = newStore();
      store.create(nsKind, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
      store.create(lbKind, { ...lb('a'), metadata: { name: 'a', namespace: 'team' } });
      store.create(lbKind, { ...lb('b'), metadata: { name: 'b', namespace: 'team', finalizers: ['example.com/hold'] } });
      store.create(lbKind, lb('keep'));
      const events: WatchEvent[] = [];
      store.watch(nsKind, { resourceVersion: store.resourceVersion() }, (e) => events.push(e));
      const marked = store.delete(nsKind, undefined, 'team').object!;
      assert.equal((marked.status as Record<string, unknown>).phase, 'Terminating');
      await store.settle();
      assert.equal(store.get(lbKind, 'team', 'a'), undefined);
      assert.ok(store.get(nsKind, undefined, 'team'), 'held by content with a finalizer');
      const b = store.get(lbKind, 'team', 'b')!;
      store.update(lbKind, { ...b, metadata: { ...b.metadata, finalizers: [] } });
      await store.settle();
      assert.equal(store.get(nsKind, undefined, 'team'), undefined);
      assert.ok(store.get(lbKind, 'default', 'keep'));
      assert.deepEqual(events.map((e) => e.type), ['MODIFIED', 'DELETED']);
    });

    it('an empty namespace is removed by the follow-up step', async () => {
      const { store } = newStore();
      store.create(nsKind, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'empty' } });
      store.delete(nsKind, undefined, 'empty');
      assert.ok(store.get(nsKind, undefined, 'empty'));
      await store.settle();
      assert.equal(store.get(nsKind, undefined, 'empty'), undefined);
    });
  });
});
