import assert from 'node:assert/strict';
import { decodeContinue, encodeContinue } from '../../../../emulator/api/store-list';
import { expectStatus, lb, lbKind, newStore, nsKind, poolKind } from './fixtures';

function names(items: { metadata: { namespace?: string; name?: string } }[]): string[] {
  return items.map((i) => (i.metadata.namespace ? `${i.metadata.namespace}/${i.metadata.name}` : i.metadata.name!));
}

function withNamespaces(...extra: string[]) {
  const env = newStore();
  for (const ns of extra) env.store.create(nsKind, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  return env;
}

describe('ObjectStore list', () => {
  it('sorts by namespace, then name, and reports the current resourceVersion', () => {
    const { store } = withNamespaces('a', 'a-b');
    for (const [ns, n] of [['default', 'z'], ['a-b', 'x'], ['a', 'y'], ['default', 'b'], ['a', 'c']]) {
      store.create(lbKind, { ...lb(n), metadata: { name: n, namespace: ns } });
    }
    const all = store.list(lbKind);
    assert.deepEqual(names(all.items), ['a/c', 'a/y', 'a-b/x', 'default/b', 'default/z']);
    assert.equal(all.resourceVersion, store.resourceVersion());
    assert.equal(all.continue, undefined);
    assert.deepEqual(names(store.list(lbKind, { namespace: 'a' }).items), ['a/c', 'a/y']);
    assert.deepEqual(store.list(lbKind, { namespace: 'empty' }).items, []);
  });

  it('items carry apiVersion and kind', () => {
    const { store } = newStore();
    store.create(lbKind, lb('lb1'));
    const [item] = store.list(lbKind).items;
    assert.equal(item.apiVersion, 'loadbalancer.harvesterhci.io/v1beta1');
    assert.equal(item.kind, 'LoadBalancer');
  });

  it('filters by label and field selectors', () => {
    const { store } = newStore();
    store.create(lbKind, lb('a', {}, { labels: { app: 'demo' } }));
    store.create(lbKind, lb('b', {}, { labels: { app: 'x' } }));
    store.create(lbKind, lb('c'));
    assert.deepEqual(names(store.list(lbKind, { labelSelector: 'app in (demo,x)' }).items), ['default/a', 'default/b']);
    assert.deepEqual(names(store.list(lbKind, { labelSelector: '!app' }).items), ['default/c']);
    assert.deepEqual(names(store.list(lbKind, { fieldSelector: 'metadata.name=b' }).items), ['default/b']);
    assert.deepEqual(names(store.list(lbKind, { fieldSelector: 'metadata.namespace!=default' }).items), []);
    expectStatus(() => store.list(lbKind, { fieldSelector: 'spec.ipam=pool' }), 400, 'BadRequest');
  });

  it('pages with limit/continue, keeps the first page\'s resourceVersion and counts the rest', () => {
    const { store } = newStore();
    for (const n of ['a', 'b', 'c', 'd', 'e']) store.create(lbKind, lb(n));
    const p1 = store.list(lbKind, { limit: 2 });
    assert.deepEqual(names(p1.items), ['default/a', 'default/b']);
    assert.equal(p1.remainingItemCount, 3);
    assert.ok(p1.continue);
    // Writes between pages are not seen: the continuation serves the first page's snapshot.
    store.create(lbKind, lb('bb'));
    store.delete(lbKind, 'default', 'd');
    const c = store.get(lbKind, 'default', 'c')!;
    store.update(lbKind, { ...c, spec: { ipam: 'pool' } });
    const p2 = store.list(lbKind, { limit: 2, continue: p1.continue });
    assert.deepEqual(names(p2.items), ['default/c', 'default/d']);
    assert.deepEqual(p2.items[0].spec, { ipam: 'dhcp' });
    assert.equal(p2.resourceVersion, p1.resourceVersion);
    const p3 = store.list(lbKind, { limit: 2, continue: p2.continue });
    assert.deepEqual(names(p3.items), ['default/e']);
    assert.equal(p3.continue, undefined);
    assert.equal(p3.remainingItemCount, undefined);
  });

  it('pages with selectors without remainingItemCount', () => {
    const { store } = newStore();
    for (const n of ['a', 'b', 'c', 'd']) store.create(lbKind, lb(n, {}, { labels: { keep: n === 'b' ? 'no' : 'yes' } }));
    const p1 = store.list(lbKind, { limit: 2, labelSelector: 'keep=yes' });
    assert.deepEqual(names(p1.items), ['default/a', 'default/c']);
    assert.equal(p1.remainingItemCount, undefined);
    const p2 = store.list(lbKind, { limit: 2, labelSelector: 'keep=yes', continue: p1.continue });
    assert.deepEqual(names(p2.items), ['default/d']);
    assert.equal(p2.continue, undefined);
  });

  it('a continue token older than the retained history is 410 with a fresh token that continues', () => {
    const { store } = newStore();
    for (const n of ['a', 'b', 'c']) store.create(lbKind, lb(n));
    const p1 = store.list(lbKind, { limit: 1 });
    store.create(lbKind, lb('d'));
    store.compact();
    const e = expectStatus(() => store.list(lbKind, { limit: 1, continue: p1.continue }), 410, 'Expired');
    assert.match(e.message, /^The provided continue parameter is too old to display a consistent list result\./);
    const fresh = e.status.metadata.continue as string;
    assert.ok(fresh);
    const rest = store.list(lbKind, { continue: fresh });
    assert.deepEqual(names(rest.items), ['default/b', 'default/c', 'default/d']);
    assert.equal(rest.resourceVersion, store.resourceVersion());
  });

  it('400 for a token that is not ours', () => {
    const { store } = newStore();
    const garbage = expectStatus(() => store.list(lbKind, { continue: 'garbage!' }), 400, 'BadRequest');
    assert.match(garbage.message, /^continue key is not valid: not a token returned by this server; restart the list without continue$/);
    const future = expectStatus(() => store.list(lbKind, { continue: encodeContinue(999999, 'x') }), 400, 'BadRequest');
    assert.match(future.message, /resource version is newer than this server's; restart the list without continue/);
    assert.deepEqual(decodeContinue(encodeContinue(5, 'ns\u0000n')), { rv: 5, start: 'ns\u0000n' });
  });

  it('lists cluster-scoped kinds whatever namespace is asked', () => {
    const { store } = newStore();
    store.create(poolKind, { apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'IPPool', metadata: { name: 'p1' } });
    assert.deepEqual(names(store.list(poolKind, { namespace: 'default' }).items), ['p1']);
  });

  it('lists 1000 objects quickly', () => {
    const { store } = newStore();
    for (let i = 0; i < 1000; i++) store.create(lbKind, lb(`lb-${String(i).padStart(4, '0')}`, { ipam: 'dhcp', listeners: [{ name: 'http', port: 80 }] }));
    const t0 = process.hrtime.bigint();
    const all = store.list(lbKind);
    const page = store.list(lbKind, { limit: 500 });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    assert.equal(all.items.length, 1000);
    assert.equal(page.remainingItemCount, 500);
    assert.ok(ms < 500, `listing took ${ms} ms`);
  });
});
