import assert from 'node:assert/strict';
import { KubeObject, WatchEvent } from '../../../../emulator/api/types';
import { expectStatus, lb, lbKind, newStore, poolKind, svc, svcKind } from './fixtures';

describe('ObjectStore delete', () => {
  it('removes an object without finalizers and answers the Success Status with plural details', () => {
    const { store } = newStore();
    const a = store.create(lbKind, lb('lb1'));
    const res = store.delete(lbKind, 'default', 'lb1');
    assert.equal(res.object, undefined);
    assert.deepEqual(res.status, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'lb1', group: 'loadbalancer.harvesterhci.io', kind: 'loadbalancers', uid: a.metadata.uid },
      code: 200,
    });
    assert.equal(store.get(lbKind, 'default', 'lb1'), undefined);
    assert.equal(Number(store.resourceVersion()), Number(a.metadata.resourceVersion) + 1);
  });

  it('core kinds answer without a group in details', () => {
    const { store } = newStore();
    store.create(svcKind, svc('s1'));
    const res = store.delete(svcKind, 'default', 's1');
    assert.deepEqual(res.status!.details, { name: 's1', kind: 'services', uid: (res.status!.details as Record<string, unknown>).uid });
  });

  it('404 for a missing object', () => {
    const { store } = newStore();
    expectStatus(() => store.delete(lbKind, 'default', 'nope'), 404, 'NotFound');
  });

  it('emits DELETED with the last state stamped with the deletion resourceVersion', async () => {
    const { store } = newStore();
    const a = store.create(lbKind, lb('lb1', { ipam: 'pool' }));
    const events: WatchEvent[] = [];
    store.watch(lbKind, { resourceVersion: a.metadata.resourceVersion }, (e) => events.push(e));
    store.delete(lbKind, 'default', 'lb1');
    await store.settle();
    assert.equal(events.length, 1);
    assert.equal(events[0].type, 'DELETED');
    const obj = events[0].object as KubeObject;
    assert.equal(obj.metadata.resourceVersion, store.resourceVersion());
    assert.deepEqual(obj.spec, { ipam: 'pool' });
  });

  it('with finalizers: sets deletionTimestamp, grace 0, bumps generation, emits MODIFIED and returns the object', async () => {
    const { store, clock } = newStore();
    const a = store.create(lbKind, lb('lb1', { ipam: 'dhcp' }, { finalizers: ['wrangler.cattle.io/harvester-lb-controller'] }));
    const events: string[] = [];
    store.watch(lbKind, { resourceVersion: a.metadata.resourceVersion }, (e) => events.push(e.type));
    clock.advance(5000);
    const res = store.delete(lbKind, 'default', 'lb1');
    const o = res.object!;
    assert.equal(res.status, undefined);
    assert.equal(o.metadata.deletionTimestamp, '2026-01-01T00:00:05Z');
    assert.equal(o.metadata.deletionGracePeriodSeconds, 0);
    assert.equal(o.metadata.generation, 2);
    assert.equal(Number(o.metadata.resourceVersion), Number(a.metadata.resourceVersion) + 1);
    // A repeated DELETE changes nothing.
    const again = store.delete(lbKind, 'default', 'lb1').object!;
    assert.equal(again.metadata.resourceVersion, o.metadata.resourceVersion);
    await store.settle();
    assert.deepEqual(events, ['MODIFIED']);
  });

  it('a patch that removes the last finalizer completes the deletion', () => {
    const { store } = newStore();
    store.create(lbKind, lb('lb1', { ipam: 'dhcp' }, { finalizers: ['example.com/x'] }));
    store.delete(lbKind, 'default', 'lb1');
    const { object } = store.patch(lbKind, 'default', 'lb1', 'merge', { metadata: { finalizers: null } });
    assert.ok(object.metadata.deletionTimestamp);
    assert.equal(store.get(lbKind, 'default', 'lb1'), undefined);
  });

  it('checks uid and resourceVersion preconditions (409)', () => {
    const { store } = newStore();
    const a = store.create(lbKind, lb('lb1'));
    const u = expectStatus(() => store.delete(lbKind, 'default', 'lb1', { preconditions: { uid: 'x' } }), 409, 'Conflict');
    assert.match(u.message, /Precondition failed: UID in precondition: x, UID in object meta: /);
    const r = expectStatus(() => store.delete(lbKind, 'default', 'lb1', { preconditions: { resourceVersion: '1' } }), 409, 'Conflict');
    assert.match(r.message, /Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: \d+/);
    store.delete(lbKind, 'default', 'lb1', { preconditions: { uid: a.metadata.uid, resourceVersion: a.metadata.resourceVersion } });
    assert.equal(store.get(lbKind, 'default', 'lb1'), undefined);
  });

  it('dry-run delete runs the checks and changes nothing', async () => {
    const { store } = newStore();
    store.create(lbKind, lb('lb1'));
    store.create(lbKind, lb('lb2', { ipam: 'dhcp' }, { finalizers: ['example.com/x'] }));
    const rv = store.resourceVersion();
    const events: unknown[] = [];
    store.watch(lbKind, { resourceVersion: rv }, (e) => events.push(e));
    assert.equal(store.delete(lbKind, 'default', 'lb1', { dryRun: true }).status!.status, 'Success');
    const held = store.delete(lbKind, 'default', 'lb2', { dryRun: true }).object!;
    assert.ok(held.metadata.deletionTimestamp);
    assert.ok(store.get(lbKind, 'default', 'lb1'));
    assert.equal(store.get(lbKind, 'default', 'lb2')!.metadata.deletionTimestamp, undefined);
    assert.equal(store.resourceVersion(), rv);
    expectStatus(() => store.delete(lbKind, 'default', 'lb1', { dryRun: true, preconditions: { uid: 'x' } }), 409);
    await store.settle();
    assert.equal(events.length, 0);
  });

  it('Foreground adds foregroundDeletion, Orphan adds orphan (each replacing the other)', () => {
    const { store } = newStore();
    store.create(lbKind, lb('lb1', { ipam: 'dhcp' }, { finalizers: ['example.com/x'] }));
    const f = store.delete(lbKind, 'default', 'lb1', { propagationPolicy: 'Foreground' }).object!;
    assert.deepEqual(f.metadata.finalizers, ['example.com/x', 'foregroundDeletion']);
    const o = store.delete(lbKind, 'default', 'lb1', { propagationPolicy: 'Orphan' }).object!;
    assert.deepEqual(o.metadata.finalizers, ['example.com/x', 'orphan']);
    const b = store.delete(lbKind, 'default', 'lb1', { propagationPolicy: 'Background' }).object!;
    assert.deepEqual(b.metadata.finalizers, ['example.com/x']);
  });

  it('cluster-scoped delete ignores the namespace argument', () => {
    const { store } = newStore();
    store.create(poolKind, { apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'IPPool', metadata: { name: 'p1' } });
    assert.equal(store.delete(poolKind, 'default', 'p1').status!.status, 'Success');
  });
});
