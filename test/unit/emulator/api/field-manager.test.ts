/**
 * The field manager of Update operations, pure. Expected answers (docs/design/kube-api.md §4) from
 * sigs.k8s.io/structured-merge-diff v4.4 typed/compare.go (a map added as a whole is itself Added; leaves
 * Modified; removals Removed) and merge/update.go (`Updater.Update`: other managers lose added, modified and
 * removed paths; the writer gains added and modified ones), and k8s.io/apimachinery v0.32
 * pkg/util/managedfields/internal: managedfieldsupdater.go (the writer's time moves only when it took
 * fields), skipnonapplied.go (an untracked object stays untracked), capmanagers.go (10 Update managers,
 * then `ancient-changes`), managedfields.go (`sortEncodedManagedFields`; `[]`/`[{}]` resets), stripmeta.go.
 */
import assert from 'node:assert/strict';
import { compareObjects, managedFieldsAfterUpdate, managerIdentifier, patchesManagedFields, printManager } from '../../../../emulator/api/field-manager';
import { formatPath } from '../../../../emulator/api/managed-fields';
import { KubeObject, ManagedFieldsEntry } from '../../../../emulator/api/types';
import { lbKind, vmKind } from './fixtures';

const T0 = '2026-01-01T00:00:00Z';
const T1 = '2026-01-01T00:00:05Z';
const paths = (set: { toArray(): readonly (readonly string[])[] }) => set.toArray().map(formatPath).sort();

function lbObj(spec: Record<string, unknown>, meta: Partial<KubeObject['metadata']> = {}): KubeObject {
  return { apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'LoadBalancer', metadata: { name: 'x', namespace: 'default', uid: 'u', resourceVersion: '5', ...meta }, spec };
}

