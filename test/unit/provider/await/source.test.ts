/**
 * ListWatchSource driven by hand (FakeResource, RecordingClock): the cache keeps one entry per namespace/name in
 * sorted order; failures back off exponentially; fatal and unexpected failures stop it; callbacks of a stream
 * it has moved on from, or of a list answered after stop(), change nothing.
 */
import assert from 'node:assert/strict';
import { ListWatchSource, isFatalForWatch } from '../../../../provider/await/source';
import { ExpiredError, ForbiddenError, HarvesterError, NotFoundError, UnavailableError } from '../../../../provider/client/errors';
import { KubeObject } from '../../../../provider/client/objects';
import { FakeResource, RecordingClock, flush, obj } from './fake-resource';

const unavailable = () => new UnavailableError({ code: 'Unavailable', summary: 'connection refused', transient: true });
const names = (os: KubeObject[]) => os.map((o) => `${o.metadata.namespace}/${o.metadata.name}`);

/** A started source over a FakeResource, recording what it reports. */
function started(options: { name?: string; idleTimeoutMs?: number; backoffInitialMs?: number; backoffMaxMs?: number } = {}) {
  const fake = new FakeResource();
  const clock = new RecordingClock();
  const changes: string[][] = [];
  const errors: HarvesterError[] = [];
  const source = new ListWatchSource<KubeObject>({
    resource: fake.client,
    namespace: 'default',
    clock,
    onChange: (os) => changes.push(names(os)),
    onError: (err) => errors.push(err),
    ...options,
  });
  source.start();
  return { fake, clock, changes, errors, source };
}

