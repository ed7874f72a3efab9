/**
 * load-balancer-harvester's IPPool and LoadBalancer webhooks (pkg/webhook/ippool/mutator.go, validator.go,
 * pkg/utils/vid.go GetVid, pkg/webhook/loadbalancer/mutator.go, validator.go), beyond harvester-lb.test.ts and
 * harvester-ippool-rules.test.ts: the VLAN id a pool is labelled with (the NAD's vlan-id label, else its config),
 * the selector printed as Go's `%+v` (every field, absent ones empty), which ranges overlap, which scope tuples
 * clash, listeners without a name, and the values an absent ipam or workloadType prints as.
 * Every denial is wrangler's 500 `Internal error occurred: …`.
 */
import { strict as assert } from 'node:assert';
import { KubeObject } from '../../emulator/api/types';
import { expectStatusError, HarvesterSim, startHarvesterSim } from './harvester-fixture';

const WRANGLER = 'denied the request: Internal error occurred: ';
const POOL_VALIDATOR = `admission webhook "validator.harvester-system.harvester-load-balancer-webhook" ${WRANGLER}`;
const POOL_MUTATOR = `admission webhook "mutator.harvester-system.harvester-load-balancer-webhook" ${WRANGLER}`;
const VID = 'loadbalancer.harvesterhci.io/vid';

function pool(name: string, spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'IPPool', metadata: { name }, spec };
}

function lb(name: string, spec: Record<string, unknown>, annotations?: Record<string, string>): KubeObject {
  return { apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'LoadBalancer', metadata: { name, namespace: 'default', annotations }, spec };
}

/** A bridge NAD on mgmt; `vlanLabel` is what a user (or the NAD controller) put in its vlan-id label. */
function nad(name: string, vlan: number, vlanLabel?: string): KubeObject {
  const labels: Record<string, string> = { 'network.harvesterhci.io/clusternetwork': 'mgmt', ...(vlanLabel === undefined ? {} : { 'network.harvesterhci.io/vlan-id': vlanLabel }) };
  const config = { cniVersion: '0.3.1', name, type: 'bridge', bridge: 'mgmt-br', promiscMode: true, vlan, ipam: {} };
  return { apiVersion: 'k8s.cni.cncf.io/v1', kind: 'NetworkAttachmentDefinition', metadata: { name, namespace: 'default', labels }, spec: { config: JSON.stringify(config) } };
}

