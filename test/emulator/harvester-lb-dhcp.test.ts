/**
 * The simulated DHCP server of a VM network: `ipam: dhcp` load balancers lease from their VLAN's subnet, the
 * way kube-vip's DHCP request on that VLAN would be answered (load-balancer-harvester leaves `status.address`
 * to kube-vip), and neither those leases nor the VMs' addresses ever fall inside an IPPool's ranges or on
 * the gateway. The seeded network default/vm-net is 172.16.100.0/24 with gateway 172.16.100.1.
 */
import { strict as assert } from 'node:assert';
import { KubeObject } from '../../emulator/api/types';
import { parseIPv4 } from '../../emulator/util/ipv4';
import { AGENT_USERDATA, HarvesterSim, nodeDriverVm, startHarvesterSim } from './harvester-fixture';

const LISTENERS = [{ name: 'http', port: 80, protocol: 'TCP', backendPort: 8080 }];

function lb(name: string, spec: Record<string, unknown>, annotations?: Record<string, string>): KubeObject {
  return { apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'LoadBalancer', metadata: { name, namespace: 'default', annotations }, spec: { ipam: 'dhcp', listeners: LISTENERS, ...spec } };
}

const inVmNet = (ip: string | undefined): boolean => {
  const n = parseIPv4(ip);
  return n !== undefined && n >= parseIPv4('172.16.100.2')! && n <= parseIPv4('172.16.100.254')!;
};

describe('simulated Harvester: DHCP on a VM network', () => {
  let sim: HarvesterSim;
  afterEach(() => sim?.close());

  const address = (kind: 'lb' | 'vmi', name: string): string | undefined =>
    kind === 'lb'
      ? ((sim.store.get(sim.kinds.loadBalancer, 'default', name)?.status ?? {}) as { address?: string }).address
      : ((sim.store.get(sim.kinds.vmi, 'default', name)?.status ?? {}) as { interfaces?: { ipAddress?: string }[] }).interfaces?.[0]?.ipAddress;

  it('a dhcp load balancer on a VM network leases from that network, not the fallback range', async () => {
    sim = await startHarvesterSim({ delays: { vmiSchedule: 10, vmiBoot: 10, guestAgent: 10 } });
    sim.store.create(sim.kinds.loadBalancer, lb('by-annotation', {}, { 'loadbalancer.harvesterhci.io/network': 'default/vm-net' }));
    await sim.run(0);
    assert.ok(inVmNet(address('lb', 'by-annotation')), address('lb', 'by-annotation'));
    const st = sim.store.get(sim.kinds.loadBalancer, 'default', 'by-annotation')!.status as { allocatedAddress: unknown };
    assert.deepEqual(st.allocatedAddress, { ip: '0.0.0.0' }, 'the controller still asks DHCP with 0.0.0.0');
  });

  it('without the annotation, the network of the VMs it selects; the lease differs from theirs and stays put', async () => {
    sim = await startHarvesterSim({ delays: { vmiSchedule: 10, vmiBoot: 10, guestAgent: 10 } });
    sim.store.create(sim.kinds.vm, nodeDriverVm('web-0', { userData: AGENT_USERDATA }));
    await sim.run(200);
    assert.ok(inVmNet(address('vmi', 'web-0')));
    sim.store.create(sim.kinds.loadBalancer, lb('by-backend', { backendServerSelector: { 'harvesterhci.io/vmName': ['web-0'] } }));
    await sim.run(0);
    const lease = address('lb', 'by-backend');
    assert.ok(inVmNet(lease), lease);
    assert.notEqual(lease, address('vmi', 'web-0'));
    await sim.run(100);
    assert.equal(address('lb', 'by-backend'), lease);
  });

  it("neither VMs nor load balancers get an address inside an IPPool's ranges (or the gateway)", async () => {
    sim = await startHarvesterSim({ delays: { vmiSchedule: 10, vmiBoot: 10, guestAgent: 10 } });
    // Leaves 172.16.100.251–254 to the DHCP server.
    sim.store.create(sim.kinds.ipPool, {
      apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'IPPool', metadata: { name: 'most' },
      spec: { ranges: [{ subnet: '172.16.100.0/24', rangeStart: '172.16.100.2', rangeEnd: '172.16.100.250', gateway: '172.16.100.1' }], selector: { network: 'default/vm-net' } },
    });
    for (const name of ['a', 'b']) sim.store.create(sim.kinds.vm, nodeDriverVm(name, { userData: AGENT_USERDATA }));
    await sim.run(200);
    sim.store.create(sim.kinds.loadBalancer, lb('d', {}, { 'loadbalancer.harvesterhci.io/network': 'default/vm-net' }));
    await sim.run(0);
    const taken = [address('vmi', 'a'), address('vmi', 'b'), address('lb', 'd')];
    assert.ok(taken.every((ip) => ['172.16.100.251', '172.16.100.252', '172.16.100.253', '172.16.100.254'].includes(ip!)), taken.join());
    assert.equal(new Set(taken).size, 3, 'one address each');

    // The fifth and sixth holder find the server's scope exhausted.
    for (const name of ['c', 'e']) sim.store.create(sim.kinds.vm, nodeDriverVm(name, { userData: AGENT_USERDATA }));
    await sim.run(200);
    assert.deepEqual([address('vmi', 'c'), address('vmi', 'e')].filter(Boolean).length, 1);
  });

  it('the dhcpRange option, when set, serves every lease (the former behaviour)', async () => {
    sim = await startHarvesterSim({ delays: { vmiSchedule: 10, vmiBoot: 10, guestAgent: 10 }, dhcpRange: { start: '192.168.7.10', end: '192.168.7.11' } });
    sim.store.create(sim.kinds.loadBalancer, lb('ranged', {}, { 'loadbalancer.harvesterhci.io/network': 'default/vm-net' }));
    await sim.run(0);
    assert.match(address('lb', 'ranged')!, /^192\.168\.7\.1[01]$/);
  });
});
