/**
 * The machine pool's handlers where no cluster is needed: secret inputs are registered for redaction as soon
 * as the provider sees them, so no error or log line of any layer can quote them.
 */
import assert from 'node:assert/strict';
import { REDACTED, clearRegisteredSecrets, redact } from '../../../../../provider/client/redact';
import { createMachinePoolProvider } from '../../../../../provider/resources/machine-pool/handlers';

describe('machine-pool handlers (no cluster)', () => {
  afterEach(() => clearRegisteredSecrets());

  it('registers userData and networkData as secrets at check, even when the cluster is unreachable', async () => {
    const provider = createMachinePoolProvider({ connect: async () => { throw new Error('cluster unreachable'); } });
    const userLine = 'runcmd: [echo join-token=K10a9f8e7d6c5b4a3]';
    const netLine = 'ethernets: {eth0: {addresses: [10.9.8.7/24]}}';
    const r = await provider.check({}, {
      kubeconfig: '/home/me/.kube/harvester.yaml',
      name: 'pool-a',
      disks: [{ image: 'img', size: '10Gi' }],
      networks: [{ network: 'vm-net' }],
      userData: `#cloud-config\n${userLine}\n`,
      networkData: `version: 2\n${netLine}\n`,
    });
    assert.deepEqual(r.failures?.map((f) => f.property), ['kubeconfig'], 'only the unreachable cluster is reported');
    assert.equal(redact(`a server message quoting "${userLine}"`), `a server message quoting "${REDACTED}"`);
    assert.equal(redact(`and "${netLine}"`), `and "${REDACTED}"`);
    assert.equal(redact('/home/me/.kube/harvester.yaml'), '/home/me/.kube/harvester.yaml', 'a kubeconfig path is not a secret');
  });

  it('destroy sweeps a Secret left without its VM in the pool\'s own namespace, as the pool\'s owner', async () => {
    const deletes: unknown[] = [];
    const empty = { list: async () => ({ items: [], resourceVersion: '1' }) };
    const secret = { metadata: { name: 'pool-a-7-cloudinit', namespace: 'team' } };
    const client = {
      virtualMachines: empty,
      virtualMachineInstances: empty,
      persistentVolumeClaims: empty,
      secrets: {
        list: async (o: { namespace?: string }) => ({ items: o.namespace === 'team' ? [secret] : [], resourceVersion: '1' }),
        delete: async (name: string, o: unknown) => void deletes.push([name, o]),
      },
    };
    const provider = createMachinePoolProvider({ connect: async () => client as never });
    await provider.delete('team/pool-a', { name: 'pool-a', namespace: 'team', volumeDeletion: 'retain' });
    assert.deepEqual(deletes, [['pool-a-7-cloudinit', { namespace: 'team', owner: { resourceType: 'machine-pool', resourceName: 'pool-a' } }]]);
  });
});
