import assert from 'node:assert/strict';
import { KubeObject, WatchEvent } from '../../../../emulator/api/types';
import { expectStatus, lb, lbKind, newStore } from './fixtures';

type Seen = { type: string; name?: string; rv?: string };

function recorder(): { seen: Seen[]; on: (e: WatchEvent) => void } {
  const seen: Seen[] = [];
  return {
    seen,
    on: (e) => {
      const o = e.object as KubeObject;
      seen.push({ type: e.type, name: o.metadata?.name, rv: o.metadata?.resourceVersion });
    },
  };
}

describe('ObjectStore watch', () => {
  it('unset or "0": synthetic ADDED for current objects in list order, then live events', async () => {
    for (const rv of [undefined, '0']) {
      const { store } = newStore();
      store.create(lbKind, lb('b'));
      store.create(lbKind, lb('a'));
      const r = recorder();
      const h = store.watch(lbKind, { resourceVersion: rv }, r.on);
      store.create(lbKind, lb(`c${rv ?? ''}`));
      await store.settle();
      assert.deepEqual(r.seen.map((s) => `${s.type} ${s.name}`), ['ADDED a', 'ADDED b', `ADDED c${rv ?? ''}`]);
      h.stop();
    }
  });

  it('delivers asynchronously: nothing arrives before the watch() call returns', async () => {
    const { store } = newStore();
    store.create(lbKind, lb('a'));
    const r = recorder();
    store.watch(lbKind, {}, r.on);
    assert.equal(r.seen.length, 0);
    await store.settle();
    assert.equal(r.seen.length, 1);
  });

  it('"N": replays every event after N, then live', async () => {
    const { store } = newStore();
    const a = store.create(lbKind, lb('a'));
    store.update(lbKind, { ...a, spec: { ipam: 'pool' } });
    store.delete(lbKind, 'default', 'a');
    const r = recorder();
    store.watch(lbKind, { resourceVersion: a.metadata.resourceVersion }, r.on);
    store.create(lbKind, lb('b'));
    await store.settle();
    assert.deepEqual(r.seen.map((s) => `${s.type} ${s.name}`), ['MODIFIED a', 'DELETED a', 'ADDED b']);
    const rvs = r.seen.map((s) => Number(s.rv));
    assert.deepEqual(rvs, [...rvs].sort((x, y) => x - y));
  });

  it('too old: one ERROR event with a 410 Expired Status, and nothing more', async () => {
    const { store } = newStore();
    const a = store.create(lbKind, lb('a'));
    store.create(lbKind, lb('b'));
    store.compact();
    const compactedAt = store.resourceVersion();
    const events: WatchEvent[] = [];
    const h = store.watch(lbKind, { resourceVersion: a.metadata.resourceVersion }, (e) => events.push(e));
    assert.equal(h.stopped, true);
    store.create(lbKind, lb('c'));
    await store.settle();
    assert.equal(events.length, 1);
    assert.equal(events[0].type, 'ERROR');
    assert.deepEqual(events[0].object, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `too old resource version: ${a.metadata.resourceVersion} (${compactedAt})`,
      reason: 'Expired',
      code: 410,
    });
  });

  it('a bounded history makes old resume points expire', async () => {
    const { store } = newStore({ historySize: 3 });
    const a = store.create(lbKind, lb('a'));
    for (const n of ['b', 'c', 'd']) store.create(lbKind, lb(n));
    // Only the last 3 writes (b, c, d) are kept: resuming after a still works, resuming before a does not.
    const ok = recorder();
    store.watch(lbKind, { resourceVersion: a.metadata.resourceVersion }, ok.on);
    const old = recorder();
    store.watch(lbKind, { resourceVersion: String(Number(a.metadata.resourceVersion) - 1) }, old.on);
    await store.settle();
    assert.deepEqual(ok.seen.map((s) => `${s.type} ${s.name}`), ['ADDED b', 'ADDED c', 'ADDED d']);
    assert.deepEqual(old.seen.map((s) => s.type), ['ERROR']);
  });

  it('selectors: entering gives ADDED, leaving gives DELETED with the previous state at the new rv', async () => {
    const { store } = newStore();
    const a = store.create(lbKind, lb('a', {}, { labels: { app: 'no' } }));
    const events: WatchEvent[] = [];
    store.watch(lbKind, { resourceVersion: store.resourceVersion(), labelSelector: 'app=yes' }, (e) => events.push(e));
    const b = store.update(lbKind, { ...a, metadata: { ...a.metadata, labels: { app: 'yes' } } });
    const c = store.update(lbKind, { ...b, spec: { ipam: 'pool' } });
    const d = store.update(lbKind, { ...c, metadata: { ...c.metadata, labels: { app: 'no' } } });
    store.update(lbKind, { ...d, spec: { ipam: 'dhcp' } });
    await store.settle();
    assert.deepEqual(events.map((e) => e.type), ['ADDED', 'MODIFIED', 'DELETED']);
    const left = events[2].object as KubeObject;
    assert.deepEqual(left.metadata.labels, { app: 'yes' }, 'the last state the watcher could see');
    assert.equal(left.metadata.resourceVersion, d.metadata.resourceVersion);
  });

  it('field selector and namespace scoping (how kubectl watches one object)', async () => {
    const { store } = newStore();
    const r = recorder();
    store.watch(lbKind, { namespace: 'default', fieldSelector: 'metadata.name=b' }, r.on);
    store.create(lbKind, lb('a'));
    store.create(lbKind, lb('b'));
    await store.settle();
    assert.deepEqual(r.seen.map((s) => `${s.type} ${s.name}`), ['ADDED b']);
    expectStatus(() => store.watch(lbKind, { fieldSelector: 'spec.ipam=x' }, () => undefined), 400, 'BadRequest');
    expectStatus(() => store.watch(lbKind, { resourceVersion: 'abc' }, () => undefined), 400, 'BadRequest');
  });

  it('stop() ends delivery, including queued events', async () => {
    const { store } = newStore();
    const r = recorder();
    const h = store.watch(lbKind, {}, r.on);
    store.create(lbKind, lb('a'));
    h.stop();
    await store.settle();
    assert.deepEqual(r.seen, []);
    assert.equal(store.watcherCount(), 0);
  });

  it('BOOKMARK only when asked for, with the current resourceVersion', async () => {
    const { store } = newStore();
    const events: WatchEvent[] = [];
    const h = store.watch(lbKind, { allowWatchBookmarks: true }, (e) => events.push(e));
    const plain = store.watch(lbKind, {}, (e) => events.push(e));
    store.create(lbKind, lb('a'));
    h.bookmark();
    plain.bookmark();
    await store.settle();
    assert.deepEqual(events.map((e) => e.type), ['ADDED', 'ADDED', 'BOOKMARK']);
    assert.deepEqual(events[2].object, { kind: 'LoadBalancer', apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', metadata: { resourceVersion: store.resourceVersion() } });
  });

  it('a throwing callback is reported and does not disturb the store or other watchers', async () => {
    const { store, errors } = newStore();
    store.watch(lbKind, {}, () => {
      throw new Error('boom');
    });
    const r = recorder();
    store.watch(lbKind, {}, r.on);
    store.create(lbKind, lb('a'));
    store.create(lbKind, lb('b'));
    await store.settle();
    assert.equal(errors.length, 2);
    assert.deepEqual(r.seen.map((s) => s.name), ['a', 'b']);
    assert.equal(store.list(lbKind).items.length, 2);
  });

  it('a callback that writes back is not re-entered and sees events in order', async () => {
    const { store } = newStore();
    const order: string[] = [];
    let depth = 0;
    store.watch(lbKind, {}, (e) => {
      depth++;
      assert.equal(depth, 1, 'never re-entered');
      const o = e.object as KubeObject;
      order.push(`${e.type} ${o.metadata.name} ${(o.metadata.labels ?? {}).n ?? ''}`);
      const n = Number((o.metadata.labels ?? {}).n ?? '0');
      // A controller bumping a counter label up to 50 times: a long chain of reactions.
      if (e.type !== 'DELETED' && n < 50) store.patch(lbKind, 'default', o.metadata.name!, 'merge', { metadata: { labels: { n: String(n + 1) } } });
      depth--;
    });
    store.create(lbKind, lb('a'));
    await store.settle();
    assert.equal(order.length, 51);
    assert.equal(order[0], 'ADDED a ');
    assert.equal(order[50], 'MODIFIED a 50');
  });

  it('events are copies: a callback mutating its object changes nothing', async () => {
    const { store } = newStore();
    store.watch(lbKind, {}, (e) => {
      (e.object as KubeObject).metadata.name = 'mutated';
    });
    store.create(lbKind, lb('a'));
    await store.settle();
    assert.ok(store.get(lbKind, 'default', 'a'));
  });
});
