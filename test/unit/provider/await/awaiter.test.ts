/**
 * waitFor and waitForDeletion over a FakeResource and a ManualClock: how a set is named in messages, a check
 * that throws, the progress lines and pending checks of a deletion, and the abort listener left behind.
 */
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { ManualClock } from '../../../../emulator/clock';
import { waitFor, waitForDeletion } from '../../../../provider/await/awaiter';
import { WaitTimeoutError } from '../../../../provider/await/errors';
import { KubeObject } from '../../../../provider/client/objects';
import { FakeResource, flush, obj, outcome } from './fake-resource';

const FIX = 'If it is still progressing, raise the timeout (now 1m0s); otherwise inspect the objects on the cluster (kubectl describe) for the reason it is stuck.';

describe('waitFor (FakeResource, ManualClock)', () => {
  it('names a label-selected set by kind, namespace and selector in the timeout', async () => {
    const fake = new FakeResource();
    const clock = new ManualClock();
    const wait = waitFor({ resource: fake.client, namespace: 'default', labelSelector: 'pool=a', check: () => ({ done: false, description: 'x' }), timeoutMs: 60_000, what: 'pool a to be ready', clock });
    clock.advance(60_000);
    const err = await wait.catch((e) => e);
    assert.ok(err instanceof WaitTimeoutError);
    assert.equal(err.object, 'LoadBalancer objects in namespace default with labels pool=a');
    assert.equal(err.message, `Timed out after 1m0s waiting for pool a to be ready. Last seen: no matching LoadBalancer objects in namespace default with labels pool=a existed. ${FIX}`);
  });

  it('names an unselected set by kind and namespace only', async () => {
    const fake = new FakeResource();
    const clock = new ManualClock();
    const wait = waitFor({ resource: fake.client, namespace: 'apps', check: () => ({ done: false, description: 'x' }), timeoutMs: 60_000, what: 'everything', clock });
    clock.advance(60_000);
    assert.equal((await wait.catch((e) => e)).object, 'LoadBalancer objects in namespace apps');
  });

  it('names a set without a namespace as spanning all of them, not the default namespace', async () => {
    const fake = new FakeResource();
    const clock = new ManualClock();
    const wait = waitFor({ resource: fake.client, labelSelector: 'app=web', check: () => ({ done: false, description: 'x' }), timeoutMs: 60_000, what: 'everything', clock });
    clock.advance(60_000);
    assert.equal((await wait.catch((e) => e)).object, 'LoadBalancer objects with labels app=web');
  });

  it('rejects with the error a check throws, at once', async () => {
    const fake = new FakeResource();
    const thrown = new RangeError('bad check');
    const wait = waitFor({ resource: fake.client, name: 'lb1', check: () => { throw thrown; }, timeoutMs: 60_000, what: 'x', clock: new ManualClock() });
    fake.lastList().resolve({ resourceVersion: '5', items: [obj('lb1')] });
    assert.deepEqual(await outcome(wait), { error: thrown });
  });

  it('removes its abort listener when it ends', async () => {
    const fake = new FakeResource();
    const ac = new AbortController();
    const wait = waitFor({ resource: fake.client, name: 'lb1', check: (os) => ({ done: os.length > 0, description: 'x' }), timeoutMs: 60_000, what: 'x', clock: new ManualClock(), signal: ac.signal });
    assert.equal(getEventListeners(ac.signal, 'abort').length, 1);
    fake.lastList().resolve({ resourceVersion: '5', items: [obj('lb1')] });
    await wait;
    assert.equal(getEventListeners(ac.signal, 'abort').length, 0);
  });
});

describe('waitForDeletion (FakeResource, ManualClock)', () => {
  /** Wait for lb1's deletion, answer the list with `items`, let the deadline pass; the progress lines and the outcome. */
  async function deletion(items: KubeObject[]) {
    const fake = new FakeResource();
    const clock = new ManualClock();
    const lines: string[] = [];
    const wait = waitForDeletion({ resource: fake.client, name: 'lb1', timeoutMs: 60_000, what: 'LoadBalancer default/lb1 to be deleted', clock, onProgress: (l) => lines.push(l) });
    fake.lastList().resolve({ resourceVersion: '5', items });
    await flush();
    clock.advance(60_000);
    return { lines, result: await outcome(wait) };
  }
  const timedOut = (result: Awaited<ReturnType<typeof deletion>>['result']): WaitTimeoutError => {
    assert.ok(typeof result === 'object' && 'error' in result && result.error instanceof WaitTimeoutError, `a WaitTimeoutError, got ${JSON.stringify(result)}`);
    return result.error;
  };
  const deleting = { deletionTimestamp: '2026-01-01T00:00:00Z' };

  it('resolves once the object is gone, saying so', async () => {
    const { lines, result } = await deletion([]);
    assert.deepEqual(result, { value: undefined });
    assert.deepEqual(lines, ['LoadBalancer default/lb1 is gone']);
  });

  it('names the finalizers it waits for, each a pending check', async () => {
    const { lines, result } = await deletion([obj('lb1', { ...deleting, finalizers: ['a.io/x', 'b.io/y'] })]);
    assert.deepEqual(lines, ['LoadBalancer default/lb1 is being deleted (waiting for finalizers: a.io/x, b.io/y)']);
    const err = timedOut(result);
    assert.deepEqual(err.pending, ['finalizer a.io/x', 'finalizer b.io/y']);
    assert.equal(
      err.summary,
      'Timed out after 1m0s waiting for LoadBalancer default/lb1 to be deleted. Last seen: LoadBalancer default/lb1 is being deleted (waiting for finalizers: a.io/x, b.io/y). Still pending: finalizer a.io/x; finalizer b.io/y.',
    );
  });

  it('says only "being deleted" when no finalizers are left (field absent or empty), pending the deletion', async () => {
    for (const metadata of [deleting, { ...deleting, finalizers: [] }]) {
      const { lines, result } = await deletion([obj('lb1', metadata)]);
      assert.deepEqual(lines, ['LoadBalancer default/lb1 is being deleted'], JSON.stringify(metadata));
      assert.deepEqual(timedOut(result).pending, ['deletion']);
    }
  });

  it('says the object still exists when it is not marked for deletion', async () => {
    const { lines, result } = await deletion([obj('lb1', { finalizers: ['a.io/x'] })]);
    assert.deepEqual(lines, ['LoadBalancer default/lb1 still exists (not marked for deletion)']);
    assert.deepEqual(timedOut(result).pending, ['finalizer a.io/x']);
    const { lines: plain, result: plainResult } = await deletion([obj('lb1')]);
    assert.deepEqual(plain, ['LoadBalancer default/lb1 still exists (not marked for deletion)']);
    assert.deepEqual(timedOut(plainResult).pending, ['deletion']);
  });
});
