/**
 * examples/guest-cluster-credentials under `pulumi.runtime.setMocks`: the credentials named after the guest
 * cluster, the machine pool taking their cloudInit output as guestCredentials, and both kept secret.
 */
import assert from 'node:assert/strict';
import * as pulumi from '@pulumi/pulumi';
import { SECRET_SIG_KEY } from '../../runner/secrets';

describe('example: guest-cluster-credentials under pulumi.runtime.setMocks', function () {
  this.timeout(60_000);
  const registered: { type: string; name: string; inputs: Record<string, any> }[] = [];
  let program: Record<string, pulumi.Output<unknown>>;

  before(async () => {
    await pulumi.runtime.setMocks(
      {
        newResource(args) {
          registered.push({ type: args.type, name: args.name, inputs: args.inputs });
          const state: Record<string, unknown> = { ...args.inputs };
          if (args.type.endsWith(':GuestClusterCredentials')) {
            Object.assign(state, { serviceAccountName: args.inputs.clusterName, cloudConfig: 'kubeconfig', cloudInit: '#cloud-config\nwrite_files: []\n' });
          }
          if (args.type.endsWith(':HarvesterMachinePool')) state.machines = [0, 1, 2].map((i) => ({ index: i, name: `${args.inputs.name}-${i}`, ready: true }));
          return { id: `default/${args.name}`, state };
        },
        call: () => ({}),
      },
      'guest-cluster-credentials',
      'prod',
    );
    program = require('../../examples/guest-cluster-credentials');
  });

  const settle = <T>(o: pulumi.Output<T>) => new Promise<T>((resolve) => o.apply(resolve));
  const byType = (suffix: string) => registered.find((r) => r.type === `pulumi-nodejs:dynamic/harvester:${suffix}`)!;

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
