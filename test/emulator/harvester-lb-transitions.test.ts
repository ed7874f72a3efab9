/**
 * LoadBalancer IPAM moves in both directions, and an IPPool whose ranges cannot be used (written before the
 * webhook could see it) never reported Ready. Denials are asserted by their whole message, as the load-balancer
 * webhook sends them through wrangler (webhook name, "Internal error occurred: ", the reason).
 */
import { strict as assert } from 'node:assert';
import { ObjectStore } from '../../emulator/api/store';
import { KubeObject } from '../../emulator/api/types';
import { validateObject } from '../../emulator/api/validation';
import { ManualClock } from '../../emulator/clock';
import { installHarvester, seedHarvester } from '../../emulator/harvester';
import { KINDS, createHarvesterRegistry } from '../../emulator/kinds';
import { expectStatusError, HarvesterSim, settle, startHarvesterSim } from './harvester-fixture';

const DENIED = 'admission webhook "validator.harvester-system.harvester-load-balancer-webhook" denied the request: Internal error occurred: ';
const listeners = [{ name: 'a', port: 80, protocol: 'TCP', backendPort: 8080 }];

function lb(name: string, ipam: string): KubeObject {
  return { apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'LoadBalancer', metadata: { name, namespace: 'default' }, spec: { ipam, listeners } };
}

function pool(name: string, ranges: Record<string, string>[]): KubeObject {
  return { apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'IPPool', metadata: { name }, spec: { ranges } };
}

const readyOf = (o: KubeObject | undefined) => ((o?.status as { conditions?: { type: string; status: string; message?: string }[] })?.conditions ?? []).find((c) => c.type === 'Ready');

describe('simulated Harvester: LoadBalancer IPAM moves and unusable IP pools', () => {
  describe('IPAM can never change in place', () => {
    let sim: HarvesterSim;
    beforeEach(async () => {
      sim = await startHarvesterSim({ delays: { vmiSchedule: 10, vmiBoot: 10, guestAgent: 10 } });
    });
    afterEach(() => sim.close());

    it('denies dhcp → pool, naming both, and keeps the LB on dhcp', async () => {
      sim.store.create(sim.kinds.loadBalancer, lb('on-dhcp', 'dhcp'));
      await sim.run(0);
      const err = expectStatusError(() => sim.store.patch(sim.kinds.loadBalancer, 'default', 'on-dhcp', 'merge', { spec: { ipam: 'pool' } }));
      assert.equal(err.status.message, `${DENIED}update loadbalancer default/on-dhcp failed: can't change the IPAM from dhcp to pool`);
      assert.equal((sim.store.get(sim.kinds.loadBalancer, 'default', 'on-dhcp')!.spec as { ipam: string }).ipam, 'dhcp');
    });

    it('denies pool → dhcp too, and lets an update that keeps the IPAM through', async () => {
      sim.store.create(sim.kinds.loadBalancer, lb('on-pool', 'pool'));
      const err = expectStatusError(() => sim.store.patch(sim.kinds.loadBalancer, 'default', 'on-pool', 'merge', { spec: { ipam: 'dhcp' } }));
      assert.equal(err.status.message, `${DENIED}update loadbalancer default/on-pool failed: can't change the IPAM from pool to dhcp`);
      sim.store.patch(sim.kinds.loadBalancer, 'default', 'on-pool', 'merge', { spec: { description: 'kept on pool' } });
      assert.equal((sim.store.get(sim.kinds.loadBalancer, 'default', 'on-pool')!.spec as { description: string }).description, 'kept on pool');
    });
  });

  describe('an IP pool whose ranges cannot be used', () => {
    it('gets no status: the IPAM controller fails with the allocator\'s reason and writes nothing until the ranges are fixed', async () => {
      // Written before the webhooks are installed: the state a pool reaches past a webhook outage. Upstream's
      // OnChange returns ipam.NewAllocator's error before updateStatus, so no Ready=False is ever written.
      const clock = new ManualClock();
      const store = new ObjectStore(createHarvesterRegistry(), clock, { validate: validateObject });
      seedHarvester(store);
      const created = store.create(KINDS.ipPool, pool('broken', [{ subnet: '10.30.0.0/24', rangeStart: '10.31.0.5' }]));
      const harvester = installHarvester(store, clock, {});
      try {
        await settle(store, clock);
        const broken = store.get(harvester.kinds.ipPool, undefined, 'broken')!;
        assert.equal(broken.metadata.resourceVersion, created.metadata.resourceVersion, 'the controller wrote to a pool it cannot use');
        assert.equal(readyOf(broken), undefined, 'no Ready condition for unusable ranges');
        const errors = harvester.errors().map((e) => [e.controller, e.key, e.message]);
        assert.ok(errors.length > 0, 'the controller reported no error');
        for (const e of errors) {
          assert.deepEqual(e, ['harvester-ipam-controller', 'broken', 'invalid range start 10.31.0.5: IP 10.31.0.5 is out of subnet 10.30.0.0/24']);
        }
        store.patch(harvester.kinds.ipPool, undefined, 'broken', 'merge', { spec: { ranges: [{ subnet: '10.30.0.0/24', rangeStart: '10.30.0.5' }] } });
        await settle(store, clock);
        const fixed = store.get(harvester.kinds.ipPool, undefined, 'broken')!;
        assert.equal(readyOf(fixed)?.status, 'True');
        assert.equal((fixed.status as { total: number }).total, 250);
      } finally {
        harvester.stop();
      }
    });
  });
});