describe('ListWatchSource (FakeResource, ManualClock)', () => {
  it('keys objects by namespace and name, and reports them sorted by namespace/name', async () => {
    const { fake, changes, source } = started();
    fake.lastList().resolve({ resourceVersion: '5', items: [obj('b'), obj('a', { namespace: 'x' }), obj('a'), obj('c', { namespace: 'apps' })] });
    await flush();
    assert.deepEqual(changes, [['apps/c', 'default/a', 'default/b', 'x/a']]);
    assert.deepEqual(names(source.objects()), ['apps/c', 'default/a', 'default/b', 'x/a']);
    fake.lastWatch().emit('ADDED', obj('0', { resourceVersion: '6' }));
    assert.deepEqual(changes[1], ['apps/c', 'default/0', 'default/a', 'default/b', 'x/a']);
    source.stop();
  });

  it('backs off exponentially (initial × 2^(failures-1)), capped at the maximum, before each re-list', async () => {
    const { fake, clock, source } = started({ backoffInitialMs: 1000, backoffMaxMs: 3000 });
    for (let attempt = 1; attempt <= 4; attempt++) {
      assert.equal(fake.lists.length, attempt);
      fake.lastList().reject(unavailable());
      await flush();
      clock.advance(clock.armed[clock.armed.length - 1]);
    }
    assert.deepEqual(clock.armed, [1000, 2000, 3000, 3000]);
    assert.equal(fake.lists.length, 5);
    source.stop();
  });

  it('stops and reports at once when the API is not served (NotFound with apiMissing), without backing off', async () => {
    const { fake, clock, errors } = started();
    const missing = new NotFoundError({ code: 'NotFound', summary: 'the server could not find the requested resource' }, true);
    fake.lastList().reject(missing);
    await flush();
    assert.deepEqual(errors, [missing]);
    assert.deepEqual(clock.armed, []);
    assert.equal(clock.pendingCount(), 0);
  });

  it('reports an unexpected (non-HarvesterError) list failure as Unknown, naming what was listed', async () => {
    const { fake, errors } = started({ name: 'lb1' });
    fake.lastList().reject(new TypeError('boom'));
    await flush();
    assert.equal(errors.length, 1);
    assert.equal(errors[0].code, 'Unknown');
    assert.equal(errors[0].message, 'Listing LoadBalancer default/lb1 failed: TypeError: boom.');
  });

  it('ignores a list that fails after stop() (no report from a stopped source)', async () => {
    const { fake, clock, errors, source } = started();
    source.stop();
    fake.lastList().reject(new TypeError('late'));
    await flush();
    assert.deepEqual(errors, []);
    assert.equal(clock.pendingCount(), 0);
  });

  it('ignores events from a stream it has abandoned (idle timeout) while still running', async () => {
    const { fake, clock, changes, source } = started({ idleTimeoutMs: 100 });
    fake.lastList().resolve({ resourceVersion: '5', items: [obj('a')] });
    await flush();
    const first = fake.lastWatch();
    clock.advance(100);
    assert.equal(fake.watches.length, 2, 'the idle stream is replaced');
    assert.ok(first.stopped);
    first.emit('ADDED', obj('stale', { resourceVersion: '9' }));
    assert.deepEqual(changes, [['default/a']], 'no change from the abandoned stream');
    assert.deepEqual(names(source.objects()), ['default/a']);
    source.stop();
  });

  it('ignores a late close of a stream it has abandoned (idle timeout): no re-list, no second watch', async () => {
    const { fake, clock, errors, source } = started({ idleTimeoutMs: 100, backoffInitialMs: 1000 });
    fake.lastList().resolve({ resourceVersion: '5', items: [] });
    await flush();
    const first = fake.lastWatch();
    clock.advance(100);
    first.close(unavailable());
    first.close();
    assert.deepEqual(clock.armed, [100, 100], 'only idle timers: no backoff armed for the old stream');
    assert.equal(fake.lists.length, 1, 'no re-list for the old stream');
    assert.equal(fake.watches.length, 2, 'only the idle restart opened a watch');
    assert.deepEqual(errors, []);
    first.close(new ForbiddenError({ code: 'Forbidden', summary: 'forbidden' }));
    assert.deepEqual(errors, [], 'not even a fatal error of the old stream stops the source');
    source.stop();
  });

  it('re-watches at once after a clean end that followed events, but backs off after a clean empty end', async () => {
    const { fake, clock, source } = started({ backoffInitialMs: 1000 });
    fake.lastList().resolve({ resourceVersion: '5', items: [] });
    await flush();
    fake.lastWatch().emit('ADDED', obj('a', { resourceVersion: '7' }));
    fake.lastWatch().close();
    assert.equal(fake.watches.length, 2, 'resumed at once');
    assert.equal(fake.lastWatch().options.resourceVersion, '7');
    fake.lastWatch().close();
    assert.equal(fake.watches.length, 2, 'an empty stream is not re-opened at once');
    clock.advance(999);
    assert.equal(fake.watches.length, 2);
    clock.advance(1);
    assert.equal(fake.watches.length, 3);
    assert.equal(fake.lastWatch().options.resourceVersion, '7');
    assert.equal(fake.lists.length, 1, 'a clean end never re-lists');
    source.stop();
  });

  it('ignores the idle timer of the stream it left for a re-list (410) while that list is pending', async () => {
    const { fake, clock, source } = started({ idleTimeoutMs: 100 });
    fake.lastList().resolve({ resourceVersion: '5', items: [] });
    await flush();
    fake.lastWatch().close(new ExpiredError({ code: 'Expired', summary: 'too old resource version: 5 (9)' }));
    assert.equal(fake.lists.length, 2, 're-listed at once');
    clock.advance(100);
    assert.equal(fake.watches.length, 1, 'no watch from the idle timer of the old stream');
    fake.lastList().resolve({ resourceVersion: '9', items: [] });
    await flush();
    assert.equal(fake.watches.length, 2);
    assert.equal(fake.lastWatch().options.resourceVersion, '9');
    source.stop();
  });

  it('never holds two streams: a stream that ended takes its idle timer with it (no watch opened during the backoff)', async () => {
    const { fake, clock, source } = started({ idleTimeoutMs: 100, backoffInitialMs: 150 });
    fake.lastList().resolve({ resourceVersion: '5', items: [] });
    await flush();
    fake.lastWatch().close(); // a clean, empty end: backs off 150 ms before watching again
    clock.advance(100);
    assert.equal(fake.watches.length, 1, 'the idle timer of the ended stream opened nothing');
    clock.advance(50);
    assert.equal(fake.watches.length, 2, 'the backoff\'s watch');
    source.stop();
    assert.equal(fake.watches[1].stopped, true);
  });
});

describe('isFatalForWatch', () => {
  it('is true for an API the server does not serve and for a refusal; false for a missing object or an outage', () => {
    assert.equal(isFatalForWatch(new NotFoundError({ code: 'NotFound', summary: 'no such API' }, true)), true);
    assert.equal(isFatalForWatch(new ForbiddenError({ code: 'Forbidden', summary: 'forbidden' })), true);
    assert.equal(isFatalForWatch(new NotFoundError({ code: 'NotFound', summary: 'no such object' })), false);
    assert.equal(isFatalForWatch(unavailable()), false);
  });
});
