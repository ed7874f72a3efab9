/**
 * Conformance: @kubernetes/client-node 1.4.0 against the emulator — CustomObjectsApi (create/get/list/
 * replace/patch of each type/delete and their error codes), CoreV1Api, Watch, and an informer that survives
 * a clean watch close and a 410, and reports an error on a TCP reset (client-node informers then stop).
 */
import assert from 'node:assert/strict';
import {
  ApiException,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  KubernetesObjectApi,
  KubernetesObject,
  PatchStrategy,
  V1ConfigMap,
  Watch,
  makeInformer,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { KINDS } from '../../emulator/kinds';
import type { KubeObject } from '../../emulator/api/types';
import { eventually, startTestEmulator, TestEmulator } from '../support/emulator-harness';

const LB = { group: 'loadbalancer.harvesterhci.io', version: 'v1beta1', plural: 'loadbalancers' };

/** The Status inside an ApiException (client-node keeps the raw response text in `body`). */
function statusOf(err: unknown): { code: number; reason?: string; message?: string; details?: Record<string, unknown> } {
  assert.ok(err instanceof ApiException, `expected an ApiException, got ${String(err)}`);
  const body = typeof err.body === 'string' ? JSON.parse(err.body) : err.body;
  return { ...body, code: err.code };
}

async function rejects(promise: Promise<unknown>): Promise<ReturnType<typeof statusOf>> {
  try {
    await promise;
  } catch (err) {
    return statusOf(err);
  }
  assert.fail('expected the call to fail');
}

function lbBody(name: string, spec: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'LoadBalancer', metadata: { name, namespace: 'default', labels: { suite: 'cn' } }, spec: { ipam: 'dhcp', workloadType: 'vm', ...spec } };
}

