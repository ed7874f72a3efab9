/**
 * The quickstart program under `pulumi.runtime.setMocks`: what it registers (type tokens, inputs, secrets,
 * the serialized provider), without any engine or cluster.
 */
import assert from 'node:assert/strict';
import { SECRET_SIG_KEY } from '../../runner/secrets';
import { loadWithMocks, settle, type MockedProgram, type Registered } from '../support/program-mocks';

describe('example: quickstart under pulumi.runtime.setMocks', function () {
  this.timeout(60_000);
  let registered: Registered[];
  let program: MockedProgram['program'];
  let byType: MockedProgram['byType'];

  before(async () => {
    ({ registered, program, byType } = await loadWithMocks('../../examples/quickstart', 'harvester-quickstart', 'dev', {
      TopologyLabels: () => ({ zones: ['eu-west-a', 'eu-west-b', 'eu-west-c'] }),
      HarvesterMachinePool: () => ({
        machines: [0, 1, 2].map((i) => ({ index: i, name: `workers-${i}`, zone: `eu-west-${'abc'[i]}`, ip: `10.0.0.${i}`, ready: true })),
        readyCount: 3,
        backendSelector: { 'harvester-iac.io/resource-name': ['workers'] },
      }),
      HarvesterLoadBalancer: () => ({ address: '172.16.100.200' }),
    }));
  });

  it('registers every resource under its permanent type token', async () => {
    await settle(program.apiServerAddress);
    for (const type of ['TopologyLabels', 'HarvesterMachinePool', 'HarvesterIPPool', 'HarvesterLoadBalancer']) assert.ok(byType(type), `${type} in ${JSON.stringify(registered.map((r) => r.type))}`);
  });

  it('puts the load balancer in front of the pool\'s VMs, on the IP pool', async () => {
    await settle(program.apiServerAddress);
    const lb = byType('HarvesterLoadBalancer')!;
    assert.deepEqual(lb.inputs.backendServerSelector, { 'harvester-iac.io/resource-name': ['workers'] });
    assert.equal(lb.inputs.ipPool, 'quickstart-pool');
    assert.deepEqual(lb.inputs.healthCheck, { port: 6443 });
  });

  it('tells check that the load balancer\'s ipPool comes from a pool of this program (preview passes before the pool exists)', async () => {
    await settle(program.apiServerAddress);
    assert.deepEqual(byType('HarvesterLoadBalancer')!.inputs.__inProgram, ['ipPool']);
    assert.equal(byType('HarvesterIPPool')!.inputs.__inProgram, undefined, 'nothing of the pool comes from another resource');
  });

  it('tells check that the machine pool\'s image, network and key pair come from this program (the quickstart starts from zero)', async () => {
    await settle(program.readyWorkers);
    assert.deepEqual([...byType('HarvesterMachinePool')!.inputs.__inProgram].sort(), ['disks[0].image', 'networks[0].network', 'sshKeys[0]']);
  });

  it('names the pool after the resource, feeds it the zones the labels define, and keeps user data secret', async () => {
    await settle(program.readyWorkers);
    const pool = byType('HarvesterMachinePool')!;
    assert.equal(pool.inputs.name, 'workers');
    assert.deepEqual(pool.inputs.zones, ['eu-west-a', 'eu-west-b', 'eu-west-c']);
    assert.ok(pool.inputs.userData && pool.inputs.userData[SECRET_SIG_KEY], 'userData reaches the engine as a secret');
    const site = byType('TopologyLabels')!;
    assert.deepEqual(Object.keys(site.inputs.hosts), ['harvester-node-0', 'harvester-node-1', 'harvester-node-2']);
  });

  it('serializes a small provider that loads harvester-iac/provider by name', async () => {
    await settle(program.readyWorkers);
    for (const r of registered) {
      const text = String(r.inputs.__provider);
      assert.ok(text.length <= 2048, `${r.type}: ${text.length} bytes`);
      assert.match(text, /require\('harvester-iac\/provider'\)/);
    }
  });

  it('exports the addresses, zones and ready count', async () => {
    assert.deepEqual(await settle(program.zones), ['eu-west-a', 'eu-west-b', 'eu-west-c']);
    assert.equal(await settle(program.readyWorkers), 3);
    assert.deepEqual(await settle(program.workerAddresses), ['workers-0 eu-west-a 10.0.0.0', 'workers-1 eu-west-b 10.0.0.1', 'workers-2 eu-west-c 10.0.0.2']);
  });
});