function entry(manager: string, fieldsV1: Record<string, unknown>, extra: Partial<ManagedFieldsEntry> = {}): ManagedFieldsEntry {
  return { manager, operation: 'Update', apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', time: T0, fieldsType: 'FieldsV1', fieldsV1, ...extra };
}

const update = (live: KubeObject | undefined, next: KubeObject, manager: string, requested: unknown = next.metadata.managedFields) =>
  managedFieldsAfterUpdate({ kind: lbKind, scope: undefined, live, next, requested, manager, now: T1 });

describe('field manager: comparing objects (typed.Compare)', () => {
  it('a map added whole is Added with everything in it; changed leaves are Modified; lists are leaves', () => {
    const c = compareObjects({ spec: { a: 1, list: [1] } }, { spec: { a: 2, list: [1, 2], m: { x: 1, y: { z: 1 } } }, metadata: { labels: { k: 'v' } } });
    assert.deepEqual(paths(c.added), ['.metadata.labels', '.metadata.labels.k', '.spec.m', '.spec.m.x', '.spec.m.y', '.spec.m.y.z']);
    assert.deepEqual(paths(c.modified), ['.spec.a', '.spec.list']);
    assert.deepEqual(paths(c.removed), []);
  });
  it('removing a map removes it and what it held; metadata itself is never owned', () => {
    const c = compareObjects({ metadata: { annotations: { a: '1' } }, spec: { m: { x: 1 } } }, { spec: {} });
    assert.deepEqual(paths(c.removed), ['.metadata.annotations', '.metadata.annotations.a', '.spec.m', '.spec.m.x']);
  });
});

describe('field manager: Update operations', () => {
  it('a create owns every field it sent, spec included as a whole for a custom resource; server metadata is stripped', () => {
    const out = update(undefined, lbObj({ ipam: 'dhcp' }, { labels: { a: 'b' }, generation: 1, creationTimestamp: T0 }), 'creator');
    assert.deepEqual(out, [entry('creator', { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } }, 'f:spec': { '.': {}, 'f:ipam': {} } }, { time: T1 })]);
  });

  it('an update takes the paths it changes from other managers and adds them to its own entry', () => {
    const live = lbObj({ ipam: 'dhcp', description: 'd' }, { managedFields: [entry('creator', { 'f:spec': { '.': {}, 'f:ipam': {}, 'f:description': {} } })] });
    const out = update(live, lbObj({ ipam: 'pool', description: 'd' }, { managedFields: live.metadata.managedFields }), 'editor');
    assert.deepEqual(out, [entry('creator', { 'f:spec': { '.': {}, 'f:description': {} } }), entry('editor', { 'f:spec': { 'f:ipam': {} } }, { time: T1 })]);
  });

  it('a removed field is dropped from every manager, the writer included; an emptied entry disappears', () => {
    const live = lbObj({ ipam: 'dhcp', description: 'd' }, { managedFields: [entry('a', { 'f:spec': { 'f:description': {} } }), entry('b', { 'f:spec': { 'f:ipam': {} } })] });
    const out = update(live, lbObj({ ipam: 'dhcp' }), 'b');
    assert.deepEqual(out, [entry('b', { 'f:spec': { 'f:ipam': {} } })]);
  });

  it('a write that changes nothing leaves managedFields exactly as they were (no new entry, no new time)', () => {
    const mf = [entry('creator', { 'f:spec': { 'f:ipam': {} } })];
    assert.deepEqual(update(lbObj({ ipam: 'dhcp' }, { managedFields: mf }), lbObj({ ipam: 'dhcp' }), 'someone-else'), mf);
  });

  it('an existing object with no managedFields stays untracked; [] or [{}] in the request resets them', () => {
    assert.deepEqual(update(lbObj({ ipam: 'dhcp' }), lbObj({ ipam: 'pool' }), 'editor'), []);
    const tracked = lbObj({ ipam: 'dhcp' }, { managedFields: [entry('creator', { 'f:spec': { 'f:ipam': {} } })] });
    assert.deepEqual(update(tracked, lbObj({ ipam: 'pool' }), 'editor', [{}]), []);
    assert.deepEqual(update(tracked, lbObj({ ipam: 'pool' }), 'editor', []), []);
  });

  it('managedFields sent in the request are the starting point when they decode; otherwise the stored ones are', () => {
    const stored = lbObj({ ipam: 'dhcp', description: 'd' }, { managedFields: [entry('creator', { 'f:spec': { 'f:ipam': {}, 'f:description': {} } })] });
    const rewritten = [entry('migrated', { 'f:spec': { 'f:ipam': {}, 'f:description': {} } }, { operation: 'Apply' })];
    assert.deepEqual(update(stored, lbObj({ ipam: 'dhcp', description: 'd' }), 'kubectl', rewritten), rewritten);
    const invalid = [{ manager: 'x', operation: 'Sideways', fieldsType: 'FieldsV1', fieldsV1: {} }];
    assert.deepEqual(update(stored, lbObj({ ipam: 'dhcp', description: 'd' }), 'kubectl', invalid), stored.metadata.managedFields);
  });

  it('a status write owns only .status; a main write on a kind with a status subresource never owns .status', () => {
    const vm = (status: unknown, spec: unknown = { running: true }): KubeObject => ({ apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine', metadata: { name: 'v', namespace: 'default', uid: 'u' }, spec, status } as KubeObject);
    const main = managedFieldsAfterUpdate({ kind: vmKind, scope: undefined, next: vm({ ready: true }), requested: undefined, manager: 'u', now: T1 });
    assert.deepEqual(main.map((e) => e.fieldsV1), [{ 'f:spec': { '.': {}, 'f:running': {} } }]);
    const st = managedFieldsAfterUpdate({ kind: vmKind, scope: 'status', live: { ...vm({}), metadata: { ...vm({}).metadata, managedFields: main } }, next: vm({ ready: true }, { running: false }), requested: undefined, manager: 'ctl', now: T1 });
    assert.deepEqual(st.map((e) => [e.manager, e.subresource, e.fieldsV1]), [['ctl', 'status', { 'f:status': { 'f:ready': {} } }], ['u', undefined, { 'f:spec': { '.': {}, 'f:running': {} } }]]);
  });

  it('more than 10 Update managers: the oldest two become ancient-changes', () => {
    const mf = Array.from({ length: 10 }, (_, i) => entry(`m${i}`, { 'f:spec': { [`f:k${i}`]: {} } }, { time: `2026-01-01T00:00:0${i}Z` }));
    const spec = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, i]));
    const out = update(lbObj(spec, { managedFields: mf }), lbObj({ ...spec, k10: 10 }), 'm10');
    assert.equal(out.length, 10);
    const ancient = out.find((e) => e.manager === 'ancient-changes')!;
    assert.deepEqual(ancient.fieldsV1, { 'f:spec': { 'f:k0': {}, 'f:k1': {} } });
    assert.equal(ancient.time, '2026-01-01T00:00:01Z');
    assert.deepEqual(out.map((e) => e.manager).filter((m) => /^m[01]$/.test(m)), []);
  });

  it('entries are served Apply first, then by time, manager, apiVersion, subresource (sortEncodedManagedFields)', () => {
    const mf = [entry('z', { 'f:spec': { 'f:a': {} } }, { time: T0 }), entry('a', { 'f:spec': { 'f:b': {} } }, { time: T1 }), entry('b', { 'f:spec': { 'f:c': {} } }, { time: T0 }), entry('y', { 'f:spec': { 'f:d': {} } }, { operation: 'Apply', time: T1 })];
    const out = update(lbObj({ a: 1, b: 1, c: 1, d: 1 }, { managedFields: mf }), lbObj({ a: 1, b: 1, c: 1, d: 1 }), 'nobody');
    assert.deepEqual(out.map((e) => e.manager), ['y', 'b', 'z', 'a']);
  });
});

