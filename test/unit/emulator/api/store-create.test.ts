import assert from 'node:assert/strict';
import { expectStatus, lb, lbKind, newStore, nsKind, poolKind, svc, svcKind, vm, vmKind } from './fixtures';

describe('ObjectStore create', () => {
  it('sets uid, creationTimestamp in whole seconds, generation 1 and the next resourceVersion', () => {
    const { store, clock } = newStore();
    clock.advance(1234);
    const before = Number(store.resourceVersion());
    const out = store.create(lbKind, lb('lb1'));
    assert.match(out.metadata.uid!, /^[0-9a-f-]{36}$/);
    assert.equal(out.metadata.creationTimestamp, '2026-01-01T00:00:01Z');
    assert.equal(out.metadata.generation, 1);
    assert.equal(out.metadata.resourceVersion, String(before + 1));
    assert.equal(store.resourceVersion(), String(before + 1));
    assert.equal(out.apiVersion, 'loadbalancer.harvesterhci.io/v1beta1');
  });

  it('keeps no generation on core kinds without one', () => {
    const { store } = newStore();
    const out = store.create(svcKind, svc('s1', { ports: [{ port: 80 }] }, { generation: 7 }));
    assert.equal(out.metadata.generation, undefined);
  });

  it('overwrites client uid/creationTimestamp and ignores deletionTimestamp and managedFields', () => {
    const { store } = newStore();
    const out = store.create(
      lbKind,
      lb('lb1', { ipam: 'dhcp' }, {
        uid: 'mine',
        creationTimestamp: '2000-01-01T00:00:00.000Z',
        deletionTimestamp: '2000-01-01T00:00:00Z',
        managedFields: [{ manager: 'x', operation: 'Apply' }],
      }),
    );
    assert.notEqual(out.metadata.uid, 'mine');
    assert.equal(out.metadata.creationTimestamp, '2026-01-01T00:00:00Z');
    assert.equal(out.metadata.deletionTimestamp, undefined);
    assert.equal(out.metadata.managedFields, undefined);
  });

  it('rejects a client resourceVersion with a 500 and no reason', () => {
    const { store } = newStore();
    const e = expectStatus(() => store.create(lbKind, lb('lb1', { ipam: 'dhcp' }, { resourceVersion: '5' })), 500);
    assert.equal(e.status.reason, undefined);
    assert.equal(e.status.message, 'resourceVersion should not be set on objects to be created');
  });

  it('drops .status on create when the kind has a status subresource, keeps it otherwise', () => {
    const { store } = newStore();
    const v = store.create(vmKind, { ...vm('v1'), status: { ready: true } });
    assert.equal(v.status, undefined);
    const l = store.create(lbKind, { ...lb('lb1'), status: { address: '10.0.0.1' } });
    assert.deepEqual(l.status, { address: '10.0.0.1' });
  });

  it('answers 409 AlreadyExists with plural details', () => {
    const { store } = newStore();
    store.create(lbKind, lb('lb1'));
    const e = expectStatus(() => store.create(lbKind, lb('lb1')), 409, 'AlreadyExists');
    assert.equal(e.message, 'loadbalancers.loadbalancer.harvesterhci.io "lb1" already exists');
    assert.deepEqual(e.status.details, { name: 'lb1', group: 'loadbalancer.harvesterhci.io', kind: 'loadbalancers' });
  });

  it('generates names from generateName with the apiserver alphabet', () => {
    const { store } = newStore();
    const out = store.create(lbKind, { ...lb(''), metadata: { generateName: 'lb-', namespace: 'default' } });
    assert.match(out.metadata.name!, /^lb-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it('retries generateName on collision and is deterministic with an injected random source', () => {
    let n = 0;
    const seq = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.5, 0.5, 0.5, 0.5, 0.5];
    const { store } = newStore({ random: () => seq[n++ % seq.length] });
    const a = store.create(lbKind, { ...lb(''), metadata: { generateName: 'x-', namespace: 'default' } });
    const b = store.create(lbKind, { ...lb(''), metadata: { generateName: 'x-', namespace: 'default' } });
    assert.equal(a.metadata.name, 'x-bbbbb');
    assert.notEqual(b.metadata.name, a.metadata.name);
  });

  it('requires a name or generateName (422)', () => {
    const { store } = newStore();
    const e = expectStatus(() => store.create(lbKind, { ...lb(''), metadata: { namespace: 'default' } }), 422, 'Invalid');
    assert.equal(e.message, 'LoadBalancer.loadbalancer.harvesterhci.io "" is invalid: metadata.name: Required value: name or generateName is required');
  });

  it('validates names as DNS-1123 subdomains, namespaces as labels', () => {
    const { store } = newStore();
    const e = expectStatus(() => store.create(lbKind, lb('Bad_Name')), 422, 'Invalid');
    assert.equal(e.status.details.causes[0].reason, 'FieldValueInvalid');
    assert.equal(e.status.details.causes[0].field, 'metadata.name');
    assert.match(e.message, /a lowercase RFC 1123 subdomain must consist of/);
    store.create(lbKind, lb('a.b.c'));
    expectStatus(() => store.create(nsKind, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a.b' } }), 422, 'Invalid');
  });

  it('validates label keys/values and annotation keys (422)', () => {
    const { store } = newStore();
    const e = expectStatus(() => store.create(lbKind, lb('lb1', {}, { labels: { 'app': 'bad value' } })), 422);
    assert.equal(e.status.details.causes[0].field, 'metadata.labels');
    assert.match(e.status.details.causes[0].message, /^Invalid value: "bad value": a valid label must be an empty string/);
    expectStatus(() => store.create(lbKind, lb('lb2', {}, { labels: { '-bad': 'x' } })), 422);
    expectStatus(() => store.create(lbKind, lb('lb3', {}, { annotations: { 'a/b/c': 'x' } })), 422);
    const ok = store.create(lbKind, lb('lb4', {}, { labels: { 'topology.kubernetes.io/zone': 'z1', empty: '' }, annotations: { 'Some.Key': 'any value !' } }));
    assert.equal(ok.metadata.labels!['topology.kubernetes.io/zone'], 'z1');
  });

  it('checks apiVersion/kind against the kind (400), fills them when missing', () => {
    const { store } = newStore();
    const e = expectStatus(() => store.create(lbKind, { ...lb('lb1'), apiVersion: 'loadbalancer.harvesterhci.io/v1alpha1' }), 400, 'BadRequest');
    assert.match(e.message, /API version in the data \(loadbalancer.harvesterhci.io\/v1alpha1\)/);
    expectStatus(() => store.create(lbKind, { ...lb('lb1'), kind: 'IPPool' }), 400, 'BadRequest');
    const body = lb('lb2') as Record<string, unknown>;
    delete body.apiVersion;
    delete body.kind;
    const out = store.create(lbKind, body as never);
    assert.equal(out.kind, 'LoadBalancer');
  });

  it('needs an existing, non-terminating namespace for namespaced kinds', () => {
    const { store } = newStore();
    const e = expectStatus(() => store.create(lbKind, { ...lb('lb1'), metadata: { name: 'lb1', namespace: 'nope' } }), 404, 'NotFound');
    assert.equal(e.message, 'namespaces "nope" not found');
    assert.deepEqual(e.status.details, { name: 'nope', kind: 'namespaces' });
    store.create(nsKind, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'doomed', finalizers: ['example.com/hold'] } });
    store.delete(nsKind, undefined, 'doomed');
    const t = expectStatus(() => store.create(lbKind, { ...lb('lb1'), metadata: { name: 'lb1', namespace: 'doomed' } }), 403, 'Forbidden');
    assert.match(t.message, /unable to create new content in namespace doomed because it is being terminated/);
  });

  it('strips metadata.namespace from cluster-scoped objects and sets Namespace phase Active', () => {
    const { store } = newStore();
    const p = store.create(poolKind, { apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'IPPool', metadata: { name: 'p1', namespace: 'default' }, spec: {} });
    assert.equal(p.metadata.namespace, undefined);
    assert.deepEqual(store.get(nsKind, undefined, 'default')!.status, { phase: 'Active' });
  });

  it('dry-run create returns uid and creationTimestamp but no resourceVersion, and stores nothing', async () => {
    const { store } = newStore();
    const events: unknown[] = [];
    store.watch(lbKind, {}, (e) => events.push(e));
    const rv = store.resourceVersion();
    const out = store.create(lbKind, lb('lb1'), { dryRun: true });
    assert.ok(out.metadata.uid);
    assert.ok(out.metadata.creationTimestamp);
    assert.equal(out.metadata.resourceVersion, undefined);
    assert.equal(store.get(lbKind, 'default', 'lb1'), undefined);
    assert.equal(store.resourceVersion(), rv);
    await store.settle();
    assert.equal(events.length, 0);
  });

  it('never retains the caller\'s object nor hands out its own', () => {
    const { store } = newStore();
    const body = lb('lb1');
    const out = store.create(lbKind, body);
    (body.spec as Record<string, unknown>).ipam = 'pool';
    (out.spec as Record<string, unknown>).ipam = 'pool';
    assert.equal((store.get(lbKind, 'default', 'lb1')!.spec as Record<string, unknown>).ipam, 'dhcp');
    assert.equal(body.metadata.uid, undefined);
  });

  it('400 for a body of another kind, a non-object metadata, or a namespaced object without namespace', () => {
    const { store } = newStore();
    const wrongVersion = expectStatus(() => store.create(lbKind, { ...lb('x'), apiVersion: 'v1' }), 400, 'BadRequest');
    assert.equal(wrongVersion.message, 'the API version in the data (v1) does not match the expected API version (loadbalancer.harvesterhci.io/v1beta1)');
    const wrongKind = expectStatus(() => store.create(lbKind, { ...lb('x'), kind: 'IPPool' }), 400, 'BadRequest');
    assert.equal(wrongKind.message, 'the kind in the data (IPPool) does not match the expected kind (LoadBalancer)');
    const badMeta = expectStatus(() => store.create(lbKind, { ...lb('x'), metadata: 'x' as never }), 400, 'BadRequest');
    assert.equal(badMeta.message, 'metadata of the LoadBalancer must be a JSON object');
    const noNs = expectStatus(() => store.create(lbKind, lb('x', { ipam: 'dhcp' }, { namespace: undefined })), 400, 'BadRequest');
    assert.match(noNs.message, /^LoadBalancer "x" has no metadata\.namespace: loadbalancers\.loadbalancer\.harvesterhci\.io are namespaced; set metadata\.namespace$/);
  });

  it('422 names the bad part of a label key in the apiserver\'s words', () => {
    const { store } = newStore();
    const e = expectStatus(() => store.create(lbKind, lb('x', { ipam: 'dhcp' }, { labels: { 'a/b/c': 'v', 'ok/-bad': 'v' } })), 422, 'Invalid');
    const messages = (e.status.details.causes as { field: string; message: string }[]).map((c) => `${c.field}: ${c.message}`);
    assert.ok(messages.some((m) => m.startsWith(`metadata.labels: Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters`) && m.endsWith(`with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`)), messages.join('\n'));
    assert.ok(messages.includes(`metadata.labels: Invalid value: "ok/-bad": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`), messages.join('\n'));
  });
});
