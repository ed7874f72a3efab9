import assert from 'node:assert/strict';
import { expectStatus, lb, lbKind, newStore, svc, svcKind, vm, vmKind } from './fixtures';

describe('ObjectStore patch (json, merge, strategic)', () => {
  it('merge patch without resourceVersion is unconditional, even for CRDs', () => {
    const { store } = newStore();
    store.create(lbKind, lb('lb1'));
    const { object, created } = store.patch(lbKind, 'default', 'lb1', 'merge', { metadata: { labels: { env: 'prod' } } });
    assert.equal(created, false);
    assert.deepEqual(object.metadata.labels, { env: 'prod' });
  });

  it('a resourceVersion inside the patch is a precondition (409 when stale)', () => {
    const { store } = newStore();
    const a = store.create(lbKind, lb('lb1'));
    store.patch(lbKind, 'default', 'lb1', 'merge', { metadata: { resourceVersion: a.metadata.resourceVersion, labels: { a: '1' } } });
    expectStatus(
      () => store.patch(lbKind, 'default', 'lb1', 'merge', { metadata: { resourceVersion: a.metadata.resourceVersion, labels: { a: '2' } } }),
      409,
      'Conflict',
    );
    // json-patch `test` on the resourceVersion as kubectl's migration patch does it
    expectStatus(
      () => store.patch(lbKind, 'default', 'lb1', 'json', [{ op: 'test', path: '/metadata/resourceVersion', value: a.metadata.resourceVersion }]),
      422,
      'Invalid',
    );
  });

  it('415 for strategic merge on a CRD, even when the object is missing', () => {
    const { store } = newStore();
    expectStatus(() => store.patch(lbKind, 'default', 'nope', 'strategic', {}), 415, 'UnsupportedMediaType');
  });

  it('404 for a non-apply patch of a missing object', () => {
    const { store } = newStore();
    expectStatus(() => store.patch(lbKind, 'default', 'nope', 'merge', {}), 404, 'NotFound');
  });

  it('json patch through the store, body as text too', () => {
    const { store } = newStore();
    store.create(lbKind, lb('lb1'));
    const out = store.patch(lbKind, 'default', 'lb1', 'json', '[{"op":"replace","path":"/spec/ipam","value":"pool"}]').object;
    assert.deepEqual(out.spec, { ipam: 'pool' });
    assert.equal(out.metadata.generation, 2);
    expectStatus(() => store.patch(lbKind, 'default', 'lb1', 'json', '{not json'), 400, 'BadRequest');
    expectStatus(() => store.patch(lbKind, 'default', 'lb1', 'json', { op: 'add' }), 400, 'BadRequest');
  });

  it('strategic merge on a built-in merges ports by key', () => {
    const { store } = newStore();
    store.create(svcKind, svc('s1', { ports: [{ port: 80, name: 'http' }, { port: 443, name: 'https' }] }));
    const out = store.patch(svcKind, 'default', 's1', 'strategic', { spec: { ports: [{ port: 443, targetPort: 8443 }, { port: 80, $patch: 'delete' }] } }).object;
    // protocol was defaulted on create (the Service strategy), the patch changed only targetPort.
    assert.deepEqual((out.spec as Record<string, unknown>).ports, [{ port: 443, name: 'https', protocol: 'TCP', targetPort: 8443 }]);
  });

  it('a patch may not change name, apiVersion or kind (400)', () => {
    const { store } = newStore();
    store.create(lbKind, lb('lb1'));
    expectStatus(() => store.patch(lbKind, 'default', 'lb1', 'merge', { metadata: { name: 'other' } }), 400, 'BadRequest');
    expectStatus(() => store.patch(lbKind, 'default', 'lb1', 'merge', { kind: 'IPPool' }), 400, 'BadRequest');
  });

  it('a no-op patch keeps the resourceVersion', () => {
    const { store } = newStore();
    const a = store.create(lbKind, lb('lb1', { ipam: 'dhcp' }, { labels: { a: '1' } }));
    const out = store.patch(lbKind, 'default', 'lb1', 'merge', { metadata: { labels: { a: '1' } }, spec: { ipam: 'dhcp' } }).object;
    assert.equal(out.metadata.resourceVersion, a.metadata.resourceVersion);
  });

  it('status patches: only .status changes, and /status on a kind without it is 404', () => {
    const { store } = newStore();
    store.create(vmKind, vm('v1'));
    const out = store.patch(vmKind, 'default', 'v1', 'merge', { spec: { running: true }, status: { ready: true } }, { subresource: 'status' }).object;
    assert.deepEqual(out.status, { ready: true });
    assert.deepEqual(out.spec, { running: false });
    assert.equal(out.metadata.generation, 1);
    const main = store.patch(vmKind, 'default', 'v1', 'merge', { status: { ready: false } }).object;
    assert.deepEqual(main.status, { ready: true }, 'a main-resource patch keeps .status');
    store.create(lbKind, lb('lb1'));
    expectStatus(() => store.patch(lbKind, 'default', 'lb1', 'merge', { status: {} }, { subresource: 'status' }), 404, 'NotFound');
  });

  it('force on a non-apply patch is 422', () => {
    const { store } = newStore();
    store.create(lbKind, lb('lb1'));
    const e = expectStatus(() => store.patch(lbKind, 'default', 'lb1', 'merge', {}, { force: true }), 422, 'Invalid');
    assert.equal(e.message, 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
  });

  it('dry-run patch returns the result and stores nothing', () => {
    const { store } = newStore();
    store.create(lbKind, lb('lb1'));
    const rv = store.resourceVersion();
    const out = store.patch(lbKind, 'default', 'lb1', 'merge', { spec: { ipam: 'pool' } }, { dryRun: true }).object;
    assert.deepEqual(out.spec, { ipam: 'pool' });
    assert.equal(store.resourceVersion(), rv);
    assert.deepEqual(store.get(lbKind, 'default', 'lb1')!.spec, { ipam: 'dhcp' });
  });
});
