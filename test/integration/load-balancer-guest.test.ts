/**
 * HarvesterLoadBalancer with workloadType "cluster": a Service of type LoadBalancer in a guest cluster, turned into
 * a Harvester load balancer by the guest's Harvester cloud provider (emulated at v0.2.7 and v0.1.5). Health-check
 * annotations are honoured only by v0.1.5 and refused at check for v0.2.7 with the reason. Emulator only.
 */
import assert from 'node:assert/strict';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { createLoadBalancerProvider } from '../../provider/resources/load-balancer/handlers';
import { loadBalancerName } from '../../provider/resources/load-balancer/guest-service';
import type { LoadBalancerOutputs } from '../../provider/resources/load-balancer/model';
import { acceptanceMode, startTarget, type TestTarget } from '../support/target';
import { fastConnect } from '../support/fast-connect';

type Raw = Record<string, unknown>;
const CLUSTER = 'gc1';

for (const ccmVersion of ['v0.2.7', 'v0.1.5']) {
  const modern = ccmVersion === 'v0.2.7';
  describe(`HarvesterLoadBalancer for a guest-cluster Service, cloud provider ${ccmVersion}`, function () {
    this.timeout(60_000);
    let target: TestTarget;
    let client: HarvesterClient;
    let guest: HarvesterClient;
    let guestKubeconfig: string;
    const connect = fastConnect();
    const lbs = createLoadBalancerProvider({ connect });
    const args = (overrides: Raw = {}): Raw => ({
      kubeconfig: target.kubeconfig,
      name: 'ingress',
      workloadType: 'cluster',
      guestKubeconfig,
      guestClusterName: CLUSTER,
      network: 'default/vm-net',
      ports: [{ name: 'https', port: 443, targetPort: 8443 }],
      podSelector: { app: 'ingress' },
      timeouts: { create: '20s', update: '20s', delete: '20s' },
      ...overrides,
    });

    before(async function () {
      if (acceptanceMode()) this.skip();
      target = await startTarget({
        harvester: { delays: { vmiSchedule: 10, vmiBoot: 20, guestAgent: 20, imageImport: 20 } },
        guest: { clusterName: CLUSTER, ccmVersion, delays: { nodeRegister: 20, ccmInit: 10 } },
      });
      client = await HarvesterClient.connect({ kubeconfig: target.kubeconfig });
      guestKubeconfig = target.emulator!.emulator.guest!.kubeconfig;
      guest = await HarvesterClient.connect({ kubeconfig: guestKubeconfig });
      await client.ipPools.create({
        apiVersion: 'loadbalancer.harvesterhci.io/v1beta1',
        kind: 'IPPool',
        metadata: { name: 'global' },
        spec: { ranges: [{ subnet: '10.40.0.0/24', rangeStart: '10.40.0.10', rangeEnd: '10.40.0.20' }], selector: { scope: [{ project: '*', namespace: '*', guestCluster: '*' }] } },
      });
    });
    after(async () => target?.stop());

    it(modern ? 'refuses a health check at check: v0.2.0+ ignores the annotations (use readiness probes)' : 'accepts a health check on a Service port', async () => {
      const r = await lbs.check({}, args({ healthCheck: { port: 443 } }));
      if (modern) {
        assert.equal(r.failures?.length, 1, JSON.stringify(r.failures));
        assert.equal(r.failures![0].property, 'healthCheck');
        assert.match(r.failures![0].reason, /v0\.2\.7; since v0\.2\.0 it ignores health-check annotations .* readiness probes/);
      } else {
        assert.deepEqual(r.failures ?? [], []);
      }
      const wrongPort = await lbs.check({}, args({ healthCheck: { port: 80 } }));
      assert.match(wrongPort.failures?.find((f) => f.property === 'healthCheck.port')?.reason ?? '', /80 is not a port of the Service/);
    });

    it('creates the Service with the cloud-provider annotations; the Harvester side is read back, and delete removes both', async () => {
      const checked = await lbs.check({}, args(modern ? {} : { healthCheck: { port: 443 } }));
      assert.deepEqual(checked.failures ?? [], []);
      const made = await lbs.create(checked.inputs!);
      const outs = made.outs as LoadBalancerOutputs;
      const svc = (await guest.services.get('ingress', 'default'))!;
      assert.equal(svc.spec!.type, 'LoadBalancer');
      assert.equal(svc.metadata.annotations!['cloudprovider.harvesterhci.io/ipam'], 'pool');
      assert.equal(svc.metadata.annotations!['cloudprovider.harvesterhci.io/network'], 'default/vm-net');
      const lbName = loadBalancerName(CLUSTER, 'default', 'ingress', String(svc.metadata.uid));
      assert.equal(outs.harvesterLoadBalancer, `default/${lbName}`, 'the name the cloud provider computes');
      const lb = (await client.loadBalancers.get(lbName, 'default'))!;
      assert.match(outs.address, /^10\.40\.0\.(1\d|20)$/);
      if (modern) {
        assert.equal(lb.spec!.workloadType, 'cluster');
        assert.equal(lb.spec!.healthCheck, undefined);
      } else {
        const nodePort = svc.spec!.ports![0].nodePort;
        assert.equal((lb.spec!.healthCheck as { port: number }).port, nodePort, 'v0.1.x maps the health-check port to the Service port\'s nodePort');
      }
      const read = await lbs.read(made.id, outs as unknown as Raw);
      assert.deepEqual(read.props!.drift, []);
      assert.equal((await lbs.diff(made.id, read.props as Raw, checked.inputs!)).changes, false, 'no false drift');
      await guest.services.mergePatch('ingress', { spec: { selector: { app: 'other' } } }, { namespace: 'default' });
      const drifted = await lbs.read(made.id, outs as unknown as Raw);
      assert.match(drifted.props!.drift.join('\n'), /podSelector is \{"app":"other"\}/);
      const healed = await lbs.update(made.id, drifted.props as Raw, checked.inputs!);
      assert.deepEqual((await guest.services.get('ingress', 'default'))!.spec!.selector, { app: 'ingress' });
      await lbs.delete(made.id, healed.outs as unknown as Raw);
      assert.equal(await guest.services.get('ingress', 'default'), undefined);
      assert.equal(await client.loadBalancers.get(lbName, 'default'), undefined);
      assert.deepEqual((await client.ipPools.get('global'))!.status!.allocated ?? {}, {}, 'the address was released');
    });
  });
}
