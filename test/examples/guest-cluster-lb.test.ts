/**
 * examples/guest-cluster-lb under `pulumi.runtime.setMocks`: the registrations, their inputs (the load balancer
 * selects the pool's VMs and draws from the guest cluster's pool) and secrets.
 */
import assert from 'node:assert/strict';
import { SECRET_SIG_KEY } from '../../runner/secrets';
import { loadWithMocks, settle, type MockedProgram } from '../support/program-mocks';

describe('example: guest-cluster-lb under pulumi.runtime.setMocks', function () {
  this.timeout(60_000);
  let program: MockedProgram['program'];
  let find: MockedProgram['byType'];
  const byType = (className: string) => find(className)!;

  before(async () => {
    ({ program, byType: find } = await loadWithMocks('../../examples/guest-cluster-lb', 'guest-cluster-lb', 'prod', {
      HarvesterMachinePool: (inputs) => ({
        backendSelector: { 'harvester-iac.io/resource-name': [inputs.name] },
        machines: [0, 1, 2].map((i) => ({ index: i, name: `${inputs.name}-${i}`, ready: true })),
      }),
      HarvesterLoadBalancer: () => ({ address: '172.16.100.230', backendServers: ['10.0.0.1', '10.0.0.2', '10.0.0.3'] }),
    }));
  });

  it('labels the workers for the guest cluster and keeps their user data secret', async () => {
    await settle(program.ingressAddress);
    const pool = byType('HarvesterMachinePool');
    assert.equal(pool.inputs.name, 'prod-apps-workers');
    assert.equal(pool.inputs.guestCluster, 'prod-apps');
    assert.ok(pool.inputs.userData[SECRET_SIG_KEY], 'userData is a secret');
  });

  it('serves HTTP and HTTPS from the guest cluster\'s own pool to every worker, health-checked on HTTPS', async () => {
    assert.equal(await settle(program.ingressAddress), '172.16.100.230');
    const lb = byType('HarvesterLoadBalancer');
    assert.equal(lb.inputs.ipPool, 'prod-apps-ingress');
    assert.deepEqual(lb.inputs.backendServerSelector, { 'harvester-iac.io/resource-name': ['prod-apps-workers'] });
    assert.deepEqual(lb.inputs.listeners.map((l: { port: number }) => l.port), [80, 443]);
    assert.equal(lb.inputs.healthCheck.port, 443);
    const pool = byType('HarvesterIPPool');
    assert.deepEqual(pool.inputs.selector.scope, [{ namespace: 'default' }]);
    assert.deepEqual(await settle(program.workerNames), ['prod-apps-workers-0', 'prod-apps-workers-1', 'prod-apps-workers-2']);
  });
});