describe('client-node (conformance)', function () {
  this.timeout(30_000);
  let t: TestEmulator;
  let kc: KubeConfig;
  let co: CustomObjectsApi;
  let core: CoreV1Api;

  before(async () => {
    t = await startTestEmulator({ controllers: false });
    kc = t.kubeConfig();
    co = kc.makeApiClient(CustomObjectsApi);
    core = kc.makeApiClient(CoreV1Api);
  });
  after(() => t?.stop());
  afterEach(() => t.emulator.faults.clear());

  describe('CustomObjectsApi', () => {
    it('creates, gets and lists', async () => {
      const created = (await co.createNamespacedCustomObject({ ...LB, namespace: 'default', body: lbBody('cn1'), fieldManager: 'tf' })) as KubeObject;
      assert.equal(created.metadata.generation, 1);
      assert.match(created.metadata.uid!, /^[0-9a-f-]{36}$/);
      assert.equal(t.emulator.journal.entries({ method: 'POST' }).at(-1)!.status, 201);
      const got = (await co.getNamespacedCustomObject({ ...LB, namespace: 'default', name: 'cn1' })) as KubeObject;
      assert.equal(got.metadata.resourceVersion, created.metadata.resourceVersion);
      const list = (await co.listNamespacedCustomObject({ ...LB, namespace: 'default', labelSelector: 'suite=cn' })) as { kind: string; items: KubeObject[]; metadata: { resourceVersion: string } };
      assert.equal(list.kind, 'LoadBalancerList');
      assert.deepEqual(list.items.map((i) => i.metadata.name), ['cn1']);
      assert.equal(list.metadata.resourceVersion, t.emulator.store.resourceVersion());
      const pools = (await co.listClusterCustomObject({ group: LB.group, version: LB.version, plural: 'ippools' })) as { kind: string; items: unknown[] };
      assert.equal(pools.kind, 'IPPoolList');
      const dup = await rejects(co.createNamespacedCustomObject({ ...LB, namespace: 'default', body: lbBody('cn1') }));
      assert.equal(dup.code, 409);
      assert.equal(dup.reason, 'AlreadyExists');
    });

    it('replace: stale resourceVersion → 409, none → 422, current → 200', async () => {
      const cur = (await co.getNamespacedCustomObject({ ...LB, namespace: 'default', name: 'cn1' })) as KubeObject;
      const next = { ...cur, spec: { ...(cur.spec as object), description: 'replaced' } };
      const ok = (await co.replaceNamespacedCustomObject({ ...LB, namespace: 'default', name: 'cn1', body: next })) as KubeObject;
      assert.equal((ok.spec as Record<string, unknown>).description, 'replaced');
      const stale = await rejects(co.replaceNamespacedCustomObject({ ...LB, namespace: 'default', name: 'cn1', body: next }));
      assert.equal(stale.code, 409);
      assert.equal(stale.reason, 'Conflict');
      assert.match(stale.message!, /^Operation cannot be fulfilled on loadbalancers\.loadbalancer\.harvesterhci\.io "cn1": the object has been modified/);
      const noRv = { ...next, metadata: { ...next.metadata, resourceVersion: undefined } };
      const invalid = await rejects(co.replaceNamespacedCustomObject({ ...LB, namespace: 'default', name: 'cn1', body: noRv }));
      assert.equal(invalid.code, 422);
      assert.equal(invalid.reason, 'Invalid');
      assert.match(invalid.message!, /metadata\.resourceVersion: Invalid value: 0x0: must be specified for an update/);
    });

    it('patches with each content type: json (default), merge, apply; strategic → 415', async () => {
      const base = { ...LB, namespace: 'default', name: 'cn1' };
      const badJson = await rejects(co.patchNamespacedCustomObject({ ...base, body: { spec: { ipam: 'pool' } } }));
      assert.equal(badJson.code, 400, 'the default json-patch content type with an object body');
      await co.patchNamespacedCustomObject({ ...base, body: [{ op: 'replace', path: '/spec/ipam', value: 'pool' }] });
      await co.patchNamespacedCustomObject({ ...base, body: { metadata: { labels: { merged: 'yes' } } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
      const applied = (await co.patchNamespacedCustomObject(
        { ...base, body: lbBody('cn1', { description: 'ssa' }), fieldManager: 'tf', force: true },
        setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
      )) as KubeObject;
      assert.equal((applied.spec as Record<string, unknown>).description, 'ssa');
      assert.equal(applied.metadata.labels!.merged, 'yes');
      assert.ok(applied.metadata.managedFields!.some((m) => m.manager === 'tf' && m.operation === 'Apply'));
      const smp = await rejects(co.patchNamespacedCustomObject({ ...base, body: { spec: {} } }, setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch)));
      assert.equal(smp.code, 415);
      assert.equal(smp.reason, 'UnsupportedMediaType');
      const applyCreate = await co.patchNamespacedCustomObjectWithHttpInfo(
        { ...LB, namespace: 'default', name: 'cn2', body: lbBody('cn2'), fieldManager: 'tf' },
        setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
      );
      assert.equal(applyCreate.httpStatusCode, 201);
      const noStatus = await rejects(co.patchNamespacedCustomObjectStatus({ ...base, body: { status: {} } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch)));
      assert.equal(noStatus.code, 404, 'Harvester LoadBalancers have no status subresource');
    });

    it('deletes with a Success Status (Background) or the marked object (Foreground), then 404s', async () => {
      const uid = t.emulator.store.get(KINDS.loadBalancer, 'default', 'cn2')!.metadata.uid;
      const st = (await co.deleteNamespacedCustomObject({ ...LB, namespace: 'default', name: 'cn2', propagationPolicy: 'Background' })) as Record<string, unknown>;
      assert.equal(st.kind, 'Status');
      assert.equal(st.status, 'Success');
      assert.deepEqual(st.details, { name: 'cn2', group: LB.group, kind: 'loadbalancers', uid });
      const gone = await rejects(co.getNamespacedCustomObject({ ...LB, namespace: 'default', name: 'cn2' }));
      assert.equal(gone.code, 404);
      assert.deepEqual(gone.details, { name: 'cn2', group: LB.group, kind: 'loadbalancers' });
      const fg = (await co.deleteNamespacedCustomObject({ ...LB, namespace: 'default', name: 'cn1', propagationPolicy: 'Foreground' })) as KubeObject;
      assert.equal(fg.kind, 'LoadBalancer');
      assert.ok(fg.metadata.deletionTimestamp);
      assert.deepEqual(fg.metadata.finalizers, ['foregroundDeletion']);
      await eventually(() => !t.emulator.store.get(KINDS.loadBalancer, 'default', 'cn1'), 'the garbage collector to finish the foreground deletion');
    });
  });

  describe('CoreV1Api', () => {
    it('lists nodes and does CRUD on a ConfigMap (unconditional PUT allowed for core kinds)', async () => {
      const nodes = await core.listNode();
      assert.deepEqual(nodes.items.map((n) => n.metadata!.name), ['harvester-node-0', 'harvester-node-1', 'harvester-node-2']);
      await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'cn-cm' }, data: { a: '1' } } });
      const replaced = await core.replaceNamespacedConfigMap({ namespace: 'default', name: 'cn-cm', body: { metadata: { name: 'cn-cm' }, data: { a: '2' } } });
      assert.deepEqual(replaced.data, { a: '2' });
      const patched = await core.patchNamespacedConfigMap({ namespace: 'default', name: 'cn-cm', body: { data: { b: '3' } } }, setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch));
      assert.deepEqual(patched.data, { a: '2', b: '3' });
      const read = await core.readNamespacedConfigMap({ namespace: 'default', name: 'cn-cm' });
      assert.equal(read.metadata!.resourceVersion, patched.metadata!.resourceVersion);
      await core.deleteNamespacedConfigMap({ namespace: 'default', name: 'cn-cm' });
      const svc404 = await rejects(core.readNamespacedService({ namespace: 'default', name: 'nope' }));
      assert.equal(svc404.code, 404);
      assert.equal(svc404.message, 'services "nope" not found');
      const nsMissing = await rejects(core.createNamespacedConfigMap({ namespace: 'missing-ns', body: { metadata: { name: 'x' } } }));
      assert.equal(nsMissing.code, 404);
      assert.equal(nsMissing.message, 'namespaces "missing-ns" not found');
    });
  });

  describe('KubernetesObjectApi', () => {
    it('resolves resources through legacy discovery and does create/read/patch/delete', async () => {
      const mark = t.emulator.journal.mark();
      const oa = KubernetesObjectApi.makeApiClient(kc);
      await oa.create(lbBody('oa1') as KubernetesObject);
      const read = (await oa.read({ apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'LoadBalancer', metadata: { name: 'oa1', namespace: 'default' } })) as KubeObject;
      assert.equal(read.metadata.name, 'oa1');
      const smp = await rejects(oa.patch({ ...read, spec: { ipam: 'pool' } } as KubernetesObject));
      assert.equal(smp.code, 415, 'KubernetesObjectApi.patch defaults to strategic merge patch');
      const patched = (await oa.patch({ apiVersion: read.apiVersion, kind: read.kind, metadata: { name: 'oa1', namespace: 'default' }, spec: { description: 'oa' } } as KubernetesObject, undefined, undefined, undefined, undefined, PatchStrategy.MergePatch)) as KubeObject;
      assert.equal((patched.spec as Record<string, unknown>).description, 'oa');
      await oa.delete({ apiVersion: read.apiVersion, kind: read.kind, metadata: { name: 'oa1', namespace: 'default' } });
      const discovery = t.emulator.journal.entries({ since: mark, path: '/apis/loadbalancer.harvesterhci.io/v1beta1' });
      assert.equal(discovery.length, 1, 'one legacy APIResourceList request, then cached');
      assert.equal(discovery[0].status, 200);
    });
  });

  describe('Watch and informer', () => {
    const cmPath = '/api/v1/namespaces/default/configmaps';
    const mkCm = (name: string, label: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', labels: { w: label } } });

    it('Watch streams ADDED/MODIFIED/DELETED and reports the end of the stream', async () => {
      const { store } = t.emulator;
      const events: string[] = [];
      let ended: unknown = 'not yet';
      const req = await new Watch(kc).watch(cmPath, { labelSelector: 'w=raw' }, (type, obj: KubernetesObject) => events.push(`${type} ${obj.metadata!.name}`), (err) => {
        ended = err;
      });
      store.create(KINDS.configMap, mkCm('raw1', 'raw'));
      await eventually(() => events.includes('ADDED raw1'), 'ADDED raw1');
      store.patch(KINDS.configMap, 'default', 'raw1', 'merge', { data: { a: 'b' } }, { fieldManager: 't' });
      store.delete(KINDS.configMap, 'default', 'raw1');
      await eventually(() => events.includes('DELETED raw1'), `DELETED raw1 (got ${events.join(', ')})`);
      assert.deepEqual(events, ['ADDED raw1', 'MODIFIED raw1', 'DELETED raw1']);
      req.abort();
      await eventually(() => ended !== 'not yet', 'done callback');
      const watchEntry = t.emulator.journal.entries({ verb: 'watch', path: cmPath }).at(-1)!;
      assert.equal(watchEntry.status, 200);
      assert.equal(watchEntry.contentType, 'application/json');
    });

    it('timeoutSeconds ends the stream cleanly after a final BOOKMARK when bookmarks are allowed', async () => {
      const seen: string[] = [];
      let ended: unknown = 'not yet';
      await new Watch(kc).watch(cmPath, { allowWatchBookmarks: true, timeoutSeconds: 1, labelSelector: 'w=none' }, (type, obj: KubernetesObject) => seen.push(`${type} ${obj.metadata?.resourceVersion}`), (err) => {
        ended = err;
      });
      await eventually(() => ended !== 'not yet', 'the stream to end after timeoutSeconds', 5000);
      assert.equal(ended, null, 'a clean end, not an error');
      assert.equal(seen.length, 1, seen.join(', '));
      assert.match(seen[0], /^BOOKMARK \d+$/);
    });

    async function startInformer(label: string): Promise<{ inf: ReturnType<typeof makeInformer<V1ConfigMap>>; log: string[] }> {
      const log: string[] = [];
      const inf = makeInformer<V1ConfigMap>(kc, cmPath, () => core.listNamespacedConfigMap({ namespace: 'default', labelSelector: `w=${label}` }), `w=${label}`);
      inf.on('add', (o) => log.push(`add ${o.metadata!.name}`));
      inf.on('update', (o) => log.push(`update ${o.metadata!.name}`));
      inf.on('delete', (o) => log.push(`delete ${o.metadata!.name}`));
      inf.on('connect', () => log.push('connect'));
      inf.on('error', (e) => log.push(`error ${String((e as Error)?.message ?? e)}`));
      await inf.start();
      return { inf, log };
    }

    it('an informer re-watches after a clean close and keeps its cache', async () => {
      const { store, faults, journal } = t.emulator;
      store.create(KINDS.configMap, mkCm('inf-a', 'clean'));
      faults.add({ name: 'drop-clean', match: { verb: 'watch', resource: 'configmaps' }, action: { type: 'watchDrop', mode: 'clean', afterMs: 150 }, times: 1 });
      const mark = journal.mark();
      const { inf, log } = await startInformer('clean');
      try {
        await eventually(() => log.filter((l) => l === 'connect').length >= 2, `a reconnect (log: ${log.join(', ')})`);
        store.create(KINDS.configMap, mkCm('inf-b', 'clean'));
        await eventually(() => log.includes('add inf-b'), `add after the drop (log: ${log.join(', ')})`);
        assert.deepEqual(inf.list().map((o) => o.metadata!.name).sort(), ['inf-a', 'inf-b']);
        const lists = journal.entries({ since: mark, verb: 'list', path: cmPath });
        assert.equal(lists.length, 1, 'a clean close resumes the watch without re-listing');
        assert.ok(!log.some((l) => l.startsWith('error')));
      } finally {
        await inf.stop();
      }
    });

    it('an informer re-lists after ERROR 410 and keeps going', async () => {
      const { store, faults, journal } = t.emulator;
      store.create(KINDS.configMap, mkCm('exp-a', 'expire'));
      faults.add({ name: 'drop-410', match: { verb: 'watch', resource: 'configmaps' }, action: { type: 'watchDrop', mode: 'expire', afterMs: 150 }, times: 1 });
      const mark = journal.mark();
      const { inf, log } = await startInformer('expire');
      try {
        await eventually(() => journal.entries({ since: mark, verb: 'list', path: cmPath }).length >= 2, `a re-list (journal:\n${journal.format({ since: mark })})`);
        store.create(KINDS.configMap, mkCm('exp-b', 'expire'));
        await eventually(() => log.includes('add exp-b'), `add after the 410 (log: ${log.join(', ')})`);
        assert.ok(!log.some((l) => l.startsWith('error')), log.join(', '));
      } finally {
        await inf.stop();
      }
    });

    it('an informer reports an error when the watch connection is reset', async () => {
      const { store, faults } = t.emulator;
      store.create(KINDS.configMap, mkCm('rst-a', 'reset'));
      faults.add({ name: 'drop-reset', match: { verb: 'watch', resource: 'configmaps' }, action: { type: 'watchDrop', mode: 'reset', afterMs: 150 }, times: 1 });
      const { inf, log } = await startInformer('reset');
      try {
        await eventually(() => log.some((l) => l.startsWith('error')), `an error callback (log: ${log.join(', ')})`);
      } finally {
        await inf.stop();
      }
    });
  });
});
