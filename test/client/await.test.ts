/**
 * waitFor over list + watch (nock streams, ManualClock): resolves on the right event, resumes after a clean
 * end, re-lists on 410 and on a dropped stream, stops on a rejected token, times out with a useful message,
 * and can be cancelled. No test sleeps: the deadline and backoffs run on a ManualClock.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import nock from 'nock';
import { ManualClock } from '../../emulator/clock';
import { waitFor, waitForDeletion } from '../../provider/await/awaiter';
import { WaitCancelledError, WaitTimeoutError } from '../../provider/await/errors';
import { LoadBalancer } from '../../provider/client/objects';
import { eventually } from '../support/emulator-harness';
import { LB, SERVER, lb, status, testClient, useNock } from './helpers';

const ready = (o?: LoadBalancer) => ({
  done: Boolean(o?.status?.address),
  description: o?.status?.address ? `address ${o.status.address}` : o ? 'waiting for an address' : 'LoadBalancer not created yet',
  pending: o?.status?.address ? [] : ['status.address'],
});
const listOf = (rv: string, ...items: object[]) => ({ kind: 'LoadBalancerList', metadata: { resourceVersion: rv }, items });
const event = (type: string, object: object) => `${JSON.stringify({ type, object })}\n`;

/** A watch stream the test writes to, and a promise of the request that opened it. */
function watchStream(query: Record<string, string | RegExp | boolean> | true) {
  const stream = new PassThrough();
  let opened!: (uri: string) => void;
  const requested = new Promise<string>((r) => (opened = r));
  nock(SERVER)
    .get(LB)
    .query(query === true ? true : { watch: 'true', timeoutSeconds: '300', allowWatchBookmarks: 'true', ...query })
    .reply(200, (uri) => {
      opened(uri);
      return stream;
    });
  return { stream, requested };
}

/** A ManualClock that records the delays armed and the timers fired. */
class RecordingClock extends ManualClock {
  readonly armed: number[] = [];
  readonly fired: number[] = [];
  override setTimeout(fn: () => void, ms: number) {
    this.armed.push(ms);
    return super.setTimeout(() => {
      this.fired.push(ms);
      fn();
    }, ms);
  }
}

