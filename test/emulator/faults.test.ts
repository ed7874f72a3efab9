/**
 * Every fault kind, observed the way a client observes it: kubectl's retry-or-fail on 429/5xx with and
 * without Retry-After, client-node's ApiException fields, 409s on the next write, watch drops (clean,
 * 410, reset, stall), token expiry and rotation, connection resets, latency and history compaction.
 */
import assert from 'node:assert/strict';
import { ApiException, CoreV1Api, CustomObjectsApi, KubeConfig, KubernetesObject, Watch } from '@kubernetes/client-node';
import { ManualClock } from '../../emulator/clock';
import { KINDS } from '../../emulator/kinds';
import type { KubeObject } from '../../emulator/api/types';
import { eventually, startTestEmulator, TestEmulator } from '../support/emulator-harness';
import { describeResult } from '../support/kubectl';

const CM_PATH = '/api/v1/namespaces/default/configmaps';

async function failure(p: Promise<unknown>): Promise<ApiException<string>> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ApiException) return err as ApiException<string>;
    throw err;
  }
  assert.fail('expected an ApiException');
}

function cmObject(name: string, labels: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', labels } };
}

describe('fault injection, as clients see it', function () {
  this.timeout(60_000);
  let t: TestEmulator;
  let core: CoreV1Api;
  let kc: KubeConfig;

  before(async () => {
    t = await startTestEmulator({ controllers: false, seed: 7 });
    kc = t.kubeConfig();
    core = kc.makeApiClient(CoreV1Api);
    t.emulator.store.create(KINDS.configMap, cmObject('base'));
    await t.kubectlOk(['get', 'cm']); // warm kubectl's discovery cache
  });
  after(() => t?.stop());
  afterEach(() => t.emulator.faults.clear());

  it('429 with Retry-After: kubectl retries and succeeds', async () => {
    t.emulator.faults.add({ name: 'apf', match: { verb: 'list', resource: 'configmaps' }, action: { type: 'error', code: 429, retryAfterSeconds: 0 }, times: 2 });
    const mark = t.emulator.journal.mark();
    assert.match(await t.kubectlOk(['get', 'cm', '-o', 'name']), /configmap\/base/);
    const lists = t.emulator.journal.entries({ since: mark, path: CM_PATH });
    assert.deepEqual(lists.map((e) => e.status), [429, 429, 200]);
    assert.deepEqual(lists[0].faults, ['apf']);
  });

  it('429 without Retry-After: kubectl fails at once; the APF text/plain form reaches client-node verbatim', async () => {
    t.emulator.faults.add({ match: { verb: 'list', resource: 'configmaps' }, action: { type: 'error', code: 429 }, times: 1 });
    const r = await t.kubectl(['get', 'cm']);
    assert.equal(r.code, 1, describeResult(r));
    assert.match(r.stderr, /Error from server \(TooManyRequests\): Too many requests, please try again later\./);

    t.emulator.faults.add({ match: { verb: 'list', resource: 'configmaps' }, action: { type: 'error', code: 429, format: 'plain', retryAfterSeconds: 1 }, times: 1 });
    const e = await failure(core.listNamespacedConfigMap({ namespace: 'default' }));
    assert.equal(e.code, 429);
    assert.equal(e.body, 'Too many requests, please try again later.\n');
    assert.equal(e.headers['retry-after'], '1');
    assert.match(e.headers['content-type'], /^text\/plain/);
  });

  it('500, 503 and 504 carry their Status; kubectl retries a 503 POST with Retry-After', async () => {
    t.emulator.faults.add(
      { match: { verb: 'get', resource: 'configmaps' }, action: { type: 'error', code: 500, message: 'etcdserver: leader changed' }, times: 1 },
      { match: { verb: 'get', resource: 'configmaps' }, action: { type: 'error', code: 504 }, times: 1 },
    );
    const e500 = await failure(core.readNamespacedConfigMap({ namespace: 'default', name: 'base' }));
    assert.equal(e500.code, 500);
    assert.deepEqual(JSON.parse(e500.body).details, { causes: [{ message: 'etcdserver: leader changed' }] });
    const e504 = await failure(core.readNamespacedConfigMap({ namespace: 'default', name: 'base' }));
    assert.equal(e504.code, 504);
    assert.equal(JSON.parse(e504.body).reason, 'Timeout');

    t.emulator.faults.add({ match: { verb: 'create', resource: 'configmaps' }, action: { type: 'error', code: 503, retryAfterSeconds: 0 }, times: 1 });
    const mark = t.emulator.journal.mark();
    await t.kubectlOk(['create', '-f', '-'], { input: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: after-503, namespace: default}\n' });
    assert.deepEqual(t.emulator.journal.entries({ since: mark, method: 'POST' }).map((x) => x.status), [503, 201]);
    const kubectl500 = t.emulator.faults.add({ match: { verb: 'get', resource: 'configmaps' }, action: { type: 'error', code: 500 }, times: 1 });
    const r = await t.kubectl(['get', 'cm', 'base']);
    t.emulator.faults.remove(kubectl500[0]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Error from server \(InternalError\): Internal error occurred: /);
  });

  it('409 on the next write: stale Conflict, AlreadyExists, and an SSA field-manager conflict', async () => {
    const { faults } = t.emulator;
    faults.add({ action: { type: 'conflict' }, times: 1 });
    const cur = await core.readNamespacedConfigMap({ namespace: 'default', name: 'base' });
    const e = await failure(core.replaceNamespacedConfigMap({ namespace: 'default', name: 'base', body: cur }));
    assert.equal(e.code, 409);
    assert.equal(JSON.parse(e.body).message, 'Operation cannot be fulfilled on configmaps "base": the object has been modified; please apply your changes to the latest version and try again');
    await core.replaceNamespacedConfigMap({ namespace: 'default', name: 'base', body: cur }); // only the next write

    faults.add({ action: { type: 'conflict', reason: 'AlreadyExists' }, times: 1 });
    const dup = await failure(core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'fresh' } } }));
    assert.equal(JSON.parse(dup.body).reason, 'AlreadyExists');

    faults.add({ match: { verb: 'patch' }, action: { type: 'conflict', reason: 'FieldManagerConflict', manager: 'harvester-lb-controller', field: '.spec.ipam' }, times: 1 });
    const r = await t.kubectl(['apply', '--server-side', '-f', '-'], { input: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa-cm, namespace: default}\n' });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Apply failed with 1 conflict: conflict with "harvester-lb-controller": \.spec\.ipam/);
  });

  it('watch drops: kubectl get -w ends quietly on clean close and reset, prints the Status on 410', async () => {
    const { faults } = t.emulator;
    const run = async (mode: 'clean' | 'reset' | 'expire'): Promise<string> => {
      faults.add({ match: { verb: 'watch', resource: 'configmaps' }, action: { type: 'watchDrop', mode, afterMs: 100 }, times: 1 });
      const w = t.spawnKubectl(['get', 'cm', '-w'], { timeoutMs: 10_000 });
      const r = await w.done;
      assert.equal(r.code, 0, `${mode}: ${r.stderr}`);
      assert.equal(r.timedOut, false);
      return r.stdout + r.stderr;
    };
    assert.doesNotMatch(await run('clean'), /Expired|error/i);
    assert.doesNotMatch(await run('reset'), /Expired/);
    assert.match(await run('expire'), /Failure\s+Expired\s+too old resource version: \d+ \(\d+\)/);
  });

  it('a stalled watch sends headers and then nothing, while writes continue', async () => {
    const { faults, store } = t.emulator;
    faults.add({ match: { verb: 'watch', resource: 'configmaps' }, action: { type: 'watchDrop', mode: 'stall', afterMs: 0 }, times: 1 });
    const mark = t.emulator.journal.mark();
    const events: string[] = [];
    const req = await new Watch(kc).watch(CM_PATH, { labelSelector: 'stall=1' }, (type, obj: KubernetesObject) => events.push(`${type} ${obj.metadata!.name}`), () => undefined);
    // A second watch (the fault is used up) is the witness: once it has the event, the stalled one would have too.
    const witnessed: string[] = [];
    const witness = await new Watch(kc).watch(CM_PATH, { labelSelector: 'stall=1' }, (type, obj: KubernetesObject) => witnessed.push(`${type} ${obj.metadata!.name}`), () => undefined);
    store.create(KINDS.configMap, cmObject('stalled', { stall: '1' }));
    await eventually(() => witnessed.includes('ADDED stalled'), 'the witness watch sees the write', 5000);
    assert.deepEqual(events, []);
    const watches = t.emulator.journal.entries({ since: mark, verb: 'watch', path: CM_PATH });
    assert.deepEqual(watches.map((w) => w.status), [200, 200], 'headers were sent on both');
    req.abort();
    witness.abort();
  });

  it('latency delays the response by the configured time', async () => {
    const mark = t.emulator.journal.mark();
    t.emulator.faults.add({ match: { verb: 'get', name: 'base' }, action: { type: 'latency', ms: 300 }, times: 1 });
    const started = Date.now();
    await core.readNamespacedConfigMap({ namespace: 'default', name: 'base' });
    assert.ok(Date.now() - started >= 290, `took ${Date.now() - started} ms`);
    const entry = await eventually(() => t.emulator.journal.entries({ since: mark, verb: 'get', name: 'base' }).find((e) => e.faults && e.durationMs !== undefined), 'the journal entry to be complete');
    assert.ok(entry.durationMs! >= 290, `journal says ${entry.durationMs} ms`);
  });

  it('a connection reset before the response is a transport error, not an HTTP status', async () => {
    t.emulator.faults.add({ match: { verb: 'get', name: 'base' }, action: { type: 'reset' }, times: 1 });
    await assert.rejects(core.readNamespacedConfigMap({ namespace: 'default', name: 'base' }), (err: unknown) => !(err instanceof ApiException) && /socket hang up|ECONNRESET|reset/i.test(String((err as Error).message)));
    assert.equal(t.emulator.journal.entries({ verb: 'get', name: 'base' }).at(-1)!.status, 0);
    await core.readNamespacedConfigMap({ namespace: 'default', name: 'base' });
  });

  it('compaction: a watch from an older resourceVersion gets ERROR 410', async () => {
    const { store, faults } = t.emulator;
    const old = store.resourceVersion();
    store.create(KINDS.configMap, cmObject('after-compact'));
    faults.compact();
    const events: { type: string; code?: number }[] = [];
    let done = false;
    await new Watch(kc).watch(CM_PATH, { resourceVersion: old }, (type, obj: { code?: number }) => events.push({ type, code: obj.code }), () => {
      done = true;
    });
    await eventually(() => done, 'the stream to end after the ERROR event');
    assert.deepEqual(events, [{ type: 'ERROR', code: 410 }]);
  });

  it('an unauthorized rule answers 401 for matching requests only', async () => {
    t.emulator.faults.add({ match: { resource: 'configmaps', verb: 'get' }, action: { type: 'unauthorized' }, times: 1 });
    const e = await failure(core.readNamespacedConfigMap({ namespace: 'default', name: 'base' }));
    assert.equal(e.code, 401); // client-node drops 401 bodies; kubectl's view of the Status is tested below
    assert.equal(e.headers['content-type'], 'application/json');
    await core.readNamespacedConfigMap({ namespace: 'default', name: 'base' });
  });
});

