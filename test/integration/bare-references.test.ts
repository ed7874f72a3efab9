/**
 * One rule for references in every resource (core/object-ref.ts): a bare name means the resource's namespace (for a
 * cluster-scoped IP pool, "default"). The objects Harvester matches on carry the qualified name — an IP pool's
 * selector.network and a load balancer's network annotation must agree for the pool to serve it — and a refresh
 * reads the user's own spelling back, so a bare name is never drift.
 */
import assert from 'node:assert/strict';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { ResourceInitError } from '../../provider/core/errors';
import { createIPPoolProvider } from '../../provider/resources/ip-pool/handlers';
import { createLoadBalancerProvider } from '../../provider/resources/load-balancer/handlers';
import { NETWORK_ANNOTATION } from '../../provider/resources/load-balancer/plan';
import { startTestEmulator, type TestEmulator } from '../support/emulator-harness';
import { fastConnect } from '../support/fast-connect';
import { acceptanceMode } from '../support/target';

type Raw = Record<string, unknown>;

describe('references: a bare name means the resource\'s namespace, everywhere', function () {
  this.timeout(60_000);
  let t: TestEmulator;
  let client: HarvesterClient;
  const connect = fastConnect();
  const pools = createIPPoolProvider({ connect });
  const lbs = createLoadBalancerProvider({ connect });
  const fast = { create: '10s', update: '10s', delete: '10s' };

  before(async function () {
    if (acceptanceMode()) this.skip();
    t = await startTestEmulator();
    client = await HarvesterClient.connect({ kubeconfig: t.emulator.kubeconfig });
  });
  after(async () => t?.stop());

  it('an IP pool and a load balancer naming the VM network bare are matched by Harvester, and read back bare with no drift', async () => {
    const checkedPool = await pools.check({}, { kubeconfig: t.emulator.kubeconfig, name: 'bare-pool', ranges: [{ subnet: '10.91.0.0/24' }], selector: { network: 'vm-net', priority: 7, scope: [{ namespace: 'default' }] }, timeouts: fast });
    assert.equal(checkedPool.failures, undefined, JSON.stringify(checkedPool.failures));
    const pool = (await pools.create(checkedPool.inputs!)).outs!;
    assert.equal((await client.ipPools.get('bare-pool'))!.spec!.selector!.network, 'default/vm-net', 'the pool records the qualified name Harvester matches on');

    const lbArgs: Raw = { kubeconfig: t.emulator.kubeconfig, name: 'bare-lb', network: 'vm-net', listeners: [{ name: 'http', port: 80, backendPort: 80 }], backendServerSelector: { app: ['web'] }, timeouts: { create: '2s', update: '2s', delete: '10s' } };
    const checkedLb = await lbs.check({}, lbArgs);
    assert.equal(checkedLb.failures, undefined, JSON.stringify(checkedLb.failures));
    // No VM runs behind it, so it never gets Ready: the create is recorded as a partial failure with what exists.
    const err = await lbs.create(checkedLb.inputs!).catch((e: unknown) => e);
    assert.ok(err instanceof ResourceInitError, String(err));
    const lb = err.properties;
    const live = (await client.loadBalancers.get('bare-lb', 'default'))!;
    assert.equal(live.metadata.annotations![NETWORK_ANNOTATION], 'default/vm-net');
    assert.equal(live.status?.allocatedAddress?.ipPool, 'bare-pool', 'Harvester chose the pool of that network (the two qualified names agree)');

    for (const [provider, id, outs, key] of [[pools, 'bare-pool', pool, 'selector'], [lbs, 'default/bare-lb', lb, 'network']] as const) {
      const read = await provider.read(id, outs as unknown as Raw);
      assert.deepEqual((read.props as { drift: string[] }).drift.filter((d) => !d.includes('did not finish')), [], `${id}: no drift`);
      const value = key === 'network' ? read.inputs!.network : (read.inputs!.selector as Raw).network;
      assert.equal(value, 'vm-net', `${id}: read back as the user spelt it`);
      const diff = await provider.diff(id, { ...(read.props as unknown as Raw), drift: [] }, (key === 'network' ? checkedLb : checkedPool).inputs!);
      assert.equal(diff.changes, false, `${id}: the bare name read back is no change`);
    }
    await lbs.delete('default/bare-lb', lb as unknown as Raw);
    await pools.delete('bare-pool', pool as unknown as Raw);
  });
});
