/** LoadBalancer IPAM controller and the LoadBalancer / IPPool webhooks. */
import { strict as assert } from 'node:assert';
import { KubeObject } from '../../emulator/api/types';
import { AGENT_USERDATA, expectStatusError, HarvesterSim, nodeDriverVm, startHarvesterSim } from './harvester-fixture';

function pool(name: string, spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'IPPool', metadata: { name }, spec };
}

function lb(name: string, spec: Record<string, unknown>, annotations?: Record<string, string>, namespace = 'default'): KubeObject {
  return { apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'LoadBalancer', metadata: { name, namespace, annotations }, spec };
}

const CLUSTER = { workloadType: 'cluster', ipam: 'pool' };
const ready = (o: KubeObject | undefined) => ((o?.status as any)?.conditions ?? []).find((c: any) => c.type === 'Ready');

describe('simulated Harvester: load balancers and IP pools', () => {
  let sim: HarvesterSim;

  beforeEach(async () => {
    sim = await startHarvesterSim({ delays: { vmiSchedule: 10, vmiBoot: 10, guestAgent: 10 } });
  });
  afterEach(() => sim.close());

  const getLb = (name: string, ns = 'default') => sim.store.get(sim.kinds.loadBalancer, ns, name);
  const getPool = (name: string) => sim.store.get(sim.kinds.ipPool, undefined, name)!;

  it('allocates from spec.ipPool and records it in the pool and the LB', async () => {
    sim.store.create(sim.kinds.ipPool, pool('p1', { ranges: [{ subnet: '192.168.10.0/24', rangeStart: '192.168.10.10', rangeEnd: '192.168.10.19' }] }));
    await sim.run(0);
    assert.deepEqual(
      { total: (getPool('p1').status as any).total, available: (getPool('p1').status as any).available, lastAllocated: (getPool('p1').status as any).lastAllocated },
      { total: 10, available: 10, lastAllocated: '' },
    );
    sim.store.create(sim.kinds.loadBalancer, lb('lb1', { ...CLUSTER, ipPool: 'p1' }));
    await sim.run(0);
    const live = getLb('lb1')!;
    assert.ok(live.metadata.finalizers!.includes('wrangler.cattle.io/harvester-lb-controller'));
    assert.deepEqual((live.status as any).allocatedAddress, { ipPool: 'p1', ip: '192.168.10.10', mask: '255.255.255.0', gateway: '192.168.10.1' });
    assert.equal(ready(live).status, 'True');
    const ps = getPool('p1').status as any;
    assert.deepEqual(ps.allocated, { '192.168.10.10': 'default/lb1' });
    assert.equal(ps.available, 9);
    assert.equal(ps.lastAllocated, '192.168.10.10');
  });

  it('vm-type LBs get status.address and backend servers from the selected running VMIs', async () => {
    sim.store.create(sim.kinds.ipPool, pool('p1', { ranges: [{ subnet: '10.1.0.0/24' }] }));
    sim.store.create(sim.kinds.loadBalancer, lb('web', { ipam: 'pool', ipPool: 'p1', listeners: [{ name: 'http', port: 80, protocol: 'TCP', backendPort: 8080 }], backendServerSelector: { 'harvesterhci.io/vmName': ['web-0'] } }));
    await sim.run(0);
    let live = getLb('web')!;
    assert.equal((live.status as any).address, '10.1.0.2', 'the gateway .1 is skipped');
    assert.equal(ready(live).status, 'False');
    assert.equal(ready(live).message, 'no running backend servers');
    sim.store.create(sim.kinds.vm, nodeDriverVm('web-0', { userData: AGENT_USERDATA }));
    await sim.run(100);
    live = getLb('web')!;
    const vmiIp = (sim.store.get(sim.kinds.vmi, 'default', 'web-0')!.status as any).interfaces[0].ipAddress;
    assert.deepEqual((live.status as any).backendServers, [vmiIp]);
    assert.equal(ready(live).status, 'True');
  });

  it('selects pools by network, namespace scope and priority, with the global pool as fallback', async () => {
    sim.store.create(sim.kinds.ipPool, pool('global', { ranges: [{ subnet: '10.9.0.0/24' }], selector: { scope: [{ project: '*', namespace: '*', guestCluster: '*' }] } }));
    sim.store.create(sim.kinds.ipPool, pool('low', { ranges: [{ subnet: '10.2.0.0/24' }], selector: { priority: 1, network: 'default/vm-net', scope: [{ namespace: 'default', project: '*', guestCluster: '*' }] } }));
    sim.store.create(sim.kinds.ipPool, pool('high', { ranges: [{ subnet: '10.3.0.0/24' }], selector: { priority: 5, network: 'default/vm-net', scope: [{ namespace: 'default', project: '*', guestCluster: '*' }] } }));
    sim.store.create(sim.kinds.loadBalancer, lb('on-net', CLUSTER, { 'loadbalancer.harvesterhci.io/network': 'default/vm-net' }));
    sim.store.create(sim.kinds.loadBalancer, lb('no-net', CLUSTER));
    await sim.run(0);
    assert.equal((getLb('on-net')!.status as any).allocatedAddress.ipPool, 'high');
    assert.equal((getLb('no-net')!.status as any).allocatedAddress.ipPool, 'global');
    assert.equal(getPool('global').metadata.labels!['loadbalancer.harvesterhci.io/global-ip-pool'], 'true');
    assert.equal(getPool('high').metadata.labels!['loadbalancer.harvesterhci.io/global-ip-pool'], 'false');
    assert.equal(getPool('high').metadata.labels!['loadbalancer.harvesterhci.io/vid'], '100');
  });

  it('the global pool is only the fallback: a matching pool of lower priority is chosen over it (ipam Select sets it aside)', async () => {
    sim.store.create(sim.kinds.ipPool, pool('global', { ranges: [{ subnet: '10.9.0.0/24' }], selector: { priority: 50, scope: [{ project: '*', namespace: '*', guestCluster: '*' }] } }));
    sim.store.create(sim.kinds.ipPool, pool('team', { ranges: [{ subnet: '10.2.0.0/24' }], selector: { scope: [{ namespace: 'default', project: '*', guestCluster: '*' }] } }));
    sim.store.create(sim.kinds.loadBalancer, lb('in-team', CLUSTER));
    await sim.run(0);
    assert.equal((getLb('in-team')!.status as any).allocatedAddress.ipPool, 'team');
  });

  it('without a matching pool the LB is Ready=False "no matched IPPool", and recovers when one appears', async () => {
    sim.store.create(sim.kinds.loadBalancer, lb('waiting', CLUSTER));
    await sim.run(0);
    assert.equal(ready(getLb('waiting')).status, 'False');
    assert.equal(ready(getLb('waiting')).message, 'no matched IPPool with requirement &{Network: Project: Namespace:default Cluster:}');
    sim.store.create(sim.kinds.ipPool, pool('late', { ranges: [{ subnet: '10.4.0.0/30' }], selector: { scope: [{ namespace: 'default' }] } }));
    await sim.run(0);
    assert.equal(ready(getLb('waiting')).status, 'True');
    assert.equal((getLb('waiting')!.status as any).allocatedAddress.ip, '10.4.0.2');
  });

  it('an exhausted pool gives Ready=False with host-local\'s error, as upstream words it', async () => {
    sim.store.create(sim.kinds.ipPool, pool('tiny', { ranges: [{ subnet: '10.5.0.7/32' }] }));
    sim.store.create(sim.kinds.loadBalancer, lb('a', { ...CLUSTER, ipPool: 'tiny' }));
    await sim.run(0);
    assert.deepEqual((getLb('a')!.status as any).allocatedAddress, { ipPool: 'tiny', ip: '10.5.0.7', mask: '255.255.255.255', gateway: '' });
    sim.store.create(sim.kinds.loadBalancer, lb('b', { ...CLUSTER, ipPool: 'tiny' }));
    await sim.run(0);
    assert.equal(ready(getLb('b')).status, 'False');
    assert.equal(ready(getLb('b')).message, 'fail to get ip from pool tiny, error: no IP addresses available in range set: 10.5.0.7-10.5.0.7');
  });

  it('releases the IP on delete (into allocatedHistory) and hands it back to the same LB first', async () => {
    sim.store.create(sim.kinds.ipPool, pool('p', { ranges: [{ subnet: '10.6.0.0/24' }] }));
    sim.store.create(sim.kinds.loadBalancer, lb('x', { ...CLUSTER, ipPool: 'p' }));
    sim.store.create(sim.kinds.loadBalancer, lb('y', { ...CLUSTER, ipPool: 'p' }));
    await sim.run(0);
    const xIp = (getLb('x')!.status as any).allocatedAddress.ip;
    sim.store.delete(sim.kinds.loadBalancer, 'default', 'x', {});
    await sim.run(0);
    assert.equal(getLb('x'), undefined, 'finalizer removed after release');
    let ps = getPool('p').status as any;
    assert.equal(ps.allocated[xIp], undefined);
    assert.equal(ps.allocatedHistory[xIp], 'default/x');
    assert.equal(ps.available, ps.total - 1);
    sim.store.create(sim.kinds.loadBalancer, lb('x', { ...CLUSTER, ipPool: 'p' }));
    await sim.run(0);
    assert.equal((getLb('x')!.status as any).allocatedAddress.ip, xIp);
    ps = getPool('p').status as any;
    assert.equal(ps.allocatedHistory[xIp], undefined);
  });

  it('changing spec.ipPool releases the old address first', async () => {
    sim.store.create(sim.kinds.ipPool, pool('a', { ranges: [{ subnet: '10.7.0.0/24' }] }));
    sim.store.create(sim.kinds.ipPool, pool('b', { ranges: [{ subnet: '10.8.0.0/24' }] }));
    sim.store.create(sim.kinds.loadBalancer, lb('mover', { ...CLUSTER, ipPool: 'a' }));
    await sim.run(0);
    sim.store.patch(sim.kinds.loadBalancer, 'default', 'mover', 'merge', { spec: { ipPool: 'b' } });
    await sim.run(0);
    assert.equal((getLb('mover')!.status as any).allocatedAddress.ipPool, 'b');
    assert.deepEqual((getPool('a').status as any).allocated, {});
    assert.deepEqual(Object.values((getPool('b').status as any).allocated), ['default/mover']);
  });

  it('dhcp: allocatedAddress 0.0.0.0 and status.address from the simulated DHCP range', async () => {
    sim.store.create(sim.kinds.loadBalancer, lb('d', { ipam: 'dhcp', listeners: [{ name: 'a', port: 80, protocol: 'TCP', backendPort: 80 }] }));
    await sim.run(0);
    const st = getLb('d')!.status as any;
    assert.deepEqual(st.allocatedAddress, { ip: '0.0.0.0' });
    assert.match(st.address, /^192\.168\.100\.(1\d\d)$/);
  });

  it('health check: the mutator fills zero thresholds with 2/2/1/1', () => {
    const created = sim.store.create(
      sim.kinds.loadBalancer,
      lb('hc', { ipam: 'pool', listeners: [{ name: 'a', port: 80, protocol: 'TCP', backendPort: 8080 }], healthCheck: { port: 8080 } }),
    );
    assert.deepEqual((created.spec as any).healthCheck, { port: 8080, successThreshold: 2, failureThreshold: 2, periodSeconds: 1, timeoutSeconds: 1 });
    assert.equal(created.metadata.annotations!['loadbalancer.harvesterhci.io/namespace'], 'default');
  });

  describe('LoadBalancer webhook rejections', () => {
    const prefix = 'admission webhook "validator.harvester-system.harvester-load-balancer-webhook" denied the request: Internal error occurred: ';
    const listener = (name: string, port: number, backendPort: number, protocol = 'TCP') => ({ name, port, protocol, backendPort });
    const cases: Record<string, { spec: Record<string, unknown>; message: string }> = {
      'no listener': { spec: { ipam: 'pool', listeners: [] }, message: 'create loadbalancer default/bad failed: the loadbalancer needs to have at least one listener' },
      'duplicate listener names': {
        spec: { ipam: 'pool', listeners: [listener('a', 80, 8080), listener('a', 81, 8081)] },
        message: 'create loadbalancer default/bad failed: listener has duplicate name a',
      },
      'duplicate protocol:port': {
        spec: { ipam: 'pool', listeners: [listener('a', 80, 8080), listener('b', 80, 8081)] },
        message: 'create loadbalancer default/bad failed: listener b has duplicate port TCP:80 with listener a',
      },
      'duplicate protocol:backendPort': {
        spec: { ipam: 'pool', listeners: [listener('a', 80, 8080), listener('b', 81, 8080)] },
        message: 'create loadbalancer default/bad failed: listener b has duplicate backend port TCP:8080 with listener a',
      },
      'backend port out of range': {
        spec: { ipam: 'pool', listeners: [listener('a', 80, 0)] },
        message: 'create loadbalancer default/bad failed: listener backend port 0 must >= 1',
      },
      'health check port not a backend port': {
        spec: { ipam: 'pool', listeners: [listener('a', 80, 8080)], healthCheck: { port: 9090 } },
        message: 'create loadbalancer default/bad failed with healthyCheck: healthcheck port 9090 is not in listener backend port list',
      },
      'health check port on a UDP listener': {
        spec: { ipam: 'pool', listeners: [listener('dns', 53, 5353, 'UDP')], healthCheck: { port: 5353 } },
        message: 'create loadbalancer default/bad failed with healthyCheck: healthcheck port 5353 can only be a TCP backend port',
      },
    };
    for (const [reason, c] of Object.entries(cases)) {
      it(`refuses: ${reason}`, () => {
        const err = expectStatusError(() => sim.store.create(sim.kinds.loadBalancer, lb('bad', c.spec)));
        // wrangler's webhook router answers the load-balancer webhook's errors as apierrors.NewInternalError.
        assert.equal(err.code, 500);
        assert.equal(err.status.reason, 'InternalError');
        assert.equal(err.status.message, prefix + c.message);
      });
    }

    it('refuses: listener port above 65535 (the CRD only says int32)', () => {
      const err = expectStatusError(() => sim.store.create(sim.kinds.loadBalancer, lb('bad', { ipam: 'pool', listeners: [listener('a', 70000, 80)] })));
      assert.equal(err.status.message, `${prefix}create loadbalancer default/bad failed: listener port 70000 must <= 65535`);
    });

    it('refuses moving ipam to or from dhcp, and changing workloadType', async () => {
      sim.store.create(sim.kinds.loadBalancer, lb('fixed', { ipam: 'pool', listeners: [listener('a', 80, 8080)] }));
      const ipam = expectStatusError(() => sim.store.patch(sim.kinds.loadBalancer, 'default', 'fixed', 'merge', { spec: { ipam: 'dhcp' } }));
      assert.equal(ipam.status.message, `${prefix}update loadbalancer default/fixed failed: can't change the IPAM from pool to dhcp`);
      const type = expectStatusError(() => sim.store.patch(sim.kinds.loadBalancer, 'default', 'fixed', 'merge', { spec: { workloadType: 'cluster' } }));
      assert.equal(type.status.message, `${prefix}update loadbalancer default/fixed failed: can't change the WorkloadType from  to cluster`);
    });

    it('refuses a cluster LB of a guest cluster being removed', async () => {
      const vm = nodeDriverVm('gone-0', { cluster: 'gone' });
      vm.metadata.annotations!['harvesterhci.io/removeAllPersistentVolumeClaims'] = 'true';
      sim.store.create(sim.kinds.vm, vm);
      const body = lb('gone-lb', CLUSTER);
      body.metadata.labels = { 'cloudprovider.harvesterhci.io/cluster': 'gone' };
      const err = expectStatusError(() => sim.store.create(sim.kinds.loadBalancer, body));
      assert.equal(err.status.message, `${prefix}create loadbalancer default/gone-lb failed with guest cluster check: the vmi default/gone-0 shows guest cluster is on remove`);
    });
  });

  describe('IPPool webhook rules', () => {
    const v = 'admission webhook "validator.harvester-system.harvester-load-balancer-webhook" denied the request: Internal error occurred: ';
    const m = 'admission webhook "mutator.harvester-system.harvester-load-balancer-webhook" denied the request: Internal error occurred: ';
    const refuse = (body: KubeObject) => expectStatusError(() => sim.store.create(sim.kinds.ipPool, body)).status.message;

    it('ranges must parse and not overlap inside the pool or with other pools', () => {
      assert.equal(refuse(pool('r0', { ranges: [] })), `${v}can't create IP pool r0 because range can't be empty`);
      assert.equal(refuse(pool('r1', { ranges: [{ subnet: '10.0.0.0/33' }] })), `${v}can't create IP pool r1 because invalid CIDR address: 10.0.0.0/33, a valid example is 192.168.1.0/24`);
      assert.equal(
        refuse(pool('r2', { ranges: [{ subnet: '10.0.0.0/24', rangeStart: '10.0.1.5' }] })),
        `${v}can't create IP pool r2 because invalid range start 10.0.1.5: IP 10.0.1.5 is out of subnet 10.0.0.0/24`,
      );
      assert.equal(
        refuse(pool('r4', { ranges: [{ subnet: '10.0.0.0/24', rangeEnd: '10.0.0.255' }] })),
        `${v}can't create IP pool r4 because invalid range end 10.0.0.255: IP 10.0.0.255 is the broadcast address`,
      );
      assert.equal(
        refuse(pool('r5', { ranges: [{ subnet: '10.0.0.0/24', gateway: '10.9.0.1' }] })),
        `${v}can't create IP pool r5 because invalid gateway 10.9.0.1: IP 10.9.0.1 is out of subnet 10.0.0.0/24`,
      );
      assert.equal(
        refuse(pool('r3', { ranges: [{ subnet: '10.0.0.0/24' }, { subnet: '10.0.0.128/25' }] })),
        `${v}can't create IP pool r3 because there are overlaps between range {RangeStart:10.0.0.1 RangeEnd:10.0.0.254 Subnet:10.0.0.0/24 Gateway:10.0.0.1} and {RangeStart:10.0.0.129 RangeEnd:10.0.0.254 Subnet:10.0.0.128/25 Gateway:10.0.0.129}`,
      );
      sim.store.create(sim.kinds.ipPool, pool('first', { ranges: [{ subnet: '10.20.0.0/24' }] }));
      assert.equal(
        refuse(pool('second', { ranges: [{ subnet: '10.20.0.0/25' }] })),
        `${v}can't create IP pool second because the ranges [{RangeStart:10.20.0.1 RangeEnd:10.20.0.126 Subnet:10.20.0.0/25 Gateway:10.20.0.1}] overlap with other pools`,
      );
    });

    it('only one global pool; selector scopes and priorities must not clash', () => {
      const everything = { scope: [{ project: '*', namespace: '*', guestCluster: '*' }] };
      sim.store.create(sim.kinds.ipPool, pool('g1', { ranges: [{ subnet: '10.30.0.0/24' }], selector: everything }));
      assert.equal(refuse(pool('g2', { ranges: [{ subnet: '10.31.0.0/24' }], selector: everything })), `${v}can't create IP pool g2 because there is already a global IP pool: g1`);
      sim.store.create(sim.kinds.ipPool, pool('p5', { ranges: [{ subnet: '10.32.0.0/24' }], selector: { priority: 5, scope: [{ namespace: 'a' }] } }));
      assert.equal(
        refuse(pool('p5b', { ranges: [{ subnet: '10.33.0.0/24' }], selector: { priority: 5, scope: [{ namespace: 'b' }] } })),
        `${v}can't create IP pool p5b because the priority can't be the same as the pool p5`,
      );
      assert.match(
        refuse(pool('self', { ranges: [{ subnet: '10.34.0.0/24' }], selector: { scope: [{ namespace: 'x' }, { namespace: '*' }] } }))!,
        /can't create IP pool self because selector \{.*\} is invalid: scope overlaps$/,
      );
      sim.store.create(sim.kinds.ipPool, pool('z1', { ranges: [{ subnet: '10.35.0.0/24' }], selector: { scope: [{ namespace: 'team' }] } }));
      assert.equal(
        refuse(pool('z2', { ranges: [{ subnet: '10.36.0.0/24' }], selector: { scope: [{ namespace: 'team' }] } })),
        `${v}can't create IP pool z2 because scope selector is same as the pool z1 with priority 0 Project  Namespace team GuestCluster , set a different priority or scope`,
      );
    });

    it('network must be namespace/name of an existing NAD', () => {
      assert.equal(refuse(pool('n1', { ranges: [{ subnet: '10.40.0.0/24' }], selector: { network: 'vm-net', scope: [{ namespace: 'a' }] } })), `${m}can't create IP pool n1 because invalid network vm-net`);
      assert.equal(
        refuse(pool('n2', { ranges: [{ subnet: '10.41.0.0/24' }], selector: { network: 'default/missing', scope: [{ namespace: 'a' }] } })),
        `${m}can't create IP pool n2 because network-attachment-definitions.k8s.cni.cncf.io "missing" not found`,
      );
    });

    it('refuses deleting a pool with allocations, and updates dropping allocated IPs', async () => {
      sim.store.create(sim.kinds.ipPool, pool('busy', { ranges: [{ subnet: '10.50.0.0/24' }] }));
      sim.store.create(sim.kinds.loadBalancer, lb('holder', { ...CLUSTER, ipPool: 'busy' }));
      await sim.run(0);
      const del = expectStatusError(() => sim.store.delete(sim.kinds.ipPool, undefined, 'busy', {}));
      assert.equal(del.code, 500);
      assert.equal(del.status.message, `${v}can't delete pool before releasing all the allocated IP`);
      const upd = expectStatusError(() => sim.store.patch(sim.kinds.ipPool, undefined, 'busy', 'merge', { spec: { ranges: [{ subnet: '10.51.0.0/24' }] } }));
      assert.equal(upd.status.message, `${v}can't update IP pool busy because allocated IP 10.50.0.2 is excluded`);
      sim.store.delete(sim.kinds.loadBalancer, 'default', 'holder', {});
      await sim.run(0);
      sim.store.delete(sim.kinds.ipPool, undefined, 'busy', {});
      assert.equal(sim.store.get(sim.kinds.ipPool, undefined, 'busy'), undefined);
    });
  });
});
