/**
 * The machine pool's handlers with no cluster or an in-memory one: secret inputs are registered for redaction as
 * soon as the provider sees them, so no error or log line of any layer can quote them; destroy sweeps stray Secrets;
 * and the one refusal the emulator cannot stage (its webhook refuses a key pair that would not validate) is refused
 * by check as by up (the others: test/integration/machine-pool-refusals.test.ts).
 */
import assert from 'node:assert/strict';
import { REDACTED, clearRegisteredSecrets, redact } from '../../../../../provider/client/redact';
import { createMachinePoolProvider } from '../../../../../provider/resources/machine-pool/handlers';
import { formatFailure } from '../../../../../provider/core/input-errors';

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
    assert.deepEqual(r.failures?.map((f) => f.property), [''], 'only the unreachable cluster is reported, on no property');
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

  it('a key pair that is not validated: check refuses it with and without olds, and up refuses it in the same words before writing', async () => {
    const found = (objects: Record<string, unknown>) => ({ get: async (name: string) => objects[name] });
    const none = { get: async () => undefined, list: async () => ({ items: [], resourceVersion: '1' }) };
    // Reads only: a write would throw (no such method) instead of refusing with the check's words.
    const client = {
      namespaces: found({ default: { metadata: { name: 'default' } } }),
      images: found({ img: { metadata: { name: 'img' }, spec: {}, status: { storageClassName: 'lh-img', conditions: [{ type: 'Imported', status: 'True' }] } } }),
      networks: found({ 'vm-net': { metadata: { name: 'vm-net' } } }),
      nodes: { list: async () => ({ items: [{ metadata: { name: 'node-0', labels: { 'network.harvesterhci.io/mgmt': 'true' } } }] }) },
      keyPairs: found({ unchecked: { metadata: { name: 'unchecked' }, spec: { publicKey: 'ssh-ed25519 AAAA' }, status: { conditions: [{ type: 'validated', status: 'False' }] } } }),
      virtualMachines: none, virtualMachineInstances: none, secrets: none, persistentVolumeClaims: none,
    };
    const provider = createMachinePoolProvider({ connect: async () => client as never });
    // The fake cluster has no capacity to read (test/engine/machine-pool-capacity.test.ts reads the emulator's).
    const base = { name: 'pool-a', disks: [{ image: 'img', size: '10Gi' }], networks: [{ network: 'vm-net' }], capacityCheck: 'off' };
    const recorded = (await provider.check({}, base)).inputs!;
    const news = { ...base, count: 2, sshKeys: ['unchecked'] };
    const update = await provider.check(recorded, news);
    const create = await provider.check({}, news);
    assert.deepEqual(update.failures?.map((f) => f.property), ['sshKeys[0]']);
    assert.deepEqual(create.failures, update.failures);
    assert.match(update.failures![0].reason, /^KeyPair default\/unchecked is not validated by Harvester/);
    const parsed = { ...recorded, ...news, sshKeys: ['unchecked'] };
    const err = await provider.update('default/pool-a', { ...recorded, machines: [] } as never, parsed).then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof Error && err.message.includes(formatFailure(update.failures![0])), String(err));
  });
});
