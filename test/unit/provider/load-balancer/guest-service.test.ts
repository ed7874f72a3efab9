/**
 * workloadType "cluster", the pure parts (guest-service.ts): the Harvester LoadBalancer's name as the cloud
 * provider computes it (checked against the emulator's own port of it, another CRC32), the health-check
 * version gate, the Service built from the inputs and read back as inputs, and the outputs.
 */
import assert from 'node:assert/strict';
import { loadBalancerName as emulatorName } from '../../../../emulator/guest/lb-name';
import type { HarvesterClient } from '../../../../provider/client/harvester-client';
import type { LoadBalancer, Service } from '../../../../provider/client/objects';
import {
  SERVICE_ANNOTATIONS, desiredService, harvesterSide, healthCheckRefusal, loadBalancerName, readsHealthCheck, serviceInputs, serviceOutputs,
} from '../../../../provider/resources/load-balancer/guest-service';
import type { LoadBalancerInputs } from '../../../../provider/resources/load-balancer/model';
import { validateInputs } from '../../../../provider/resources/load-balancer/validate';

type Raw = Record<string, unknown>;
const inputsOf = (extra: Raw = {}): LoadBalancerInputs => {
  const v = validateInputs({ name: 'web', workloadType: 'cluster', guestKubeconfig: 'kc', guestClusterName: 'gc1', ports: [{ name: 'https', port: 443 }], ...extra });
  assert.deepEqual(v.failures, []);
  return v.inputs!;
};
const service = (annotations: Record<string, string>, spec: Service['spec'] = {}, status?: Service['status']): Service => ({
  apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default', uid: 'uid-1', annotations }, spec, ...(status ? { status } : {}),
});

describe('HarvesterLoadBalancer cluster: the cloud provider\'s LoadBalancer name', () => {
  const long = 'x'.repeat(50);
  const cases: [string, [string, string, string, string]][] = [
    ['a plain cluster name', ['gc1', 'default', 'web', 'uid-1']],
    ['a CRC whose hex has a leading zero (kept: 8 digits)', ['gc1', 'default', 'web', 'uid-12']],
    ['a cluster name that is not a DNS-1035 label (prefixed "a")', ['1gc', 'default', 'web', 'uid-1']],
    ['a 63-character cluster name (kept)', [`g${'c'.repeat(62)}`, 'default', 'web', 'uid-1']],
    ['a 64-character cluster name (prefixed "a")', [`g${'c'.repeat(63)}`, 'default', 'web', 'uid-1']],
    ['a base longer than 55 characters (cut, the CRC of the whole kept)', ['gc1', 'default', long, 'uid-1']],
  ];
  for (const [label, args] of cases) {
    it(`matches the emulator's cloud provider for ${label}`, () => {
      const name = loadBalancerName(...args);
      assert.equal(name, emulatorName(...args));
      assert.ok(name.length <= 63, name);
    });
  }

  it('pins the shapes: the prefix, the cut and the zero-padded suffix', () => {
    assert.equal(loadBalancerName('gc1', 'default', 'web', 'uid-12'), 'gc1-default-web-084b254c');
    assert.match(loadBalancerName('1gc', 'default', 'web', 'uid-1'), /^a1gc-default-web-[0-9a-f]{8}$/);
    assert.match(loadBalancerName(`g${'c'.repeat(62)}`, 'd', 'w', 'u'), /^gc{54}[0-9a-f]{8}$/);
    assert.match(loadBalancerName(`g${'c'.repeat(63)}`, 'd', 'w', 'u'), /^agc{53}[0-9a-f]{8}$/);
    assert.match(loadBalancerName('gc1', 'default', long, 'uid-1'), new RegExp(`^gc1-default-${'x'.repeat(43)}[0-9a-f]{8}$`));
  });
});

