import assert from 'node:assert/strict';
import { parseLabelSelector } from '../../../../emulator/api/selectors';
import { servedJson } from '../../../../emulator/api/served-json';
import { present } from '../../../../emulator/api/store-json';
import { lb, lbKind, newStore, nsKind } from './fixtures';

/** What a label-selected list returns when every object is matched in turn: the reference for the label index. */
function scanNames(store: ReturnType<typeof newStore>['store'], labelSelector: string, namespace?: string): string[] {
  const selector = parseLabelSelector(labelSelector);
  return store
    .list(lbKind, { namespace })
    .items.filter((o) => selector.matches(o.metadata.labels))
    .map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
}

describe('ObjectStore shared reads and the label index', () => {
  it('label-selected lists follow label changes, deletes and namespaces, in list order with paging', () => {
    const { store } = newStore();
    store.create(nsKind, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } });
    for (let i = 0; i < 12; i++) {
      const ns = i % 3 === 0 ? 'other' : 'default';
      store.create(lbKind, lb(`lb-${String(i).padStart(2, '0')}`, { ipam: 'dhcp' }, { namespace: ns, labels: { pool: i % 2 ? 'odd' : 'even', tier: `t${i % 3}` } }));
    }
    const moved = store.get(lbKind, 'default', 'lb-01')!;
    store.update(lbKind, { ...moved, metadata: { ...moved.metadata, labels: { pool: 'even', tier: 'tx' } } });
    store.delete(lbKind, 'default', 'lb-02');
    const names = (sel: string, ns?: string, limit?: number): string[] => {
      const out: string[] = [];
      let cont: string | undefined;
      do {
        const page = store.list(lbKind, { namespace: ns, labelSelector: sel, limit, continue: cont });
        out.push(...page.items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`));
        cont = page.continue;
      } while (cont);
      return out;
    };
    for (const sel of ['pool=even', 'pool in (odd,even),tier!=t1', 'tier=tx', 'pool=none', 'pool=odd,tier in (t0,t2)']) {
      for (const ns of [undefined, 'default', 'other']) {
        const expected = scanNames(store, sel, ns);
        assert.deepEqual(names(sel, ns), expected, `${sel} in ${ns ?? 'all namespaces'}`);
        assert.deepEqual(names(sel, ns, 2), expected, `${sel} in ${ns ?? 'all namespaces'}, pages of 2`);
      }
    }
    assert.deepEqual(names('pool=even', 'default'), ['default/lb-01', 'default/lb-04', 'default/lb-08', 'default/lb-10']);
  });

  it('shared reads are the frozen stored objects; their JSON equals the presented copy', () => {
    const { store } = newStore();
    store.create(lbKind, lb('a', { ipam: 'dhcp' }, { labels: { app: 'demo' } }));
    const shared = store.getShared(lbKind, 'default', 'a')!;
    assert.ok(Object.isFrozen(shared) && Object.isFrozen(shared.metadata));
    assert.equal(store.listShared(lbKind).items[0], shared);
    assert.equal(servedJson(lbKind, shared), JSON.stringify(present(lbKind, shared)));
    const other = { ...lbKind, version: 'v1alpha1' };
    assert.equal(servedJson(other, shared), JSON.stringify(present(other, shared)));
    assert.equal(store.getShared(other, 'default', 'a')!.apiVersion, 'loadbalancer.harvesterhci.io/v1alpha1');
  });
});