describe('load-balancer webhooks: IPPool VLAN label, selector and ranges; LoadBalancer listeners and transitions', () => {
  let sim: HarvesterSim;
  beforeEach(async () => {
    // No sim.run after a NAD is written: the NAD controller would rewrite its vlan-id label.
    sim = await startHarvesterSim();
  });
  afterEach(() => sim.close());

  const createPool = (name: string, spec: Record<string, unknown>) => sim.store.create(sim.kinds.ipPool, pool(name, spec));
  const refusal = (fn: () => unknown) => expectStatusError(fn).status.message;
  const ranges = (...subnets: string[]) => subnets.map((subnet) => ({ subnet }));

  describe('IPPool mutator: the vid label (GetVid)', () => {
    for (const label of ['abc', '5x', 'x5']) {
      it(`refuses a NAD whose vlan-id label "${label}" is not an integer`, () => {
        sim.store.create(sim.kinds.nad, nad('net', 300, label));
        assert.equal(
          refusal(() => createPool('p', { ranges: ranges('10.60.0.0/24'), selector: { network: 'default/net', scope: [{ namespace: 'a' }] } })),
          `${POOL_MUTATOR}can't create IP pool p because invalid vlan ${label}`,
        );
      });
    }

    it("takes the NAD's vlan-id label over its config", () => {
      sim.store.create(sim.kinds.nad, nad('net', 300, '7'));
      const created = createPool('p', { ranges: ranges('10.60.0.0/24'), selector: { network: 'default/net', scope: [{ namespace: 'a' }] } });
      assert.equal(created.metadata.labels![VID], '7');
    });

    it("falls back to the NAD config's vlan without the label", () => {
      sim.store.create(sim.kinds.nad, nad('net', 300));
      const created = createPool('p', { ranges: ranges('10.60.0.0/24'), selector: { network: 'default/net', scope: [{ namespace: 'a' }] } });
      assert.equal(created.metadata.labels![VID], '300');
    });
  });

  describe('IPPool validator: ranges', () => {
    it('accepts disjoint ranges in one pool', () => {
      const created = createPool('p', { ranges: ranges('10.61.0.0/24', '10.62.0.0/24', '10.63.0.0/24') });
      assert.equal((created.spec as any).ranges.length, 3);
    });

    it('refuses a pool when only one of its ranges overlaps another pool', () => {
      createPool('first', { ranges: ranges('10.64.0.0/24') });
      assert.equal(
        refusal(() => createPool('second', { ranges: ranges('10.65.0.0/24', '10.64.0.0/25') })),
        `${POOL_VALIDATOR}can't create IP pool second because the ranges [{RangeStart:10.65.0.1 RangeEnd:10.65.0.254 Subnet:10.65.0.0/24 Gateway:10.65.0.1} {RangeStart:10.64.0.1 RangeEnd:10.64.0.126 Subnet:10.64.0.0/25 Gateway:10.64.0.1}] overlap with other pools`,
      );
    });

    it('refuses a range overlapping only one range of another pool', () => {
      createPool('first', { ranges: ranges('10.66.0.0/24', '10.67.0.0/24') });
      assert.match(refusal(() => createPool('second', { ranges: ranges('10.67.0.0/25') }))!, /can't create IP pool second because the ranges \[.*\] overlap with other pools$/);
    });

    it('refuses an update whose allocated record holds something that is not an IP', async () => {
      createPool('p', { ranges: ranges('10.68.0.0/24') });
      await sim.run(0);
      const current = sim.store.get(sim.kinds.ipPool, undefined, 'p')!;
      const status = { ...(current.status as object), allocated: { 'not-an-ip': 'default/x' } };
      assert.equal(refusal(() => sim.store.update(sim.kinds.ipPool, { ...current, status })), `${POOL_VALIDATOR}can't update IP pool p because invalid ip string not-an-ip`);
    });
  });

  describe('IPPool validator: selector printed as %+v, and scope clashes', () => {
    it('prints priority, network and every scope tuple', () => {
      sim.store.create(sim.kinds.nad, nad('net', 300));
      const selector = { priority: 3, network: 'default/net', scope: [{ project: 'p', namespace: 'x', guestCluster: 'c' }, { project: '*', namespace: '*', guestCluster: '*' }] };
      assert.equal(
        refusal(() => createPool('self', { ranges: ranges('10.70.0.0/24'), selector })),
        `${POOL_VALIDATOR}can't create IP pool self because selector {Priority:3 Network:default/net Scope:[{Project:p Namespace:x GuestCluster:c} {Project:* Namespace:* GuestCluster:*}]} is invalid: scope overlaps`,
      );
    });

    it('prints absent priority, network, project and guest cluster as empty (0 for the priority); equal tuples clash', () => {
      const selector = { scope: [{ namespace: 'n' }, { namespace: 'n' }] };
      assert.equal(
        refusal(() => createPool('self', { ranges: ranges('10.71.0.0/24'), selector })),
        `${POOL_VALIDATOR}can't create IP pool self because selector {Priority:0 Network: Scope:[{Project: Namespace:n GuestCluster:} {Project: Namespace:n GuestCluster:}]} is invalid: scope overlaps`,
      );
    });

    it('prints an absent namespace as empty; tuples without a namespace clash', () => {
      const selector = { scope: [{ project: 'p' }, { project: 'p' }] };
      assert.equal(
        refusal(() => createPool('self', { ranges: ranges('10.72.0.0/24'), selector })),
        `${POOL_VALIDATOR}can't create IP pool self because selector {Priority:0 Network: Scope:[{Project:p Namespace: GuestCluster:} {Project:p Namespace: GuestCluster:}]} is invalid: scope overlaps`,
      );
    });

    it('two priority-0 pools whose tuples both lack a namespace clash', () => {
      createPool('z1', { ranges: ranges('10.73.0.0/24'), selector: { scope: [{ project: 'p' }] } });
      assert.equal(
        refusal(() => createPool('z2', { ranges: ranges('10.74.0.0/24'), selector: { scope: [{ project: 'p' }] } })),
        `${POOL_VALIDATOR}can't create IP pool z2 because scope selector is same as the pool z1 with priority 0 Project p Namespace  GuestCluster , set a different priority or scope`,
      );
    });
  });

  describe('LoadBalancer', () => {
    const LB_DENIED = POOL_VALIDATOR;
    const refuseLb = (spec: Record<string, unknown>) => refusal(() => sim.store.create(sim.kinds.loadBalancer, lb('bad', spec)));

    it('the mutator takes the network of a VMI labelled with the guest cluster, whoever created it', () => {
      const vmi: KubeObject = {
        apiVersion: 'kubevirt.io/v1',
        kind: 'VirtualMachineInstance',
        metadata: { name: 'worker-x', namespace: 'default', labels: { 'guestcluster.harvesterhci.io/name': 'gc' } },
        spec: { domain: { devices: { interfaces: [{ name: 'nic-0', bridge: {} }] } }, networks: [{ name: 'nic-0', multus: { networkName: 'default/vm-net' } }] },
      };
      sim.store.create(sim.kinds.vmi, vmi);
      const created = sim.store.create(sim.kinds.loadBalancer, lb('gc-lb', { workloadType: 'cluster', ipam: 'pool' }, { 'loadbalancer.harvesterhci.io/cluster': 'gc' }));
      assert.equal(created.metadata.annotations!['loadbalancer.harvesterhci.io/network'], 'default/vm-net');
    });

    it('prints a listener without a name as empty when names repeat', () => {
      const listeners = [{ port: 80, protocol: 'TCP', backendPort: 8080 }, { port: 81, protocol: 'TCP', backendPort: 8081 }];
      assert.equal(refuseLb({ ipam: 'pool', listeners }), `${LB_DENIED}create loadbalancer default/bad failed: listener has duplicate name `);
    });

    it('refuses listener port 0 and a backend port above 65535', () => {
      assert.equal(refuseLb({ ipam: 'pool', listeners: [{ name: 'a', port: 0, protocol: 'TCP', backendPort: 80 }] }), `${LB_DENIED}create loadbalancer default/bad failed: listener port 0 must >= 1`);
      assert.equal(refuseLb({ ipam: 'pool', listeners: [{ name: 'a', port: 80, protocol: 'TCP', backendPort: 70000 }] }), `${LB_DENIED}create loadbalancer default/bad failed: listener backend port 70000 must <= 65535`);
    });

    it('admits ports 1 and 65535 on both sides of a listener: the bounds are inclusive', () => {
      const edges = [{ name: 'low', port: 1, protocol: 'TCP', backendPort: 1 }, { name: 'high', port: 65535, protocol: 'UDP', backendPort: 65535 }];
      const made = sim.store.create(sim.kinds.loadBalancer, lb('edges', { ipam: 'dhcp', listeners: edges }));
      assert.deepEqual((made.spec as { listeners: unknown[] }).listeners, edges);
      sim.store.delete(sim.kinds.loadBalancer, 'default', 'edges');
    });

    const listeners = [{ name: 'a', port: 80, protocol: 'TCP', backendPort: 8080 }];
    it('prints an absent ipam as empty when it moves to dhcp', () => {
      sim.store.create(sim.kinds.loadBalancer, lb('l', { listeners }));
      assert.equal(
        refusal(() => sim.store.patch(sim.kinds.loadBalancer, 'default', 'l', 'merge', { spec: { ipam: 'dhcp' } })),
        `${LB_DENIED}update loadbalancer default/l failed: can't change the IPAM from  to dhcp`,
      );
    });

    it('prints an absent ipam as empty when it moves away from dhcp', () => {
      sim.store.create(sim.kinds.loadBalancer, lb('l', { ipam: 'dhcp', listeners }));
      assert.equal(
        refusal(() => sim.store.patch(sim.kinds.loadBalancer, 'default', 'l', 'merge', { spec: { ipam: null } })),
        `${LB_DENIED}update loadbalancer default/l failed: can't change the IPAM from dhcp to `,
      );
    });

    it('prints an absent workloadType as empty when a cluster LB loses it', () => {
      sim.store.create(sim.kinds.loadBalancer, lb('l', { workloadType: 'cluster', ipam: 'pool', listeners }));
      assert.equal(
        refusal(() => sim.store.patch(sim.kinds.loadBalancer, 'default', 'l', 'merge', { spec: { workloadType: null } })),
        `${LB_DENIED}update loadbalancer default/l failed: can't change the WorkloadType from cluster to `,
      );
    });
  });
});
