/**
 * HarvesterLoadBalancer plan (plan.ts) and the not-ready explanation the create/update timeouts carry
 * (handlers.ts explainNotReady): read-back of a sparse live object, drift lines with "unset", outputs, diff.
 */
import assert from 'node:assert/strict';
import type { LoadBalancer } from '../../../../provider/client/objects';
import { explainNotReady } from '../../../../provider/resources/load-balancer/handlers';
import type { LoadBalancerInputs } from '../../../../provider/resources/load-balancer/model';
import { diffInputs, driftOf, liveInputs, readyOf, toOutputs } from '../../../../provider/resources/load-balancer/plan';
import { validateInputs } from '../../../../provider/resources/load-balancer/validate';

type Raw = Record<string, unknown>;
const inputsOf = (extra: Raw = {}): LoadBalancerInputs => {
  const v = validateInputs({ name: 'web', listeners: [{ name: 'http', port: 80, backendPort: 8080 }], backendServerSelector: { app: ['web'] }, ...extra });
  assert.deepEqual(v.failures, []);
  return v.inputs!;
};
const lbWith = (spec: LoadBalancer['spec'], status?: LoadBalancer['status']): LoadBalancer => ({
  apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'LoadBalancer', metadata: { name: 'web', namespace: 'default' }, spec, ...(status ? { status } : {}),
});
const notReady = (message: string, status: LoadBalancer['status'] = {}) => lbWith({}, { ...status, conditions: [{ type: 'Ready', status: 'False', message }] });

describe('HarvesterLoadBalancer plan: read-back and drift', () => {
  it('reads a listener without a name as name "" (so drift shows it), protocols other than UDP as TCP', () => {
    const live = liveInputs(lbWith({ listeners: [{ port: 80, backendPort: 8080 }, { name: 'dns', port: 53, protocol: 'UDP', backendPort: 53 }] }));
    assert.deepEqual(live.listeners, [{ name: '', port: 80, protocol: 'TCP', backendPort: 8080 }, { name: 'dns', port: 53, protocol: 'UDP', backendPort: 53 }]);
  });

  it('says "unset" for a field missing on either side', () => {
    const live = lbWith({ ipam: 'pool', listeners: [{ name: 'http', port: 80, protocol: 'TCP', backendPort: 8080 }], backendServerSelector: { app: ['web'] }, description: 'theirs' });
    assert.deepEqual(driftOf(inputsOf(), live), ['LoadBalancer default/web: description is "theirs", this resource set unset']);
    const bare = lbWith({ ...live.spec, description: undefined });
    assert.deepEqual(driftOf(inputsOf({ description: 'ours' }), bare), ['LoadBalancer default/web: description is unset, this resource set "ours"']);
  });
});

describe('HarvesterLoadBalancer plan: outputs and readiness', () => {
  it('a load balancer without status has no address, backends, drift or Ready message yet', () => {
    const outs = toOutputs(inputsOf(), lbWith({}));
    assert.deepEqual(
      { address: outs.address, allocatedPool: outs.allocatedPool, mask: outs.mask, gateway: outs.gateway, backendServers: outs.backendServers, ready: outs.ready, message: outs.message, drift: outs.drift },
      { address: '', allocatedPool: '', mask: '', gateway: '', backendServers: [], ready: false, message: 'not reconciled yet', drift: [] },
    );
    assert.equal(outs.harvesterLoadBalancer, 'default/web');
  });

  it('a Ready one has an empty message; a not-Ready one keeps the controller\'s', () => {
    assert.deepEqual(readyOf(lbWith({}, { conditions: [{ type: 'Ready', status: 'True', message: 'ignored' }] })), { ready: true, message: '' });
    assert.deepEqual(readyOf(notReady('no running backend servers')), { ready: false, message: 'no running backend servers' });
  });

  it('diff without recorded drift: no change for the same inputs; ipam replaces', () => {
    const olds = { ...inputsOf() } as Raw;
    assert.deepEqual(diffInputs(olds, inputsOf()), { changes: false, replaces: [] });
    assert.deepEqual(diffInputs(olds, inputsOf({ ipam: 'dhcp' })), { changes: true, replaces: ['ipam'] });
    assert.deepEqual(diffInputs({ ...olds, drift: ['x'] }, inputsOf()), { changes: true, replaces: [] }, 'recorded drift is a change');
  });
});

describe('HarvesterLoadBalancer: why it is not Ready, in the user\'s terms', () => {
  const cases: [string, LoadBalancer | undefined, Raw, string][] = [
    ['no pool matches, a named pool', notReady('no matched IPPool with requirement x'), { ipPool: 'p1' },
      'no IP pool matches it (tried: pool p1): create a HarvesterIPPool whose selector matches, or set ipPool (no matched IPPool with requirement x)'],
    ['no pool matches, no network', notReady('no matched IPPool'), { namespace: 'apps' },
      'no IP pool matches it (tried: network (none), namespace apps, then the global pool): create a HarvesterIPPool whose selector matches, or set ipPool (no matched IPPool)'],
    ['the pool is exhausted', notReady('fail to get ip from pool p, error: no IP addresses available in range set: 10.0.0.5-10.0.0.5'), {},
      'the IP pool is exhausted: widen its ranges or free an address (fail to get ip from pool p, error: no IP addresses available in range set: 10.0.0.5-10.0.0.5)'],
    ['DHCP gave nothing, on a network', notReady('wait external IP'), { ipam: 'dhcp', network: 'default/vm-net' },
      'DHCP gave no address yet: check the DHCP server of the VM network default/vm-net (wait external IP)'],
    ['DHCP gave nothing, no network', undefined, { ipam: 'dhcp' }, 'DHCP gave no address yet: check the DHCP server of the VM network (not reconciled yet)'],
    ['DHCP gave an address, but no backend runs', notReady('no running backend servers', { address: '192.168.100.7' }), { ipam: 'dhcp' },
      'no running backend servers: no running VM matches backendServerSelector {"app":["web"]} in namespace default'],
    ['any other reason, kept as it is', notReady('webhook said no'), {}, 'webhook said no'],
  ];
  for (const [label, lb, extra, expected] of cases) {
    it(label, () => assert.equal(explainNotReady(lb, inputsOf(extra)), expected));
  }
});
