/** The guest-cluster role: guest Nodes from Harvester VMs, topology labels, Service → LoadBalancer, CCM versions. */
import { strict as assert } from 'node:assert';
import * as zlib from 'node:zlib';
import { ObjectStore } from '../../emulator/api/store';
import { KubeObject } from '../../emulator/api/types';
import { validateObject } from '../../emulator/api/validation';
import { GuestHandle, installGuestCluster, loadBalancerName } from '../../emulator/harvester';
import { createGuestRegistry, KINDS } from '../../emulator/kinds';
import { AGENT_USERDATA, HarvesterSim, nodeDriverVm, settle, startHarvesterSim } from './harvester-fixture';

interface World {
  sim: HarvesterSim;
  guest: ObjectStore;
  handle: GuestHandle;
  run(ms?: number): Promise<void>;
}

async function startWorld(ccmVersion: string): Promise<World> {
  const sim = await startHarvesterSim({ delays: { vmiSchedule: 10, vmiBoot: 50, guestAgent: 20 } });
  const guest = new ObjectStore(createGuestRegistry(), sim.clock, { validate: validateObject });
  const handle = installGuestCluster(guest, sim.store, sim.clock, {
    clusterName: 'gc1',
    ccmVersion,
    kubeletVersion: 'v1.24.3+rke2r1',
    delays: { nodeRegister: 50, ccmInit: 20, kubeVip: 20 },
  });
  return {
    sim,
    guest,
    handle,
    async run(ms = 0) {
      // Both stores deliver watch events asynchronously; settle both at every step.
      for (let t = 0; t <= ms; t += 10) {
        for (let i = 0; i < 5; i++) {
          await settle(guest, sim.clock);
          await settle(sim.store, sim.clock);
        }
        if (t < ms) sim.clock.advance(Math.min(10, ms - t));
      }
    },
  };
}

function stopWorld(w: World): void {
  w.handle.stop();
  assert.deepEqual(w.handle.errors(), [], 'guest controllers reported errors');
  w.sim.close();
}

const clusterVm = (name: string) => nodeDriverVm(name, { cluster: 'gc1', userData: AGENT_USERDATA });
const node = (w: World, name: string) => w.guest.get(KINDS.node, undefined, name);
const taints = (n: KubeObject | undefined) => ((n?.spec as any)?.taints ?? []) as { key: string; effect: string }[];

function lbService(name: string, annotations: Record<string, string> = {}, ports = [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }]): KubeObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default', annotations }, spec: { type: 'LoadBalancer', selector: { app: name }, ports } };
}

function globalPool(sim: HarvesterSim): void {
  sim.store.create(sim.kinds.ipPool, {
    apiVersion: 'loadbalancer.harvesterhci.io/v1beta1',
    kind: 'IPPool',
    metadata: { name: 'global' },
    spec: { ranges: [{ subnet: '192.168.41.0/24' }], selector: { scope: [{ project: '*', namespace: '*', guestCluster: '*' }] } },
  });
}

describe('guest cluster: load balancer names', () => {
  it('is <cluster>-<ns>-<svc>-<crc32 of base+uid as 8 hex>', () => {
    const uid = '6f1c1c1e-5d0a-4bde-9c57-2b8f3c1b2a10';
    const base = 'kubernetes-default-nginx-lb-3-';
    const expected = base + zlib.crc32(base + uid).toString(16).padStart(8, '0');
    assert.equal(loadBalancerName('kubernetes', 'default', 'nginx-lb-3', uid), expected);
  });

  it('cuts the base to 55 characters (suffix from the full base) and prefixes non-DNS-1035 cluster names', () => {
    const uid = 'u-1';
    const longName = 'a-very-long-service-name-that-keeps-going-and-going-for-ever';
    const name = loadBalancerName('gc1', 'default', longName, uid);
    const fullBase = `gc1-default-${longName}-`;
    assert.equal(name.length, 63);
    assert.equal(name, fullBase.slice(0, 55) + zlib.crc32(fullBase + uid).toString(16).padStart(8, '0'));
    assert.match(loadBalancerName('1cluster', 'ns', 'svc', uid), /^a1cluster-ns-svc-[0-9a-f]{8}$/);
  });
});

