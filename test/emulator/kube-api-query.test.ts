/**
 * Query parameters as kube-apiserver reads them, over HTTPS with the spellings other clients send.
 *
 * Expected answers: apimachinery v0.32.9 pkg/runtime/conversion.go (`Convert_Slice_string_To_bool`,
 * `Convert_Slice_string_To_Pointer_bool`: the first value is false only for `0` or `false` in any case, true
 * otherwise, the empty string included; the generated conversions of ListOptions/PatchOptions/DeleteOptions call
 * them only for parameters present), pkg/apis/meta/internalversion/validation `ValidateListOptions` /
 * `validateWatchOptions` (422 `ListOptions.meta.k8s.io "" is invalid`), and the API reference of
 * `sendInitialEvents` (a BOOKMARK annotated `k8s.io/initial-events-end: "true"` after the initial state; the
 * WatchList feature is on by default in 1.32). See docs/design/kube-api.md §1.
 */
import assert from 'node:assert/strict';
import { KINDS } from '../../emulator/kinds';
import { eventually, startTestEmulator, TestEmulator } from '../support/emulator-harness';
import { rawRequest, readLines } from './raw-http';

const CM = '/api/v1/namespaces/default/configmaps';
const LB = '/apis/loadbalancer.harvesterhci.io/v1beta1/namespaces/default/loadbalancers';

