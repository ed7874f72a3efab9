/**
 * The reconciler's own edges, with the key pair resource as the subject and a client stub as the cluster: check's
 * verdict on someone else's object and on a kubeconfig that cannot be used, the connection inputs outside the diff,
 * apply's refusal before its first write, and the merge patch of a one-object resource.
 */
import assert from 'node:assert/strict';
import type { HarvesterClient } from '../../../../provider/client/harvester-client';
import type { KeyPair } from '../../../../provider/client/objects';
import { clearRegisteredSecrets, redact } from '../../../../provider/client/redact';
import { ProviderError } from '../../../../provider/core/errors';
import { diffOf, reconciledProvider } from '../../../../provider/core/reconciler/reconciler';
import type { ManagedResource, ResourceContext } from '../../../../provider/core/reconciler/resource';
import { UnreachableClusters } from '../../../../provider/core/unreachable';
import { keyPairResource } from '../../../../provider/resources/key-pair/handlers';
import type { KeyPairInputs, KeyPairOutputs } from '../../../../provider/resources/key-pair/model';
import { keyPairSchema } from '../../../../provider/resources/key-pair/model';
import { keyPairRuleCases } from '../../../support/keypair-rules';

type Resource = ManagedResource<KeyPairInputs, KeyPairOutputs, KeyPair>;

const publicKey = keyPairRuleCases().find((c) => !c.refused)!.publicKey;
const SERVER = 'https://10.0.0.1:6443';

/** A client whose namespaces all exist and whose key pairs are `keyPairs` (a stand-in for the parts a test uses). */
function clientStub(keyPairs: Partial<Record<keyof HarvesterClient['keyPairs'], unknown>> = {}): HarvesterClient {
  return { connection: { server: SERVER }, namespaces: { get: async () => ({ metadata: { name: 'default' } }) }, keyPairs } as unknown as HarvesterClient;
}

function providerOf(resource: Resource, client: HarvesterClient = clientStub()) {
  return reconciledProvider(resource, { connect: async () => client, onWarning: () => undefined, unreachable: new UnreachableClusters() });
}

describe('the reconciler: check, diff and apply at their edges (reconciler.ts, single-object.ts)', () => {
  afterEach(() => clearRegisteredSecrets());

  it("refuses someone else's object under the name, with the import id and the kubectl command that frees it", async () => {
    // A list's items carry no kind: the command then says "object".
    const theirs = { metadata: { name: 'ops', namespace: 'default', labels: {} } } as unknown as KeyPair;
    const provider = providerOf({ ...keyPairResource, observe: async () => theirs });
    const result = await provider.check({}, { name: 'ops', publicKey });
    assert.equal(result.failures?.length, 1);
    assert.equal(result.failures![0].property, 'name');
    assert.ok(
      result.failures![0].reason.endsWith(' Or import it (id "default/ops"), or delete it (`kubectl delete object -n default ops`) if nothing uses it.'),
      result.failures![0].reason,
    );
  });

  it("says a resource's own kubeconfig that cannot be used is the input to fix, and keeps its path readable", async () => {
    const provider = reconciledProvider(keyPairResource, {
      connect: async () => {
        throw new Error('ENOENT: no such file or directory, open /home/ops/guest.yaml');
      },
      unreachable: new UnreachableClusters(),
    });
    const result = await provider.check({}, { name: 'ops', publicKey, kubeconfig: '/home/ops/guest.yaml' });
    assert.deepEqual(result.failures, [
      {
        property: '',
        reason:
          "cannot check the inputs against the Harvester cluster: the kubeconfig from the resource's kubeconfig input cannot be used: ENOENT: no such file or directory, open /home/ops/guest.yaml\n" +
          "Fix: fix the resource's kubeconfig input.",
      },
    ]);
    assert.equal(redact('open /home/ops/guest.yaml'), 'open /home/ops/guest.yaml', 'a kubeconfig path is not a secret');
  });

  it('leaves the connection inputs out of the diff, and sees every other input', () => {
    const diff = diffOf(keyPairResource);
    const olds = { ...keyPairSchema.parse({ name: 'ops', publicKey }), kubeconfig: '/a.yaml', context: 'a' } as unknown as Partial<KeyPairOutputs>;
    assert.deepEqual(diff(olds, { ...olds, kubeconfig: '/b.yaml', context: 'b' } as Partial<KeyPairInputs>), { changes: false, replaces: [] });
    assert.deepEqual(diff(olds, { ...olds, labels: { team: 'a' } } as Partial<KeyPairInputs>), { changes: true, replaces: [] });
  });

  it('refuses before its first write what the cluster check finds, every finding named', async () => {
    let written = false;
    const provider = providerOf({
      ...keyPairResource,
      observe: async () => undefined,
      checkBeforeWrite: true,
      checkCluster: async () => ({ references: [{ property: 'namespace', reason: 'namespace team does not exist' }], always: [{ property: 'name', reason: 'is taken by a planned object' }] }),
      converge: async () => {
        written = true;
        throw new Error('must not be reached');
      },
    });
    await assert.rejects(provider.create({ name: 'ops', publicKey }), (err: unknown) => {
      assert.ok(err instanceof ProviderError);
      assert.equal(err.code, 'InvalidInputs');
      assert.equal(err.fix, 'Fix the inputs above and run again.');
      assert.equal(
        err.message,
        'KeyPair default/ops cannot be created: the cluster refuses the inputs:\n  - namespace team does not exist\n  - name: is taken by a planned object\nFix the inputs above and run again.',
      );
      return true;
    });
    assert.equal(written, false);
  });

  it('patches our key pair in its own namespace, preconditioned on our ownership', async () => {
    const calls: unknown[][] = [];
    const stop = new Error('patched');
    const client = clientStub({
      mergePatch: async (...args: unknown[]) => {
        calls.push(args);
        throw stop;
      },
    });
    const inputs = keyPairSchema.parse({ name: 'ops', namespace: 'team', publicKey, labels: { a: 'b' } }) as KeyPairInputs;
    const live = { metadata: { name: 'ops', namespace: 'team', labels: {} }, spec: { publicKey } } as unknown as KeyPair;
    const ctx = { client, progress: () => undefined } as unknown as ResourceContext;
    await assert.rejects(keyPairResource.converge(ctx, inputs, live, 'update', {}), stop);
    assert.equal(calls.length, 1);
    assert.equal(calls[0][0], 'ops');
    assert.deepEqual(calls[0][2], { namespace: 'team', owner: keyPairResource.owner({ name: 'ops', namespace: 'team' }) });
  });
});
