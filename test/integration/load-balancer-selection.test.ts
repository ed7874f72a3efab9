/**
 * How Harvester chooses the pool of a load balancer that names none (docs/design/harvester-load-balancer.md
 * §"The rule"), seen through the provider: among pools whose selector matches its network and namespace the highest
 * priority wins; a pool scoped to another namespace never does, whatever its priority; the global pool is the last
 * fallback. Emulator only.
 */
import assert from 'node:assert/strict';
import { createIPPoolProvider } from '../../provider/resources/ip-pool/handlers';
import { createLoadBalancerProvider } from '../../provider/resources/load-balancer/handlers';
import type { LoadBalancerOutputs } from '../../provider/resources/load-balancer/model';
import { startTestEmulator, type TestEmulator } from '../support/emulator-harness';
import { acceptanceMode } from '../support/target';
import { fastConnect } from '../support/fast-connect';

type Raw = Record<string, unknown>;

describe('HarvesterLoadBalancer: pool selection by priority, scope and the global fallback', function () {
  this.timeout(60_000);
  let t: TestEmulator;
  const made: { lb: LoadBalancerOutputs; id: string }[] = [];
  const connect = fastConnect();
  const pools = createIPPoolProvider({ connect });
  const lbs = createLoadBalancerProvider({ connect });

  const create = async <P extends { check(o: Raw, n: Raw): Promise<{ inputs?: Raw; failures?: unknown[] }>; create(i: Raw): Promise<{ id: string; outs?: unknown }> }>(p: P, args: Raw) => {
    const checked = await p.check({}, { kubeconfig: t.emulator.kubeconfig, ...args });
    assert.deepEqual(checked.failures ?? [], []);
    return p.create(checked.inputs!);
  };

  before(async function () {
    if (acceptanceMode()) this.skip();
    t = await startTestEmulator();
    const subnet = (n: number) => [{ subnet: `10.5${n}.0.0/24`, rangeStart: `10.5${n}.0.10`, rangeEnd: `10.5${n}.0.20` }];
    await create(pools, { name: 'low', ranges: subnet(1), selector: { network: 'default/vm-net', priority: 1, scope: [{ namespace: 'default' }] } });
    await create(pools, { name: 'high', ranges: subnet(2), selector: { network: 'default/vm-net', priority: 5, scope: [{ namespace: 'default' }] } });
    await create(pools, { name: 'elsewhere', ranges: subnet(3), selector: { network: 'default/vm-net', priority: 9, scope: [{ namespace: 'kube-system' }] } });
    await create(pools, { name: 'global', ranges: subnet(4), selector: { scope: [{}] } });
  });
  after(async () => {
    for (const m of made) await lbs.delete(m.id, m.lb as unknown as Raw);
    await t?.stop();
  });

  const lbArgs = (name: string, extra: Raw = {}): Raw => ({ name, listeners: [{ name: 'http', port: 80, backendPort: 80 }], backendServerSelector: { app: ['none'] }, timeouts: { create: '10s', update: '10s', delete: '10s' }, ...extra });
  const allocated = async (name: string, extra: Raw = {}) => {
    // No backend runs: the address is allocated before Harvester looks for backends, so read it back from the object.
    const client = await connect({ kubeconfig: t.emulator.kubeconfig });
    const err = await create(lbs, lbArgs(name, { ...extra, timeouts: { create: '1s', update: '1s', delete: '10s' } })).then(() => undefined, (e: Error) => e);
    assert.ok(err === undefined || /no running VM matches backendServerSelector/.test(err.message), String(err));
    const ns = (extra.namespace as string | undefined) ?? 'default';
    const lb = (await client.loadBalancers.get(name, ns))!;
    made.push({ lb: { kubeconfig: t.emulator.kubeconfig, name, namespace: ns, timeouts: { create: '10s', update: '10s', delete: '10s' } } as unknown as LoadBalancerOutputs, id: `${ns}/${name}` });
    return lb.status?.allocatedAddress?.ipPool;
  };

  it('takes the highest-priority pool matching its network and namespace; a pool scoped elsewhere never wins', async () => {
    assert.equal(await allocated('picks-high', { network: 'default/vm-net' }), 'high');
  });

  it('falls back to the global pool when no selector matches', async () => {
    assert.equal(await allocated('falls-back', { namespace: 'harvester-public' }), 'global');
  });
});
