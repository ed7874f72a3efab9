/**
 * examples/guest-cluster-credentials under `pulumi.runtime.setMocks`: the credentials named after the guest
 * cluster, the machine pool taking their cloudInit output as guestCredentials, and both kept secret.
 */
import assert from 'node:assert/strict';
import { SECRET_SIG_KEY } from '../../runner/secrets';
import { loadWithMocks, settle, type MockedProgram } from '../support/program-mocks';

describe('example: guest-cluster-credentials under pulumi.runtime.setMocks', function () {
  this.timeout(60_000);
  let program: MockedProgram['program'];
  let find: MockedProgram['byType'];
  const byType = (className: string) => find(className)!;

  before(async () => {
    ({ program, byType: find } = await loadWithMocks('../../examples/guest-cluster-credentials', 'guest-cluster-credentials', 'prod', {
      GuestClusterCredentials: (inputs) => ({ serviceAccountName: inputs.clusterName, cloudConfig: 'kubeconfig', cloudInit: '#cloud-config\nwrite_files: []\n' }),
      HarvesterMachinePool: (inputs) => ({ machines: [0, 1, 2].map((i) => ({ index: i, name: `${inputs.name}-${i}`, ready: true })) }),
    }));
  });

  it('names the credentials after the guest cluster, in the VMs\' namespace', async () => {
    assert.equal(await settle(program.serviceAccount), 'prod-apps');
    const creds = byType('GuestClusterCredentials');
    assert.equal(creds.inputs.clusterName, 'prod-apps');
    assert.equal(creds.inputs.namespace, 'default');
    assert.equal(creds.inputs.rotationTrigger, '1');
  });

  it('wires the credentials\' cloudInit into the pool as a secret input', async () => {
    await settle(program.nodeNames);
    const pool = byType('HarvesterMachinePool');
    assert.equal(pool.inputs.guestCluster, 'prod-apps');
    assert.ok(pool.inputs.guestCredentials[SECRET_SIG_KEY], 'guestCredentials is a secret');
    assert.equal(pool.inputs.guestCredentials.value, '#cloud-config\nwrite_files: []\n');
  });
});