describe('field manager: how owners are named (conflict.go printManager)', () => {
  it('Update owners carry their apiVersion, subresources are named, Apply owners only by name', () => {
    assert.equal(printManager({ manager: 'kubectl-edit', operation: 'Update', apiVersion: 'v1' }), '"kubectl-edit" using v1');
    assert.equal(printManager({ manager: 'ctl', operation: 'Update', apiVersion: 'kubevirt.io/v1', subresource: 'status' }), '"ctl" with subresource "status" using kubevirt.io/v1');
    assert.equal(printManager({ manager: 'kubectl', operation: 'Apply', apiVersion: 'v1' }), '"kubectl"');
    assert.equal(managerIdentifier({ manager: 'kubectl', operation: 'Apply', apiVersion: 'v1' }), '{"manager":"kubectl","operation":"Apply"}');
  });
});

describe('field manager: which patches may rewrite managedFields', () => {
  const table: [string, string, unknown, boolean][] = [
    ['kubectl\'s upgrade patch', 'json', [{ op: 'test', path: '/metadata/resourceVersion', value: '5' }, { op: 'replace', path: '/metadata/managedFields', value: [] }], true],
    ['a JSON patch of the spec', 'json', [{ op: 'replace', path: '/spec/ipam', value: 'pool' }], false],
    ['a JSON patch replacing metadata', 'json', [{ op: 'replace', path: '/metadata', value: {} }], true],
    ['a merge patch clearing them', 'merge', { metadata: { managedFields: [{}] } }, true],
    ['a merge patch of labels', 'merge', { metadata: { labels: { a: 'b' } } }, false],
    ['a merge patch deleting metadata', 'merge', { metadata: null }, true],
    ['a strategic patch replacing metadata', 'strategic', { metadata: { $patch: 'replace', name: 'x' } }, true],
  ];
  for (const [name, type, body, want] of table) {
    it(`${name}: ${want}`, () => assert.equal(patchesManagedFields(type, body), want));
  }
});