describe('HarvesterLoadBalancer cluster: the health-check version gate', () => {
  it('only cloud providers below v0.2.0 read the annotations', () => {
    assert.deepEqual(['v0.1.5', 'v0.1.99', 'v0.2.0', 'v0.2.7', 'not-a-version'].map(readsHealthCheck), [true, true, false, false, false]);
  });

  it('refuses with the reason: an unknown version (how to state it) or one that ignores the annotations', () => {
    assert.equal(healthCheckRefusal(undefined),
      'the guest\'s Harvester cloud provider version is unknown (Deployment kube-system/harvester-cloud-provider not found): set guestCloudProviderVersion');
    assert.equal(healthCheckRefusal('v0.2.0'),
      'the guest\'s Harvester cloud provider is v0.2.0; since v0.2.0 it ignores health-check annotations (the cluster load balancer has no health check): remove healthCheck and give the pods readiness probes');
    assert.equal(healthCheckRefusal('v0.1.5'), undefined);
  });
});

describe('HarvesterLoadBalancer cluster: the Service', () => {
  it('has no selector when podSelector is not given (not an empty one)', () => {
    assert.equal('selector' in desiredService(inputsOf()).spec!, false);
    assert.deepEqual(desiredService(inputsOf({ podSelector: { app: 'a' } })).spec!.selector, { app: 'a' });
  });

  it('reads back as inputs: ipam, network, description, UDP, a nameless port, targetPort only when it differs', () => {
    const svc = service(
      { [SERVICE_ANNOTATIONS.ipam]: 'dhcp', [SERVICE_ANNOTATIONS.network]: 'default/vm-net', [SERVICE_ANNOTATIONS.description]: 'd' },
      { ports: [{ port: 53, protocol: 'UDP', targetPort: 53 }, { name: 'https', port: 443, targetPort: 8443 }, { name: 'named', port: 80, targetPort: 'http' }] },
    );
    assert.deepEqual(serviceInputs(svc), {
      ipam: 'dhcp',
      network: 'default/vm-net',
      description: 'd',
      ports: [{ name: '', port: 53, protocol: 'UDP' }, { name: 'https', port: 443, protocol: 'TCP', targetPort: 8443 }, { name: 'named', port: 80, protocol: 'TCP' }],
    });
  });

  it('reads a Service without our annotations as ipam "pool" and without the optional keys', () => {
    assert.deepEqual(serviceInputs(service({}, { ports: [{ name: 'https', port: 443 }], selector: {} })), { ipam: 'pool', ports: [{ name: 'https', port: 443, protocol: 'TCP' }] });
  });
});

describe('HarvesterLoadBalancer cluster: outputs', () => {
  const lb: LoadBalancer = {
    apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'LoadBalancer', metadata: { name: 'gc1-default-web-1', namespace: 'default' },
    status: { address: '10.0.0.9', allocatedAddress: { ipPool: 'p', ip: '10.0.0.9' }, conditions: [{ type: 'Ready', status: 'True' }] },
  };

  it('before the cloud provider made the load balancer: no address, not ready, with the reason', () => {
    const inputs = inputsOf();
    assert.deepEqual(serviceOutputs(inputs, service({}), undefined), {
      ...inputs, address: '', allocatedPool: '', mask: '', gateway: '', backendServers: [], ready: false,
      message: 'the guest\'s cloud provider has not made the Harvester load balancer yet', drift: [], harvesterLoadBalancer: '',
    });
  });

  it('the Service\'s ingress address first, else the load balancer\'s (an empty ingress list too)', () => {
    const outs = serviceOutputs(inputsOf(), service({}, {}, { loadBalancer: { ingress: [{ ip: '10.0.0.1' }] } }), lb);
    assert.deepEqual([outs.address, outs.allocatedPool, outs.ready, outs.drift, outs.harvesterLoadBalancer], ['10.0.0.1', 'p', true, [], 'default/gc1-default-web-1']);
    assert.equal(serviceOutputs(inputsOf(), service({}, {}, { loadBalancer: { ingress: [] } }), lb).address, '10.0.0.9');
  });

  it('looks the load balancer up by the computed name in the cloud provider\'s namespace', async () => {
    const asked: [string, string | undefined][] = [];
    const harvester = { loadBalancers: { get: async (name: string, ns?: string) => (asked.push([name, ns]), lb) } } as unknown as HarvesterClient;
    assert.equal(await harvesterSide(harvester, inputsOf({ cloudProviderNamespace: 'guests' }), service({})), lb);
    assert.deepEqual(asked, [[loadBalancerName('gc1', 'default', 'web', 'uid-1'), 'guests']]);
  });
});
