/** The etcd member controller of an emulated RKE2 cluster (emulator/guest/rke2/etcd.ts; k3s pkg/etcd/member_controller.go). */
import { strict as assert } from 'node:assert';
import { ObjectStore } from '../../../../emulator/api/store';
import { validateObject } from '../../../../emulator/api/validation';
import { ManualClock } from '../../../../emulator/clock';
import { createGuestRegistry, KINDS } from '../../../../emulator/kinds';
import { createEtcdMemberController, FINALIZER_ETCD } from '../../../../emulator/guest/rke2/etcd';
import type { KubeObject } from '../../../../emulator/api/types';

function server(name: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'node-role.kubernetes.io/etcd': 'true' }, annotations: { 'etcd.rke2.cattle.io/node-name': `${name}-m`, 'etcd.rke2.cattle.io/node-address': '10.0.0.1' } },
  };
}

describe('rke2 etcd member controller', () => {
  let clock: ManualClock;
  let store: ObjectStore;
  let quorum: boolean;
  let refuse: boolean;
  let removed: string[];
  let stop: () => void;
  const run = async () => {
    for (let i = 0; i < 20; i++) {
      await store.settle();
      clock.advance(0);
    }
  };

  beforeEach(() => {
    clock = new ManualClock();
    store = new ObjectStore(createGuestRegistry(), clock, { validate: validateObject });
    quorum = true;
    refuse = false;
    removed = [];
    const c = createEtcdMemberController({
      store,
      nodeKind: KINDS.node,
      clock,
      members: { hasQuorum: () => quorum, removeMember: (n) => (refuse ? 'refused' : (removed.push(n), true)), log: () => undefined },
    });
    stop = () => c.stop();
  });
  afterEach(() => stop());

  it('puts its finalizer on Nodes and removes the member when an etcd Node is deleted', async () => {
    store.create(KINDS.node, server('s1'));
    await run();
    assert.deepEqual(store.get(KINDS.node, undefined, 's1')!.metadata.finalizers, [FINALIZER_ETCD]);
    store.delete(KINDS.node, undefined, 's1');
    await run();
    assert.deepEqual(removed, ['s1-m']);
    assert.equal(store.get(KINDS.node, undefined, 's1'), undefined);
  });

  it('waits for quorum, and while etcd refuses the reconfiguration', async () => {
    store.create(KINDS.node, server('s1'));
    await run();
    quorum = false;
    store.delete(KINDS.node, undefined, 's1');
    await run();
    clock.advance(5000);
    await run();
    assert.deepEqual(removed, []);
    assert.ok(store.get(KINDS.node, undefined, 's1'), 'the Node stays while its finalizer cannot be handled');
    quorum = true;
    refuse = true;
    clock.advance(1000);
    await run();
    assert.ok(store.get(KINDS.node, undefined, 's1'));
    refuse = false;
    clock.advance(1000);
    await run();
    assert.deepEqual(removed, ['s1-m']);
    assert.equal(store.get(KINDS.node, undefined, 's1'), undefined);
  });

  it('removes a member on the remove annotation and records it', async () => {
    store.create(KINDS.node, server('s2'));
    await run();
    store.patch(KINDS.node, undefined, 's2', 'merge', { metadata: { annotations: { 'etcd.rke2.cattle.io/remove': 'true' } } });
    await run();
    const ann = store.get(KINDS.node, undefined, 's2')!.metadata.annotations!;
    assert.deepEqual(removed, ['s2-m']);
    assert.equal(ann['etcd.rke2.cattle.io/removed-node-name'], 's2-m');
    assert.equal(ann['etcd.rke2.cattle.io/node-name'], undefined);
  });

  it('leaves a Node without the etcd label alone on deletion', async () => {
    store.create(KINDS.node, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'a1' } });
    await run();
    store.delete(KINDS.node, undefined, 'a1');
    await run();
    assert.deepEqual(removed, []);
    assert.equal(store.get(KINDS.node, undefined, 'a1'), undefined);
  });
});