describe('token expiry and rotation', function () {
  this.timeout(60_000);
  let t: TestEmulator;
  const clock = new ManualClock(Date.now());

  before(async () => {
    t = await startTestEmulator({ controllers: false, clock, tokenTtlMs: 60_000 });
  });
  after(() => t?.stop());

  it('an expired token gets kubectl "You must be logged in" and client-node 401; a rotated kubeconfig works again', async () => {
    await t.kubectlOk(['get', 'nodes']);
    const core = t.kubeConfig().makeApiClient(CoreV1Api);
    await core.listNode();
    clock.advance(61_000);
    const r = await t.kubectl(['get', 'nodes']);
    assert.equal(r.code, 1, describeResult(r));
    assert.match(r.stderr, /error: You must be logged in to the server \(Unauthorized\)/);
    const e = await failure(core.listNode());
    assert.equal(e.code, 401);

    const before = t.emulator.token;
    const next = t.emulator.faults.rotateToken({ ttlMs: 3_600_000 });
    assert.notEqual(next, before);
    assert.equal(t.emulator.token, next);
    assert.match(t.emulator.kubeconfig, new RegExp(`token: ${next}`));
    await t.kubectlOk(['get', 'nodes']); // kubectl re-reads the rewritten kubeconfig file
    await t.kubeConfig().makeApiClient(CoreV1Api).listNode();
  });

  it('expireToken as a rule: requests after the Nth fail', async () => {
    const co = t.kubeConfig().makeApiClient(CustomObjectsApi);
    t.emulator.faults.add({ match: { resource: 'ippools' }, action: { type: 'expireToken' }, skip: 1, times: 1 });
    await co.listClusterCustomObject({ group: 'loadbalancer.harvesterhci.io', version: 'v1beta1', plural: 'ippools' });
    const e = await failure(co.listClusterCustomObject({ group: 'loadbalancer.harvesterhci.io', version: 'v1beta1', plural: 'ippools' }));
    assert.equal(e.code, 401);
    const r = await t.kubectl(['get', 'nodes']);
    assert.match(r.stderr, /You must be logged in to the server/);
  });
});
