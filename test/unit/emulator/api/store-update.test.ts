import assert from 'node:assert/strict';
import { KubeObject } from '../../../../emulator/api/types';
import { expectStatus, lb, lbKind, newStore, poolKind, svc, svcKind, vm, vmKind } from './fixtures';

function spec(o: KubeObject): Record<string, unknown> {
  return o.spec as Record<string, unknown>;
}

describe('ObjectStore update (PUT)', () => {
  it('stores a change, bumps resourceVersion and generation on a spec change', () => {
    const { store } = newStore();
    const a = store.create(lbKind, lb('lb1'));
    const b = store.update(lbKind, { ...a, spec: { ipam: 'pool' } });
    assert.equal(Number(b.metadata.resourceVersion), Number(a.metadata.resourceVersion) + 1);
    assert.equal(b.metadata.generation, 2);
    assert.equal(spec(store.get(lbKind, 'default', 'lb1')!).ipam, 'pool');
  });

  it('404 for a missing object', () => {
    const { store } = newStore();
    const e = expectStatus(() => store.update(lbKind, lb('nope', {}, { resourceVersion: '1' })), 404, 'NotFound');
    assert.equal(e.message, 'loadbalancers.loadbalancer.harvesterhci.io "nope" not found');
  });

  it('422 without resourceVersion on a CRD, with the plural in the message and details', () => {
    const { store } = newStore();
    store.create(lbKind, lb('lb1'));
    const e = expectStatus(() => store.update(lbKind, lb('lb1', { ipam: 'pool' })), 422, 'Invalid');
    assert.equal(
      e.message,
      'loadbalancers.loadbalancer.harvesterhci.io "lb1" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
    );
    assert.equal(e.status.details.kind, 'loadbalancers');
    assert.equal(e.status.details.causes[0].field, 'metadata.resourceVersion');
  });

  it('allows an unconditional update where the kind allows it (last write wins)', () => {
    const { store } = newStore();
    store.create(svcKind, svc('s1'));
    const out = store.update(svcKind, svc('s1', { ports: [{ port: 443 }] }));
    assert.deepEqual(spec(out).ports, [{ port: 443, protocol: 'TCP', targetPort: 443 }]);
  });

  it('409 Conflict on a stale resourceVersion', () => {
    const { store } = newStore();
    const a = store.create(lbKind, lb('lb1'));
    store.update(lbKind, { ...a, spec: { ipam: 'pool' } });
    const e = expectStatus(() => store.update(lbKind, { ...a, spec: { ipam: 'dhcp' } }), 409, 'Conflict');
    assert.equal(
      e.message,
      'Operation cannot be fulfilled on loadbalancers.loadbalancer.harvesterhci.io "lb1": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  it('409 when the body carries another uid', () => {
    const { store } = newStore();
    const a = store.create(lbKind, lb('lb1'));
    const e = expectStatus(() => store.update(lbKind, { ...a, metadata: { ...a.metadata, uid: 'other' } }), 409, 'Conflict');
    assert.match(e.message, /Precondition failed: UID in precondition: other, UID in object meta: /);
  });

  it('keeps server-owned metadata (creationTimestamp, uid) from the stored object', () => {
    const { store } = newStore();
    const a = store.create(lbKind, lb('lb1'));
    const b = store.update(lbKind, { ...a, metadata: { ...a.metadata, creationTimestamp: '1999-01-01T00:00:00Z', generation: 40 }, spec: { ipam: 'pool' } });
    assert.equal(b.metadata.creationTimestamp, a.metadata.creationTimestamp);
    assert.equal(b.metadata.uid, a.metadata.uid);
    assert.equal(b.metadata.generation, 2);
  });

  it('no-op writes keep the resourceVersion and emit no event', async () => {
    const { store } = newStore();
    const a = store.create(lbKind, lb('lb1', { ipam: 'dhcp' }, { labels: { a: '1' } }));
    const events: string[] = [];
    store.watch(lbKind, { resourceVersion: a.metadata.resourceVersion }, (e) => events.push(e.type));
    const rv = store.resourceVersion();
    const b = store.update(lbKind, { ...a, metadata: { ...a.metadata, finalizers: [] } });
    assert.equal(b.metadata.resourceVersion, a.metadata.resourceVersion);
    assert.equal(store.resourceVersion(), rv);
    await store.settle();
    assert.deepEqual(events, []);
  });

  describe('generation rules', () => {
    it('CRD without status subresource: a status write bumps generation, a metadata write does not', () => {
      const { store } = newStore();
      const a = store.create(lbKind, lb('lb1'));
      const b = store.update(lbKind, { ...a, status: { address: '10.0.0.5' } });
      assert.equal(b.metadata.generation, 2);
      const c = store.update(lbKind, { ...b, metadata: { ...b.metadata, labels: { x: 'y' } } });
      assert.equal(c.metadata.generation, 2);
      assert.notEqual(c.metadata.resourceVersion, b.metadata.resourceVersion);
    });

    it('CRD with status subresource: only spec changes bump it', () => {
      const { store } = newStore();
      const a = store.create(vmKind, vm('v1'));
      const s = store.update(vmKind, { ...a, status: { ready: true } }, { subresource: 'status' });
      assert.equal(s.metadata.generation, 1);
      const t = store.update(vmKind, { ...s, spec: { running: true } });
      assert.equal(t.metadata.generation, 2);
    });

    it('core kinds carry none', () => {
      const { store } = newStore();
      const a = store.create(svcKind, svc('s1'));
      const b = store.update(svcKind, { ...a, spec: { ports: [{ port: 1 }] } });
      assert.equal(b.metadata.generation, undefined);
    });
  });

  describe('status subresource', () => {
    it('a main-resource write keeps the stored .status', () => {
      const { store } = newStore();
      const a = store.create(vmKind, vm('v1'));
      const s = store.update(vmKind, { ...a, status: { ready: true } }, { subresource: 'status' });
      const m = store.update(vmKind, { ...s, spec: { running: true }, status: { ready: false, hacked: 1 } });
      assert.deepEqual(m.status, { ready: true });
      assert.equal(spec(m).running, true);
    });

    it('a /status write changes only .status (spec and labels ignored)', () => {
      const { store } = newStore();
      const a = store.create(vmKind, vm('v1', { running: false }));
      const s = store.update(
        vmKind,
        { ...a, metadata: { ...a.metadata, labels: { sneaky: 'yes' } }, spec: { running: true }, status: { phase: 'Running' } },
        { subresource: 'status' },
      );
      assert.deepEqual(s.status, { phase: 'Running' });
      assert.equal(spec(s).running, false);
      assert.equal(s.metadata.labels, undefined);
    });

    it('a /status write still needs a current resourceVersion', () => {
      const { store } = newStore();
      const a = store.create(vmKind, vm('v1'));
      store.update(vmKind, { ...a, spec: { running: true } });
      expectStatus(() => store.update(vmKind, { ...a, status: { x: 1 } }, { subresource: 'status' }), 409, 'Conflict');
    });

    it('a /status write to a kind without the subresource is 404 (unknown path)', () => {
      const { store } = newStore();
      const a = store.create(lbKind, lb('lb1'));
      const e = expectStatus(() => store.update(lbKind, { ...a, status: {} }, { subresource: 'status' }), 404, 'NotFound');
      assert.equal(e.message, 'the server could not find the requested resource');
    });
  });

  it('cluster-scoped objects update without a namespace', () => {
    const { store } = newStore();
    const p = store.create(poolKind, { apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'IPPool', metadata: { name: 'p1' }, spec: { a: 1 } });
    const q = store.update(poolKind, { ...p, spec: { a: 2 } });
    assert.deepEqual(q.spec, { a: 2 });
  });

  it('dry-run update returns the result without storing it', () => {
    const { store } = newStore();
    const a = store.create(lbKind, lb('lb1'));
    const b = store.update(lbKind, { ...a, spec: { ipam: 'pool' } }, { dryRun: true });
    assert.equal(spec(b).ipam, 'pool');
    assert.equal(b.metadata.generation, 2);
    assert.equal(b.metadata.resourceVersion, a.metadata.resourceVersion);
    assert.equal(spec(store.get(lbKind, 'default', 'lb1')!).ipam, 'dhcp');
  });

  describe('finalizers on a deleting object', () => {
    it('cannot gain finalizers (422 Forbidden cause)', () => {
      const { store } = newStore();
      store.create(lbKind, lb('lb1', { ipam: 'dhcp' }, { finalizers: ['example.com/a'] }));
      const held = store.delete(lbKind, 'default', 'lb1').object!;
      const e = expectStatus(
        () => store.update(lbKind, { ...held, metadata: { ...held.metadata, finalizers: ['example.com/a', 'example.com/b'] } }),
        422,
        'Invalid',
      );
      assert.equal(e.status.details.causes[0].reason, 'FieldValueForbidden');
      assert.match(e.message, /no new finalizers can be added if the object is being deleted, found new finalizers \[\]string\{"example.com\/b"\}/);
    });

    it('an update that empties them removes the object (DELETED)', async () => {
      const { store } = newStore();
      const a = store.create(lbKind, lb('lb1', { ipam: 'dhcp' }, { finalizers: ['example.com/a'] }));
      const events: { type: string; rv: string; fin: unknown }[] = [];
      store.watch(lbKind, { resourceVersion: a.metadata.resourceVersion }, (e) =>
        events.push({ type: e.type, rv: (e.object as KubeObject).metadata.resourceVersion!, fin: (e.object as KubeObject).metadata.finalizers }),
      );
      const held = store.delete(lbKind, 'default', 'lb1').object!;
      assert.ok(held.metadata.deletionTimestamp);
      const gone = store.update(lbKind, { ...held, metadata: { ...held.metadata, finalizers: [] } });
      assert.equal(store.get(lbKind, 'default', 'lb1'), undefined);
      assert.equal(gone.metadata.resourceVersion, store.resourceVersion());
      await store.settle();
      assert.deepEqual(events.map((e) => e.type), ['MODIFIED', 'DELETED']);
      assert.equal(events[1].rv, store.resourceVersion());
    });
  });

  it('rejects a body without a name (400) and a namespaced body without namespace (400)', () => {
    const { store } = newStore();
    expectStatus(() => store.update(lbKind, { ...lb(''), metadata: { namespace: 'default' } }), 400, 'BadRequest');
    expectStatus(() => store.update(lbKind, { ...lb('x'), metadata: { name: 'x' } }), 400, 'BadRequest');
  });
});