for (const version of ['v0.2.7', 'v0.1.5']) {
  const modern = version === 'v0.2.7';
  describe(`guest cluster with harvester-cloud-provider ${version}`, () => {
    let w: World;
    beforeEach(async () => {
      w = await startWorld(version);
    });
    afterEach(() => stopWorld(w));

    it('registers a Node per running VM of the cluster and initialises it from the VMI', async () => {
      w.sim.store.create(w.sim.kinds.vm, clusterVm('gc1-pool1-a'));
      w.sim.store.create(w.sim.kinds.vm, nodeDriverVm('other-vm', { cluster: 'gc2', userData: AGENT_USERDATA }));
      await w.run(100);
      assert.equal(node(w, 'other-vm'), undefined, 'VMs of other clusters are not ours');
      await w.run(200);
      const n = node(w, 'gc1-pool1-a')!;
      assert.ok(n, 'node registered');
      const vm = w.sim.store.get(w.sim.kinds.vm, 'default', 'gc1-pool1-a')!;
      const vmi = w.sim.store.get(w.sim.kinds.vmi, 'default', 'gc1-pool1-a')!;
      assert.equal((n.spec as any).providerID, `harvester://${vm.metadata.uid}`);
      assert.equal((n.status as any).nodeInfo.kubeletVersion, 'v1.24.3+rke2r1');
      assert.deepEqual(taints(n), []);
      const addresses = (n.status as any).addresses;
      assert.deepEqual(addresses[0], { type: 'InternalIP', address: (vmi.status as any).interfaces[0].ipAddress });
      assert.equal(n.metadata.labels!['topology.kubernetes.io/zone'], vmi.metadata.annotations!['topology.kubernetes.io/zone']);
      assert.equal(n.metadata.labels!['topology.kubernetes.io/region'], 'us-east');
      // Deleting the VM deletes the node (cloud-node-lifecycle).
      w.sim.store.delete(w.sim.kinds.vm, 'default', 'gc1-pool1-a', {});
      await w.run(20);
      assert.equal(node(w, 'gc1-pool1-a'), undefined);
    });

    it(modern ? 're-syncs topology labels after a VMI change (re-initialisation)' : 'keeps the topology labels set at initialisation', async () => {
      w.sim.store.create(w.sim.kinds.vm, clusterVm('gc1-pool1-b'));
      await w.run(300);
      const before = node(w, 'gc1-pool1-b')!.metadata.labels!['topology.kubernetes.io/zone'];
      assert.ok(before);
      const host = String((w.sim.store.get(w.sim.kinds.vmi, 'default', 'gc1-pool1-b')!.status as any).nodeName);
      w.sim.store.patch(w.sim.kinds.node, undefined, host, 'merge', { metadata: { labels: { 'topology.kubernetes.io/zone': 'us-east-1z' } } });
      // A VMI event (e.g. a migration status update) makes Harvester copy the new host labels.
      w.sim.store.patch(w.sim.kinds.vmi, 'default', 'gc1-pool1-b', 'merge', { metadata: { labels: { nudge: '1' } } });
      await w.run(10);
      assert.equal(w.sim.store.get(w.sim.kinds.vmi, 'default', 'gc1-pool1-b')!.metadata.annotations!['topology.kubernetes.io/zone'], 'us-east-1z');
      if (modern) {
        assert.ok(taints(node(w, 'gc1-pool1-b')).some((t) => t.key === 'node.cloudprovider.kubernetes.io/uninitialized' && t.effect === 'PreferNoSchedule'));
      }
      await w.run(100);
      const after = node(w, 'gc1-pool1-b')!;
      assert.equal(after.metadata.labels!['topology.kubernetes.io/zone'], modern ? 'us-east-1z' : before);
      assert.deepEqual(taints(after), []);
    });

    it(modern ? 'follows a live migration to another zone (the VMI controller re-initialises the Node)' : 'keeps the initial zone after a live migration (no VMI controller below v0.2.0)', async () => {
      w.sim.store.create(w.sim.kinds.vm, clusterVm('gc1-pool1-m'));
      await w.run(300);
      const source = String((w.sim.store.get(w.sim.kinds.vmi, 'default', 'gc1-pool1-m')!.status as any).nodeName);
      const before = node(w, 'gc1-pool1-m')!.metadata.labels!['topology.kubernetes.io/zone'];
      assert.equal(before, w.sim.store.get(w.sim.kinds.node, undefined, source)!.metadata.labels!['topology.kubernetes.io/zone']);
      // WHEN someone migrates the VM (Harvester UI "Migrate" = a VirtualMachineInstanceMigration)
      w.sim.store.create(w.sim.kinds.vmim, {
        apiVersion: 'kubevirt.io/v1',
        kind: 'VirtualMachineInstanceMigration',
        metadata: { name: 'move-m', namespace: 'default' },
        spec: { vmiName: 'gc1-pool1-m' },
      });
      await w.run(3000);
      assert.equal((w.sim.store.get(w.sim.kinds.vmim, 'default', 'move-m')!.status as any).phase, 'Succeeded');
      const target = String((w.sim.store.get(w.sim.kinds.vmi, 'default', 'gc1-pool1-m')!.status as any).nodeName);
      assert.notEqual(target, source);
      const targetZone = w.sim.store.get(w.sim.kinds.node, undefined, target)!.metadata.labels!['topology.kubernetes.io/zone'];
      assert.notEqual(targetZone, before);
      const after = node(w, 'gc1-pool1-m')!;
      assert.equal(after.metadata.labels!['topology.kubernetes.io/zone'], modern ? targetZone : before);
      assert.equal(after.metadata.labels!['failure-domain.beta.kubernetes.io/zone'], modern ? targetZone : before);
      assert.deepEqual(taints(after), []);
    });

    it('turns a LoadBalancer Service into a Harvester LoadBalancer and reports its address back', async () => {
      globalPool(w.sim);
      w.sim.store.create(w.sim.kinds.vm, clusterVm('gc1-pool1-c'));
      await w.run(300);
      const svc = w.guest.create(KINDS.service, lbService('web'));
      await w.run(100);
      const lbName = loadBalancerName('gc1', 'default', 'web', String(svc.metadata.uid));
      const lb = w.sim.store.get(w.sim.kinds.loadBalancer, 'default', lbName)!;
      assert.ok(lb, `LoadBalancer ${lbName} created`);
      assert.equal(lb.metadata.labels!['cloudprovider.harvesterhci.io/cluster'], 'gc1');
      const live = w.guest.get(KINDS.service, 'default', 'web')!;
      assert.ok(live.metadata.finalizers!.includes('service.kubernetes.io/load-balancer-cleanup'));
      const ingress = (live.status as any).loadBalancer.ingress;
      if (modern) {
        assert.equal((lb.spec as any).workloadType, 'cluster');
        assert.equal((lb.spec as any).ipam, 'pool');
        assert.equal(lb.metadata.labels!['cloudprovider.harvesterhci.io/serviceName'], 'web');
        assert.equal(lb.metadata.labels!['cloudprovider.harvesterhci.io/serviceNamespace'], 'default');
        assert.equal(lb.metadata.annotations!['loadbalancer.harvesterhci.io/cluster'], 'gc1');
        const allocated = (lb.status as any).allocatedAddress.ip;
        assert.match(allocated, /^192\.168\.41\./);
        assert.equal(live.metadata.annotations!['kube-vip.io/loadbalancerIPs'], allocated);
        assert.deepEqual(ingress, [{ ip: allocated }]);
        assert.equal((lb.status as any).address, allocated);
      } else {
        assert.equal((lb.spec as any).workloadType, undefined);
        const nodePort = (live.spec as any).ports[0].nodePort;
        assert.ok(nodePort >= 30000 && nodePort <= 32767);
        assert.deepEqual((lb.spec as any).listeners, [{ name: 'http', port: 80, protocol: 'TCP', backendPort: nodePort }]);
        assert.deepEqual((lb.spec as any).backendServerSelector, { 'harvesterhci.io/vmName': ['gc1-pool1-c'] });
        assert.equal(lb.metadata.annotations!['cloudprovider.harvesterhci.io/service-uuid'], svc.metadata.uid);
        assert.deepEqual(ingress, [{ ip: (lb.status as any).address }]);
        assert.match((lb.status as any).address, /^192\.168\.41\./);
      }
      // Deleting the Service deletes the LB (and Harvester releases its IP).
      w.guest.delete(KINDS.service, 'default', 'web', {});
      await w.run(20);
      assert.equal(w.guest.get(KINDS.service, 'default', 'web'), undefined);
      assert.equal(w.sim.store.get(w.sim.kinds.loadBalancer, 'default', lbName), undefined);
      assert.deepEqual((w.sim.store.get(w.sim.kinds.ipPool, undefined, 'global')!.status as any).allocated, {});
    });

    it(modern ? 'ignores health-check annotations' : 'maps health-check annotations (service port → nodePort) into the LB', async () => {
      globalPool(w.sim);
      const annotations = { 'cloudprovider.harvesterhci.io/healthcheck-port': '80', 'cloudprovider.harvesterhci.io/healthcheck-periodseconds': '10' };
      w.guest.create(KINDS.service, lbService('hc', annotations));
      await w.run(50);
      const svc = w.guest.get(KINDS.service, 'default', 'hc')!;
      const lb = w.sim.store.get(w.sim.kinds.loadBalancer, 'default', loadBalancerName('gc1', 'default', 'hc', String(svc.metadata.uid)))!;
      if (modern) {
        assert.equal((lb.spec as any).healthCheck, undefined);
        assert.equal((lb.spec as any).listeners, undefined);
      } else {
        const nodePort = (svc.spec as any).ports[0].nodePort;
        assert.deepEqual((lb.spec as any).healthCheck, { port: nodePort, successThreshold: 1, failureThreshold: 3, periodSeconds: 10, timeoutSeconds: 3 });
        // A health-check port that is no service port fails the sync.
        w.guest.create(KINDS.service, lbService('hc-bad', { 'cloudprovider.harvesterhci.io/healthcheck-port': '9999' }));
        await w.run(20);
        const event = w.handle.events().find((e) => e.object === 'Service default/hc-bad')!;
        assert.equal(event.reason, 'SyncLoadBalancerFailed');
        assert.match(event.message, /nodeport not found, service port: 9999$/);
      }
    });

    if (modern) {
      it('dhcp services get their address from the simulated DHCP server via kube-vip', async () => {
        w.guest.create(KINDS.service, lbService('dhcp', { 'cloudprovider.harvesterhci.io/ipam': 'dhcp' }));
        await w.run(50);
        const svc = w.guest.get(KINDS.service, 'default', 'dhcp')!;
        const lb = w.sim.store.get(w.sim.kinds.loadBalancer, 'default', loadBalancerName('gc1', 'default', 'dhcp', String(svc.metadata.uid)))!;
        assert.equal((lb.spec as any).ipam, 'dhcp');
        assert.equal((lb.status as any).allocatedAddress.ip, '0.0.0.0');
        assert.equal(svc.metadata.annotations!['kube-vip.io/loadbalancerIPs'], '0.0.0.0');
        const ip = (svc.status as any).loadBalancer.ingress[0].ip;
        assert.match(ip, /^192\.168\.100\.1\d\d$/);
        assert.equal((lb.status as any).address, ip);
      });

      it('a changed ipam annotation is refused by the LB webhook and reported on the Service', async () => {
        globalPool(w.sim);
        w.guest.create(KINDS.service, lbService('flip'));
        await w.run(50);
        w.guest.patch(KINDS.service, 'default', 'flip', 'merge', { metadata: { annotations: { 'cloudprovider.harvesterhci.io/ipam': 'dhcp' } } });
        await w.run(20);
        const event = w.handle.events().find((e) => e.object === 'Service default/flip')!;
        assert.match(event.message, /can't change the IPAM from pool to dhcp/);
      });

      it('a Service waiting for a pool reports the LB Ready message', async () => {
        w.guest.create(KINDS.service, lbService('nopool'));
        await w.run(50);
        const event = w.handle.events().find((e) => e.object === 'Service default/nopool')!;
        assert.match(event.message, /no matched IPPool/);
        assert.deepEqual((w.guest.get(KINDS.service, 'default', 'nopool')!.status as any)?.loadBalancer?.ingress ?? [], []);
      });
    }
  });
}