describe('waitFor (nock watch streams, ManualClock)', () => {
  useNock();
  const streams: PassThrough[] = [];
  afterEach(() => streams.splice(0).forEach((s) => s.destroy()));
  const track = <T extends { stream: PassThrough }>(w: T) => (streams.push(w.stream), w);

  it('resolves when a watch event satisfies the check, reporting each new progress line once', async () => {
    const { client } = await testClient();
    nock(SERVER).get(LB).query({ fieldSelector: 'metadata.name=lb1', limit: '500' }).reply(200, listOf('10', lb('lb1')));
    const w = track(watchStream({ fieldSelector: 'metadata.name=lb1', resourceVersion: '10' }));
    const lines: string[] = [];
    const clock = new ManualClock();
    const done = waitFor<LoadBalancer>({ resource: client.loadBalancers, namespace: 'default', name: 'lb1', check: ([o]) => ready(o), timeoutMs: 60_000, what: 'LoadBalancer default/lb1 to get an address', onProgress: (l) => lines.push(l), clock });
    await w.requested;
    w.stream.write(event('MODIFIED', lb('lb1', { metadata: { resourceVersion: '11' } })));
    w.stream.write(event('MODIFIED', lb('lb1', { metadata: { resourceVersion: '12' }, status: { address: '10.0.0.5' } })));
    const [got] = await done;
    assert.equal(got.status?.address, '10.0.0.5');
    assert.deepEqual(lines, ['waiting for an address', 'address 10.0.0.5']);
    assert.equal(clock.pendingCount(), 0, 'deadline and idle timers cleared');
  });

  it('resumes from the last resourceVersion after a clean end of stream', async () => {
    const { client } = await testClient();
    nock(SERVER).get(LB).query(true).reply(200, listOf('10', lb('lb1')));
    const w1 = track(watchStream({ fieldSelector: 'metadata.name=lb1', resourceVersion: '10' }));
    const w2 = track(watchStream({ fieldSelector: 'metadata.name=lb1', resourceVersion: '15' }));
    const done = waitFor<LoadBalancer>({ resource: client.loadBalancers, name: 'lb1', check: ([o]) => ready(o), timeoutMs: 60_000, what: 'x', clock: new ManualClock() });
    await w1.requested;
    w1.stream.end(event('MODIFIED', lb('lb1', { metadata: { resourceVersion: '15' } })));
    await w2.requested;
    w2.stream.write(event('MODIFIED', lb('lb1', { metadata: { resourceVersion: '16' }, status: { address: '10.0.0.6' } })));
    assert.equal((await done)[0].status?.address, '10.0.0.6');
  });

  it('re-lists after an ERROR 410 Expired event, then watches from the new list', async () => {
    const { client } = await testClient();
    nock(SERVER).get(LB).query(true).reply(200, listOf('10', lb('lb1')));
    const w1 = track(watchStream({ fieldSelector: 'metadata.name=lb1', resourceVersion: '10' }));
    nock(SERVER).get(LB).query((q) => q.watch === undefined).reply(200, listOf('30', lb('lb1', { metadata: { resourceVersion: '30' } })));
    const w2 = track(watchStream({ fieldSelector: 'metadata.name=lb1', resourceVersion: '30' }));
    const done = waitFor<LoadBalancer>({ resource: client.loadBalancers, name: 'lb1', check: ([o]) => ready(o), timeoutMs: 60_000, what: 'x', clock: new ManualClock() });
    await w1.requested;
    w1.stream.end(event('ERROR', status(410, 'Expired', 'too old resource version: 10 (25)')));
    await w2.requested;
    w2.stream.write(event('MODIFIED', lb('lb1', { metadata: { resourceVersion: '31' }, status: { address: '10.0.0.7' } })));
    assert.equal((await done)[0].status?.address, '10.0.0.7');
  });

  it('backs off and re-lists after a watch connection is reset (events may have been lost)', async () => {
    const { client } = await testClient();
    const clock = new RecordingClock();
    nock(SERVER).get(LB).query(true).reply(200, listOf('10', lb('lb1')));
    nock(SERVER)
      .get(LB)
      .query((q) => q.watch === 'true')
      .replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    nock(SERVER).get(LB).query((q) => q.watch === undefined).reply(200, listOf('40', lb('lb1', { status: { address: '10.0.0.8' } })));
    const done = waitFor<LoadBalancer>({ resource: client.loadBalancers, name: 'lb1', check: ([o]) => ready(o), timeoutMs: 60_000, what: 'x', clock, backoffInitialMs: 1000 });
    await eventually(() => nock.pendingMocks().length === 1, 'the list and the reset watch are used up', 2000);
    // The event to wait for: the backoff armed on the clock (no sleep).
    await eventually(() => clock.armed.includes(1000), 'the 1000 ms backoff timer is armed', 2000);
    clock.advance(999);
    assert.deepEqual(clock.fired, [], 'no timer fires before the backoff elapses');
    assert.equal(nock.pendingMocks().length, 1, 'no re-list before the backoff elapses');
    clock.advance(1);
    assert.equal((await done)[0].status?.address, '10.0.0.8');
  });

  it('stops at once on a rejected token instead of retrying until the deadline', async () => {
    const { client } = await testClient();
    nock(SERVER).get(LB).query(true).reply(200, listOf('10', lb('lb1')));
    nock(SERVER).get(LB).query((q) => q.watch === 'true').reply(401, status(401, 'Unauthorized', 'Unauthorized'));
    const err = await waitFor<LoadBalancer>({ resource: client.loadBalancers, name: 'lb1', check: ([o]) => ready(o), timeoutMs: 60_000, what: 'x', clock: new ManualClock() }).catch((e) => e);
    assert.equal(err.code, 'TokenExpired');
  });

  it('times out with what was awaited, the last progress, what is pending and the option to raise', async () => {
    const { client } = await testClient();
    const clock = new ManualClock();
    nock(SERVER).get(LB).query(true).reply(200, listOf('10', lb('lb1')));
    const w = track(watchStream(true));
    const done = waitFor<LoadBalancer>({
      resource: client.loadBalancers,
      namespace: 'default',
      name: 'lb1',
      check: ([o]) => ready(o),
      timeoutMs: 120_000,
      what: 'LoadBalancer default/lb1 to get an address',
      timeoutOption: 'timeouts.create',
      clock,
    });
    await w.requested;
    clock.advance(120_000);
    const err = await done.catch((e) => e);
    assert.ok(err instanceof WaitTimeoutError);
    assert.equal(err.code, 'WaitTimeout');
    assert.equal(err.object, 'LoadBalancer default/lb1');
    assert.deepEqual(err.pending, ['status.address']);
    assert.equal(err.lastSeen.length, 1);
    assert.equal(
      err.message,
      'Timed out after 2m0s waiting for LoadBalancer default/lb1 to get an address. Last seen: waiting for an address. Still pending: status.address. ' +
        'If it is still progressing, raise `timeouts.create` (now 2m0s); otherwise inspect the objects on the cluster (kubectl describe) for the reason it is stuck.',
    );
  });

  it('rejects with a check error at once (a failure waiting cannot fix)', async () => {
    const { client } = await testClient();
    nock(SERVER).get(LB).query(true).reply(200, listOf('10', lb('lb1', { status: { conditions: [{ type: 'Ready', status: 'False', reason: 'IPPoolExhausted' }] } })));
    const err = await waitFor<LoadBalancer>({
      resource: client.loadBalancers,
      name: 'lb1',
      check: ([o]) => ({ done: false, description: 'x', error: o?.status?.conditions?.[0]?.reason === 'IPPoolExhausted' ? new Error('pool exhausted') : undefined }),
      timeoutMs: 60_000,
      what: 'x',
      clock: new ManualClock(),
    }).catch((e) => e);
    assert.equal(err.message, 'pool exhausted');
  });

  it('can be cancelled through an AbortSignal', async () => {
    const { client } = await testClient();
    nock(SERVER).get(LB).query(true).reply(200, listOf('10', lb('lb1')));
    const w = track(watchStream(true));
    const ac = new AbortController();
    const done = waitFor<LoadBalancer>({ resource: client.loadBalancers, name: 'lb1', check: ([o]) => ready(o), timeoutMs: 60_000, what: 'lb1 ready', clock: new ManualClock(), signal: ac.signal });
    await w.requested;
    ac.abort();
    const err = await done.catch((e) => e);
    assert.ok(err instanceof WaitCancelledError);
    assert.equal(err.code, 'Cancelled');
  });

  it('waits on a label-selected set and for deletion', async () => {
    const { client } = await testClient();
    nock(SERVER).get(LB).query({ labelSelector: 'pool=a', limit: '500' }).reply(200, listOf('10', lb('a-0'), lb('a-1', { status: { address: '10.0.0.1' } })));
    const w = track(watchStream({ labelSelector: 'pool=a', resourceVersion: '10' }));
    const lines: string[] = [];
    const done = waitFor<LoadBalancer>({
      resource: client.loadBalancers,
      namespace: 'default',
      labelSelector: 'pool=a',
      check: (os) => ({ done: os.length === 2 && os.every((o) => o.status?.address), description: `${os.filter((o) => o.status?.address).length}/${os.length} have an address` }),
      timeoutMs: 60_000,
      what: 'pool a',
      clock: new ManualClock(),
      onProgress: (l) => lines.push(l),
    });
    await w.requested;
    w.stream.write(event('MODIFIED', lb('a-0', { metadata: { resourceVersion: '11' }, status: { address: '10.0.0.2' } })));
    assert.equal((await done).length, 2);
    assert.deepEqual(lines, ['1/2 have an address', '2/2 have an address']);

    nock(SERVER).get(LB).query(true).reply(200, listOf('20', lb('lb1', { metadata: { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['wrangler.cattle.io/harvester-lb-controller'] } })));
    const w2 = track(watchStream(true));
    const progress: string[] = [];
    const gone = waitForDeletion<LoadBalancer>({ resource: client.loadBalancers, name: 'lb1', timeoutMs: 60_000, what: 'lb1 gone', clock: new ManualClock(), onProgress: (l) => progress.push(l) });
    await w2.requested;
    w2.stream.write(event('DELETED', lb('lb1', { metadata: { resourceVersion: '21' } })));
    await gone;
    assert.deepEqual(progress, [
      'LoadBalancer default/lb1 is being deleted (waiting for finalizers: wrangler.cattle.io/harvester-lb-controller)',
      'LoadBalancer default/lb1 is gone',
    ]);
  });
});
