/**
 * HarvesterLoadBalancer check rules (validate.ts): each failure on its property with its full reason, so a
 * changed fix text, a port list or a workload-type name shows here.
 */
import assert from 'node:assert/strict';
import { crossFieldFailures, validateInputs } from '../../../../provider/resources/load-balancer/validate';

type Raw = Record<string, unknown>;
const UNKNOWN = '04da6b54-80e4-46f7-96ec-b56ff0331ba9';
const vm = (extra: Raw = {}): Raw => ({ name: 'web', listeners: [{ name: 'http', port: 80, backendPort: 8080 }], backendServerSelector: { app: ['web'] }, ...extra });
const cluster = (extra: Raw = {}): Raw => ({ name: 'web', workloadType: 'cluster', guestKubeconfig: 'kc', guestClusterName: 'gc', ports: [{ name: 'https', port: 443 }], ...extra });
const failuresOf = (user: Raw) => Object.fromEntries(crossFieldFailures(user).map((f) => [f.property, f.reason]));
const listener = (name: string, port: number, backendPort: unknown, protocol?: unknown) => ({ name, port, backendPort, ...(protocol === undefined ? {} : { protocol }) });

describe('HarvesterLoadBalancer check: listeners and the health check', () => {
  it('names the first holder of a duplicate listener name, port or backendPort, with the fix', () => {
    const f = failuresOf(vm({ listeners: [listener('a', 80, 8080), listener('a', 80, 8080)] }));
    assert.deepEqual(f, {
      'listeners[1].name': 'name "a" is already used by listeners[0] (the webhook refuses duplicates): choose another',
      'listeners[1].port': 'TCP port 80 is already used by listeners[0] (the webhook refuses duplicates): choose another',
      'listeners[1].backendPort': 'TCP backendPort 8080 is already used by listeners[0] (the webhook refuses duplicates): choose another',
    });
  });

  const hcCases: [string, unknown[], string][] = [
    ['a port no listener has, listing every TCP backendPort', [listener('a', 80, 8080), listener('b', 81, 9090), listener('u', 53, 5353, 'UDP')], '7000 is not the backendPort of any TCP listener: use one of 8080, 9090'],
    ['a port no listener has when all are UDP', [listener('u', 53, 5353, 'UDP')], '7000 is not the backendPort of any TCP listener: use one of (no TCP listener)'],
    ['a UDP listener\'s backendPort, listing the TCP ones', [listener('a', 80, 8080), listener('b', 81, 9090), listener('u', 53, 7000, 'UDP')], '7000 is the backendPort of a UDP listener; health checks are TCP only: probe a TCP listener\'s backendPort (8080, 9090)'],
    ['a UDP listener\'s backendPort with no TCP listener', [listener('u', 53, 7000, 'UDP')], '7000 is the backendPort of a UDP listener; health checks are TCP only: probe a TCP listener\'s backendPort (none)'],
    // A mistyped protocol is neither TCP nor UDP: the port is not called a UDP one.
    ['the backendPort of a listener with a mistyped protocol', [listener('t', 80, 7000, 'tcp')], '7000 is not the backendPort of any TCP listener: use one of (no TCP listener)'],
  ];
  for (const [label, listeners, reason] of hcCases) {
    it(`refuses a health check on ${label}`, () => {
      assert.equal(failuresOf(vm({ listeners, healthCheck: { port: 7000 } }))['healthCheck.port'], reason);
    });
  }

  it('does not judge the health check while a listener\'s backendPort or protocol, or the port itself, is unknown', () => {
    const known = listener('a', 80, 8080);
    for (const unknownOne of [listener('b', 81, UNKNOWN), listener('b', 81, 9090, UNKNOWN)]) {
      assert.deepEqual(crossFieldFailures(vm({ listeners: [known, unknownOne], healthCheck: { port: 7000 } })), [], JSON.stringify(unknownOne));
    }
    assert.deepEqual(crossFieldFailures(vm({ healthCheck: { port: UNKNOWN } })), []);
    assert.deepEqual(crossFieldFailures(vm({ healthCheck: { port: 8080 } })), []);
  });

  it('refuses an ipPool with ipam "dhcp", with both ways out', () => {
    assert.equal(failuresOf(vm({ ipam: 'dhcp', ipPool: 'p' })).ipPool, 'is set but ipam is "dhcp", which takes no pool: remove ipPool, or set ipam to "pool"');
    assert.deepEqual(crossFieldFailures(vm({ ipam: 'dhcp', ipPool: UNKNOWN })), []);
  });

  it('refuses an empty backendServerSelector, pointing at a machine pool\'s output', () => {
    assert.equal(failuresOf(vm({ backendServerSelector: {} })).backendServerSelector,
      'is empty, so it would select no VM: give labels of the backends, e.g. a HarvesterMachinePool\'s backendSelector output');
  });
});

