import assert from 'node:assert/strict';
import { FieldSet, formatPath } from '../../../../emulator/api/managed-fields';
import { KubeObject } from '../../../../emulator/api/types';
import { expectStatus, lbKind, newStore, vmKind } from './fixtures';

function manifest(spec: Record<string, unknown>, meta: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'LoadBalancer', metadata: { name: 'lb1', namespace: 'default', ...meta }, spec };
}

function managers(o: KubeObject): string[] {
  return (o.metadata.managedFields ?? []).map((e) => `${e.manager}:${e.operation}${e.subresource ? `/${e.subresource}` : ''}`);
}

describe('managed fields', () => {
  it('round-trips paths through fieldsV1 and marks owned parents with "."', () => {
    const set = FieldSet.fromObject({ metadata: { name: 'x', labels: { app: 'a' } }, spec: { ipam: 'pool', listeners: [{ port: 1 }], empty: {} } });
    const v1 = set.toFieldsV1();
    assert.deepEqual(v1, { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:empty': {}, 'f:ipam': {}, 'f:listeners': {} } });
    assert.deepEqual(FieldSet.fromFieldsV1(v1).toArray().map(formatPath).sort(), ['.metadata.labels.app', '.spec.empty', '.spec.ipam', '.spec.listeners']);
    const parent = new FieldSet([['spec'], ['spec', 'a']]).toFieldsV1();
    assert.deepEqual(parent, { 'f:spec': { '.': {}, 'f:a': {} } });
    assert.equal(FieldSet.fromFieldsV1(parent).size, 2);
  });
});

describe('ObjectStore server-side apply', () => {
  it('requires a field manager (422 with the exact message)', () => {
    const { store } = newStore();
    const e = expectStatus(() => store.patch(lbKind, 'default', 'lb1', 'apply', manifest({ ipam: 'dhcp' })), 422, 'Invalid');
    assert.equal(e.message, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
  });

  it('creates when absent (created=true, generation 1, Apply entry) then updates (created=false)', () => {
    const { store } = newStore();
    const first = store.patch(lbKind, 'default', 'lb1', 'apply', manifest({ ipam: 'dhcp' }), { fieldManager: 'kubectl' });
    assert.equal(first.created, true);
    assert.equal(first.object.metadata.generation, 1);
    const entry = first.object.metadata.managedFields![0];
    assert.equal(entry.manager, 'kubectl');
    assert.equal(entry.operation, 'Apply');
    assert.equal(entry.apiVersion, 'loadbalancer.harvesterhci.io/v1beta1');
    assert.equal(entry.fieldsType, 'FieldsV1');
    assert.deepEqual(entry.fieldsV1, { 'f:spec': { 'f:ipam': {} } });
    const second = store.patch(lbKind, 'default', 'lb1', 'apply', manifest({ ipam: 'pool' }), { fieldManager: 'kubectl' });
    assert.equal(second.created, false);
    assert.deepEqual(second.object.spec, { ipam: 'pool' });
    assert.equal(second.object.metadata.generation, 2);
  });

  it('400 for an apply body without apiVersion or kind, naming what to send', () => {
    const { store } = newStore();
    const e = expectStatus(() => store.patch(lbKind, 'default', 'x', 'apply', { metadata: { name: 'x' }, spec: { ipam: 'dhcp' } }, { fieldManager: 'me' }), 400, 'BadRequest');
    assert.match(e.message, /^the apply patch for LoadBalancer "x" has no apiVersion or kind; send the full manifest \(apiVersion: loadbalancer\.harvesterhci\.io\/v1beta1, kind: LoadBalancer\)$/);
  });

  it('accepts YAML text bodies', () => {
    const { store } = newStore();
    const yaml = 'apiVersion: loadbalancer.harvesterhci.io/v1beta1\nkind: LoadBalancer\nmetadata:\n  name: lb1\nspec:\n  ipam: pool\n';
    const out = store.patch(lbKind, 'default', 'lb1', 'apply', yaml, { fieldManager: 'kubectl' }).object;
    assert.deepEqual(out.spec, { ipam: 'pool' });
    assert.equal(out.metadata.namespace, 'default');
    expectStatus(() => store.patch(lbKind, 'default', 'lb1', 'apply', 'a: [', { fieldManager: 'kubectl' }), 400, 'BadRequest');
  });

  it('re-applying the same manifest is a no-op (same resourceVersion)', () => {
    const { store, clock } = newStore();
    const a = store.patch(lbKind, 'default', 'lb1', 'apply', manifest({ ipam: 'dhcp' }), { fieldManager: 'kubectl' }).object;
    clock.advance(60_000);
    const b = store.patch(lbKind, 'default', 'lb1', 'apply', manifest({ ipam: 'dhcp' }), { fieldManager: 'kubectl' }).object;
    assert.equal(b.metadata.resourceVersion, a.metadata.resourceVersion);
  });

  it('removes fields the applier no longer sends, labels per key', () => {
    const { store } = newStore();
    store.patch(lbKind, 'default', 'lb1', 'apply', manifest({ ipam: 'dhcp', ipPool: 'p' }, { labels: { a: '1', b: '2' } }), { fieldManager: 'kubectl' });
    // Another writer (not tracked) adds a label; the applier's removal must not touch it.
    store.patch(lbKind, 'default', 'lb1', 'merge', { metadata: { labels: { c: '3' } } });
    const out = store.patch(lbKind, 'default', 'lb1', 'apply', manifest({ ipam: 'dhcp' }, { labels: { a: '1' } }), { fieldManager: 'kubectl' }).object;
    assert.deepEqual(out.spec, { ipam: 'dhcp' });
    assert.deepEqual(out.metadata.labels, { a: '1', c: '3' });
  });

  it('keeps a dropped field that another applier co-owns', () => {
    const { store } = newStore();
    store.patch(lbKind, 'default', 'lb1', 'apply', manifest({ ipam: 'dhcp', ipPool: 'p' }), { fieldManager: 'one' });
    store.patch(lbKind, 'default', 'lb1', 'apply', manifest({ ipPool: 'p' }), { fieldManager: 'two' });
    const out = store.patch(lbKind, 'default', 'lb1', 'apply', manifest({ ipam: 'dhcp' }), { fieldManager: 'one' }).object;
    assert.deepEqual(out.spec, { ipam: 'dhcp', ipPool: 'p' });
    assert.deepEqual(managers(out), ['one:Apply', 'two:Apply']);
  });

  it('409 on a conflicting value owned by another applier; force moves ownership', () => {
    const { store } = newStore();
    store.patch(lbKind, 'default', 'lb1', 'apply', manifest({ ipam: 'dhcp', workloadType: 'vm' }), { fieldManager: 'kubectl' });
    const e = expectStatus(() => store.patch(lbKind, 'default', 'lb1', 'apply', manifest({ ipam: 'pool' }), { fieldManager: 'pulumi' }), 409, 'Conflict');
    assert.equal(e.message, 'Apply failed with 1 conflict: conflict with "kubectl": .spec.ipam');
    assert.deepEqual(e.status.details.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl"', field: '.spec.ipam' }]);
    // Same value: shared ownership, no conflict.
    store.patch(lbKind, 'default', 'lb1', 'apply', manifest({ ipam: 'dhcp' }), { fieldManager: 'pulumi' });
    const forced = store.patch(lbKind, 'default', 'lb1', 'apply', manifest({ ipam: 'pool' }), { fieldManager: 'pulumi', force: true }).object;
    assert.deepEqual(forced.spec, { ipam: 'pool', workloadType: 'vm' });
    const kubectl = forced.metadata.managedFields!.find((m) => m.manager === 'kubectl')!;
    assert.deepEqual(kubectl.fieldsV1, { 'f:spec': { 'f:workloadType': {} } });
  });

  it('lists are atomic: a different list is one conflict on the list path', () => {
    const { store } = newStore();
    store.patch(lbKind, 'default', 'lb1', 'apply', manifest({ listeners: [{ port: 80 }] }), { fieldManager: 'a' });
    const e = expectStatus(() => store.patch(lbKind, 'default', 'lb1', 'apply', manifest({ listeners: [{ port: 81 }] }), { fieldManager: 'b' }), 409);
    assert.equal(e.message, 'Apply failed with 1 conflict: conflict with "a": .spec.listeners');
  });

  it('a resourceVersion in the applied manifest is a precondition', () => {
    const { store } = newStore();
    const a = store.patch(lbKind, 'default', 'lb1', 'apply', manifest({ ipam: 'dhcp' }), { fieldManager: 'k' }).object;
    store.patch(lbKind, 'default', 'lb1', 'apply', manifest({ ipam: 'pool' }), { fieldManager: 'k' });
    expectStatus(
      () => store.patch(lbKind, 'default', 'lb1', 'apply', manifest({ ipam: 'dhcp' }, { resourceVersion: a.metadata.resourceVersion }), { fieldManager: 'k' }),
      409,
      'Conflict',
    );
  });

  it('checks apiVersion/kind/name of the manifest (400)', () => {
    const { store } = newStore();
    const body = manifest({});
    delete body.kind;
    expectStatus(() => store.patch(lbKind, 'default', 'lb1', 'apply', body, { fieldManager: 'k' }), 400, 'BadRequest');
    const e = expectStatus(() => store.patch(lbKind, 'default', 'other', 'apply', manifest({}), { fieldManager: 'k' }), 400, 'BadRequest');
    assert.equal(e.message, 'the name of the object (lb1) does not match the name on the URL (other)');
  });

  it('main-resource apply on a kind with status subresource neither owns nor changes .status; /status apply does', () => {
    const { store } = newStore();
    const vmManifest = (extra: Record<string, unknown>) => ({ apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine', metadata: { name: 'v1', namespace: 'default' }, ...extra });
    const created = store.patch(vmKind, 'default', 'v1', 'apply', vmManifest({ spec: { running: true }, status: { ready: true } }), { fieldManager: 'user' }).object;
    assert.equal(created.status, undefined);
    assert.deepEqual(created.metadata.managedFields![0].fieldsV1, { 'f:spec': { 'f:running': {} } });
    const st = store.patch(vmKind, 'default', 'v1', 'apply', vmManifest({ status: { ready: true }, spec: { running: false } }), { fieldManager: 'ctl', subresource: 'status' }).object;
    assert.deepEqual(st.status, { ready: true });
    assert.deepEqual(st.spec, { running: true });
    // Served as the apiserver sorts them (sortEncodedManagedFields): operation, time, then manager name.
    assert.deepEqual(managers(st), ['ctl:Apply/status', 'user:Apply']);
    expectStatus(() => store.patch(vmKind, 'default', 'nope', 'apply', vmManifest({ metadata: { name: 'nope' } }), { fieldManager: 'ctl', subresource: 'status' }), 404);
  });

  it('dry-run apply creates nothing', () => {
    const { store } = newStore();
    const out = store.patch(lbKind, 'default', 'lb1', 'apply', manifest({ ipam: 'dhcp' }), { fieldManager: 'k', dryRun: true });
    assert.equal(out.created, true);
    assert.equal(store.get(lbKind, 'default', 'lb1'), undefined);
  });

  // structured-merge-diff merge/update.go: prune keeps what any manager, Apply or Update, still owns, and
  // conflicts are exact paths another manager owns among those the apply adds or modifies.
  it('a field the applier drops stays while an Update manager owns it', () => {
    const { store } = newStore();
    store.patch(lbKind, 'default', 'lb1', 'apply', manifest({ ipam: 'dhcp', description: 'd' }), { fieldManager: 'k' });
    store.patch(lbKind, 'default', 'lb1', 'merge', { spec: { description: 'edited' } }, { fieldManager: 'kubectl-edit' });
    const out = store.patch(lbKind, 'default', 'lb1', 'apply', manifest({ ipam: 'dhcp' }), { fieldManager: 'k' }).object;
    assert.deepEqual(out.spec, { ipam: 'dhcp', description: 'edited' });
    assert.deepEqual(managers(out), ['k:Apply', 'kubectl-edit:Update']);
  });

  it('owning a map (".") is no claim on a new key inside it: adding a label beside an Update manager is no conflict', () => {
    const { store } = newStore();
    store.create(lbKind, { ...manifest({ ipam: 'dhcp' }), metadata: { name: 'lb1', namespace: 'default', labels: { a: '1' } } } as unknown as KubeObject, { fieldManager: 'creator' });
    const out = store.patch(lbKind, 'default', 'lb1', 'apply', manifest({ ipam: 'dhcp' }, { labels: { b: '2' } }), { fieldManager: 'k' }).object;
    assert.deepEqual(out.metadata.labels, { a: '1', b: '2' });
    const e = expectStatus(() => store.patch(lbKind, 'default', 'lb1', 'apply', manifest({ ipam: 'dhcp' }, { labels: { a: '9' } }), { fieldManager: 'k' }), 409, 'Conflict');
    assert.equal(e.message, 'Apply failed with 1 conflict: conflict with "creator" using loadbalancer.harvesterhci.io/v1beta1: .metadata.labels.a');
  });
});
