/**
 * The emulator's IPPool webhook and allocator against upstream's rules (test/support/ippool-rules.ts, the table the
 * provider's check runs too): what is refused, with upstream's message; what is accepted, with the number of
 * addresses it hands out and the first one a load balancer gets; an exhausted pool's message, word for word.
 */
import { strict as assert } from 'node:assert';
import { KubeObject } from '../../emulator/api/types';
import { desiredPool } from '../../provider/resources/ip-pool/plan';
import { ipPoolSchema } from '../../provider/resources/ip-pool/model';
import { IPPOOL_RULE_CASES } from '../support/ippool-rules';
import { expectStatusError, HarvesterSim, startHarvesterSim } from './harvester-fixture';

const DENIED = 'admission webhook "validator.harvester-system.harvester-load-balancer-webhook" denied the request: Internal error occurred: ';
const BECAUSE = "can't create IP pool p because ";

function pool(name: string, spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'IPPool', metadata: { name }, spec };
}

function lb(name: string, ipPool: string): KubeObject {
  return { apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'LoadBalancer', metadata: { name, namespace: 'default' }, spec: { workloadType: 'cluster', ipam: 'pool', ipPool } };
}

describe('simulated Harvester: IPPool rules as upstream has them', () => {
  let sim: HarvesterSim;
  beforeEach(async () => {
    sim = await startHarvesterSim();
  });
  afterEach(() => sim.close());

  const status = (kind: 'ipPool' | 'loadBalancer', name: string) => (sim.store.get(sim.kinds[kind], kind === 'ipPool' ? undefined : 'default', name)!.status ?? {}) as Record<string, any>;
  const readyMessage = (name: string) => (status('loadBalancer', name).conditions ?? []).find((c: { type: string }) => c.type === 'Ready')?.message;
  /** The pool the provider writes for these inputs (the model's defaults applied; its own check not run). */
  const written = (args: Record<string, unknown>) => desiredPool(ipPoolSchema.parse({ name: 'p', ...args })) as KubeObject;

  for (const c of IPPOOL_RULE_CASES) {
    it(`${c.refused ? 'refuses' : 'accepts'} ${c.label}`, async () => {
      for (const e of c.existing ?? []) sim.store.create(sim.kinds.ipPool, pool(e.name, e.spec));
      if (c.refused) {
        const message = expectStatusError(() => sim.store.create(sim.kinds.ipPool, written(c.args))).status.message ?? '';
        assert.ok(message.startsWith(DENIED + BECAUSE), message);
        const reason = message.slice((DENIED + BECAUSE).length);
        if (typeof c.refused.webhook === 'string') assert.equal(reason, c.refused.webhook);
        else assert.match(reason, c.refused.webhook);
        return;
      }
      sim.store.create(sim.kinds.ipPool, written(c.args));
      sim.store.create(sim.kinds.loadBalancer, lb('first', 'p'));
      await sim.run(0);
      assert.equal(status('ipPool', 'p').total, c.accepted!.total);
      if (c.accepted!.first) assert.equal(status('loadBalancer', 'first').allocatedAddress?.ip, c.accepted!.first);
    });
  }

  it('an exhausted /31 reads as upstream: requestIP around host-local\'s error, the range set as start-end', async () => {
    sim.store.create(sim.kinds.ipPool, pool('p31', { ranges: [{ subnet: '10.1.0.4/31' }] }));
    sim.store.create(sim.kinds.loadBalancer, lb('a', 'p31'));
    sim.store.create(sim.kinds.loadBalancer, lb('b', 'p31'));
    await sim.run(0);
    const [winner, loser] = status('loadBalancer', 'a').allocatedAddress?.ip ? ['a', 'b'] : ['b', 'a'];
    assert.equal(status('loadBalancer', winner).allocatedAddress.ip, '10.1.0.4');
    assert.equal(readyMessage(loser), 'fail to get ip from pool p31, error: no IP addresses available in range set: 10.1.0.4-10.1.0.5');
  });

  it('accepts a range whose only address is the default gateway, which then hands out nothing (the provider\'s check refuses it)', async () => {
    sim.store.create(sim.kinds.ipPool, pool('gw', { ranges: [{ subnet: '10.1.0.0/24', rangeStart: '10.1.0.1', rangeEnd: '10.1.0.1' }] }));
    sim.store.create(sim.kinds.loadBalancer, lb('a', 'gw'));
    await sim.run(0);
    assert.equal(status('ipPool', 'gw').total, 0);
    assert.equal(readyMessage('a'), 'fail to get ip from pool gw, error: no IP addresses available in range set: 10.1.0.1-10.1.0.1');
  });
});