describe('kube-api fidelity: boolean and watch query parameters', function () {
  this.timeout(30_000);
  let t: TestEmulator;

  before(async () => {
    t = await startTestEmulator({ controllers: false });
    baseline = t.emulator.store.watcherCount();
    for (const name of ['a', 'b']) t.emulator.store.create(KINDS.configMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { k: name } });
  });
  after(() => t?.stop());

  /** Resolves once a new watch is registered with the store (so a write made next reaches it live). */
  let baseline = 0;
  const watchOpened = () => eventually(() => t.emulator.store.watcherCount() > baseline, 'the watch to open');
  beforeEach(() => eventually(() => t.emulator.store.watcherCount() === baseline, 'earlier watches to close'));

  const isStream = async (query: string): Promise<boolean> => {
    const r = await readLines(t, `${CM}?${query}`, (lines) => lines.length >= 1);
    assert.equal(r.status, 200);
    return !(r.lines[0].kind === 'ConfigMapList');
  };

  // [spelling of ?watch, is it a watch]
  const WATCH: [string, boolean][] = [
    ['watch=true', true],
    ['watch=True', true],
    ['watch=TRUE', true],
    ['watch=1', true],
    ['watch=yes', true],
    ['watch=', true],
    ['watch', true],
    ['watch=false', false],
    ['watch=False', false],
    ['watch=FALSE', false],
    ['watch=0', false],
    ['watch=false&watch=true', false],
    ['watch=True&watch=false', true],
    ['', false],
  ];
  for (const [query, watch] of WATCH) {
    it(`?${query} is ${watch ? 'a watch stream' : 'a plain list'}`, async () => {
      assert.equal(await isStream(query), watch);
    });
  }

  it('allowWatchBookmarks=True asks for bookmarks: the streaming list ends its initial state with one', async () => {
    const r = await readLines(t, `${CM}?watch=True&sendInitialEvents=True&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=True`, (lines) => lines.some((l) => l.type === 'BOOKMARK'));
    assert.deepEqual(r.lines.map((l) => [l.type, l.object.metadata.name ?? null]), [['ADDED', 'a'], ['ADDED', 'b'], ['BOOKMARK', null]]);
    const bookmark = r.lines[2].object;
    assert.deepEqual(bookmark.metadata.annotations, { 'k8s.io/initial-events-end': 'true' });
    assert.equal(bookmark.metadata.resourceVersion, t.emulator.store.resourceVersion());
    assert.equal(bookmark.kind, 'ConfigMap');
  });

  it('sendInitialEvents without bookmarks sends the initial state and no end marker; then live events follow', async () => {
    const r = readLines(t, `${CM}?watch=1&sendInitialEvents=1&resourceVersionMatch=NotOlderThan`, (lines) => lines.length >= 3);
    await watchOpened();
    t.emulator.store.create(KINDS.configMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'live', namespace: 'default' } });
    const { lines } = await r;
    assert.deepEqual(lines.map((l) => [l.type, l.object.metadata.name]), [['ADDED', 'a'], ['ADDED', 'b'], ['ADDED', 'live']]);
    t.emulator.store.delete(KINDS.configMap, 'default', 'live');
  });

  it('sendInitialEvents=false with no resourceVersion sends no initial state, only what happens next', async () => {
    const r = readLines(t, `${CM}?watch=true&sendInitialEvents=false&resourceVersionMatch=NotOlderThan`, (lines) => lines.length >= 1);
    await watchOpened();
    t.emulator.store.create(KINDS.configMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'later', namespace: 'default' } });
    const { lines } = await r;
    assert.deepEqual(lines.map((l) => [l.type, l.object.metadata.name]), [['ADDED', 'later']]);
    t.emulator.store.delete(KINDS.configMap, 'default', 'later');
  });

  // validateWatchOptions / ValidateListOptions.
  const INVALID: [string, string][] = [
    ['watch=true&sendInitialEvents=true', 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'],
    ['watch=true&resourceVersionMatch=NotOlderThan', 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'],
    [
      'watch=true&sendInitialEvents=false&resourceVersionMatch=Exact',
      'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]',
    ],
    ['sendInitialEvents=true', 'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list'],
    ['watch=0&sendInitialEvents=0', 'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list'],
  ];
  for (const [query, message] of INVALID) {
    it(`?${query} → 422 ${message.slice(message.indexOf(': ') + 2)}`, async () => {
      const r = await rawRequest(t, 'GET', `${CM}?${query}`);
      assert.equal(r.status, 422, r.text);
      assert.equal(r.json.reason, 'Invalid');
      assert.equal(r.json.message, message);
    });
  }

  describe("apply's force", () => {
    const manifest = (ipam: string): string =>
      JSON.stringify({ apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'LoadBalancer', metadata: { name: 'forced', namespace: 'default' }, spec: { ipam, listeners: [{ name: 'a', port: 80, protocol: 'TCP', backendPort: 80 }] } });
    const apply = (manager: string, ipam: string, force?: string) =>
      rawRequest(t, 'PATCH', `${LB}/forced?fieldManager=${manager}${force === undefined ? '' : `&force=${force}`}`, manifest(ipam), { 'Content-Type': 'application/apply-patch+yaml' });

    before(async () => assert.equal((await apply('first', 'dhcp')).status, 201));

    // [force spelling, takes the field over]
    const FORCE: [string | undefined, boolean][] = [[undefined, false], ['false', false], ['False', false], ['0', false], ['True', true], ['TRUE', true], ['1', true], ['', true]];
    for (const [force, wins] of FORCE) {
      it(`force${force === undefined ? ' absent' : `=${force}`} ${wins ? 'takes the field over' : 'is a conflict'}`, async () => {
        // Whoever owns spec.ipam now, "first" takes it back so every row starts alike.
        assert.equal((await apply('first', 'dhcp', 'true')).status, 200);
        const r = await apply('second', 'pool', force);
        if (wins) {
          assert.equal(r.status, 200, r.text);
          assert.equal(r.json.spec.ipam, 'pool');
        } else {
          assert.equal(r.status, 409, r.text);
          assert.equal(r.json.message, 'Apply failed with 1 conflict: conflict with "first": .spec.ipam');
        }
      });
    }

    it('force on a merge patch is refused whatever its value (PatchOptions validation: force may not be specified)', async () => {
      const r = await rawRequest(t, 'PATCH', `${LB}/forced?force=false`, '{"metadata":{"labels":{"x":"y"}}}', { 'Content-Type': 'application/merge-patch+json' });
      assert.equal(r.status, 422);
      assert.equal(r.json.message, 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
    });
  });

  it('orphanDependents=False on a DELETE query is read as false (Background), True as Orphan', async () => {
    const owner = t.emulator.store.create(KINDS.configMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner', namespace: 'default' } });
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid! };
    t.emulator.store.create(KINDS.configMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'child', namespace: 'default', ownerReferences: [ref] } });
    assert.equal((await rawRequest(t, 'DELETE', `${CM}/owner?orphanDependents=True`)).status, 200);
    await t.emulator.store.settle();
    assert.deepEqual(t.emulator.store.get(KINDS.configMap, 'default', 'child')?.metadata.ownerReferences, undefined, 'orphaned: the child stays without its owner');

    const owner2 = t.emulator.store.create(KINDS.configMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner2', namespace: 'default' } });
    t.emulator.store.create(KINDS.configMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'child2', namespace: 'default', ownerReferences: [{ ...ref, name: 'owner2', uid: owner2.metadata.uid! }] } });
    assert.equal((await rawRequest(t, 'DELETE', `${CM}/owner2?orphanDependents=False`)).status, 200);
    await t.emulator.store.settle();
    assert.equal(t.emulator.store.get(KINDS.configMap, 'default', 'child2'), undefined, 'not orphaned: the child is collected');
    t.emulator.store.delete(KINDS.configMap, 'default', 'child');
  });
});