describe('HarvesterLoadBalancer check: inputs of each workload type', () => {
  it('requires the vm inputs, saying vm is the default', () => {
    assert.deepEqual(failuresOf({ name: 'web' }), {
      listeners: 'is required with workloadType "vm" (the default)',
      backendServerSelector: 'is required with workloadType "vm" (the default)',
    });
  });

  it('requires the cluster inputs', () => {
    assert.deepEqual(failuresOf({ name: 'web', workloadType: 'cluster' }), {
      guestKubeconfig: 'is required with workloadType "cluster"',
      guestClusterName: 'is required with workloadType "cluster"',
      ports: 'is required with workloadType "cluster"',
    });
  });

  it('refuses each cluster input on a vm load balancer, and each vm input on a cluster one, with the fix', () => {
    const clusterOnly = ['guestKubeconfig', 'guestContext', 'guestClusterName', 'ports', 'podSelector', 'guestCloudProviderVersion'];
    const f = failuresOf(vm(Object.fromEntries(clusterOnly.map((k) => [k, 'x']))));
    assert.deepEqual(f, Object.fromEntries(clusterOnly.map((k) => [k, `belongs to workloadType "cluster" (a guest-cluster Service): remove it, or set workloadType to "cluster"`])));
    const g = failuresOf(cluster({ listeners: [], backendServerSelector: { a: ['b'] }, ipPool: 'p' }));
    const why = 'is not used with workloadType "cluster": the guest\'s Harvester cloud provider makes the load balancer from the Service (ports, podSelector) and Harvester chooses the pool; remove';
    assert.deepEqual(g, Object.fromEntries(['listeners', 'backendServerSelector', 'ipPool'].map((k) => [k, `${why} ${k}`])));
  });

  it('judges nothing by workload type while it is unknown', () => {
    assert.deepEqual(crossFieldFailures({ name: 'web', workloadType: UNKNOWN }), []);
  });

  it('refuses a cluster health check on a port the Service lacks, listing its ports', () => {
    const ports = [{ name: 'https', port: 443 }, { name: 'http', port: 80 }];
    assert.equal(failuresOf(cluster({ ports, healthCheck: { port: 8443 } }))['healthCheck.port'],
      '8443 is not a port of the Service: the cloud provider maps the health-check port to a Service port\'s nodePort; use one of 443, 80');
    assert.deepEqual(crossFieldFailures(cluster({ ports, healthCheck: { port: 80 } })), [], 'any of the ports will do');
    assert.deepEqual(crossFieldFailures(cluster({ ports, healthCheck: { port: UNKNOWN } })), []);
    assert.deepEqual(crossFieldFailures(cluster({ ports: [{ name: 'x', port: UNKNOWN }], healthCheck: { port: 80 } })), []);
  });

  it('a null entry among the ports is a model failure, not a crash of the port list', () => {
    const v = validateInputs(cluster({ ports: [{ name: 'https', port: 443 }, null], healthCheck: { port: 80 } }));
    assert.match(Object.fromEntries(v.failures.map((f) => [f.property, f.reason]))['healthCheck.port'], /use one of 443$/);
    assert.ok(v.failures.some((f) => f.property === 'ports[1]'), JSON.stringify(v.failures));
  });
});
