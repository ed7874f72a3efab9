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
import { singleObject } from '../../../../provider/core/reconciler/single-object';
import type { Timeouts } from '../../../../provider/core/timeouts';
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

  it('says which timeout to raise when the old object of a remake outlasts it', async () => {
    // The old key pair stays, held by a finalizer; the clock fires the wait's deadline (two minutes) and no other timer.
    const stuck = { kind: 'KeyPair', metadata: { name: 'ops', namespace: 'team', deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['example.com/hold'] } } as unknown as KeyPair;
    const deleted: unknown[] = [];
    const api = {
      kind: { kind: 'KeyPair', namespaced: true },
      describe: (name: string, namespace: string) => `KeyPair ${namespace}/${name}`,
      namespaceFor: (namespace?: string) => namespace ?? 'default',
      delete: async (...args: unknown[]) => void deleted.push(args),
      list: async () => ({ items: [stuck], resourceVersion: '1' }),
      watch: () => ({ stop: () => undefined }),
    };
    const clock = {
      now: () => new Date(0),
      setTimeout: (fn: () => void, ms: number) => (ms === 120_000 ? setImmediate(fn) : undefined),
      clearTimeout: (timer: unknown) => (timer ? clearImmediate(timer as NodeJS.Immediate) : undefined),
    };
    const owner = keyPairResource.owner({ name: 'ops', namespace: 'team' });
    type Inputs = KeyPairInputs & { timeouts: Timeouts };
    const parts = singleObject<Inputs, KeyPairOutputs, KeyPair>(
      {
        api: () => api as never,
        owner: () => owner,
        desired: () => ({ metadata: { name: 'ops', namespace: 'team' } }) as KeyPair,
        patch: () => undefined,
        remake: () => true,
        ready: () => ({ done: true, description: 'validated' }),
        readyWhat: () => 'to be validated',
      },
      () => ({ create: '1m', update: '2m', delete: '1m' }),
    );
    const inputs = { name: 'ops', namespace: 'team', timeouts: { create: '1m', update: '2m', delete: '1m' } } as unknown as Inputs;
    const ctx = { client: {}, progress: () => undefined, clock } as unknown as ResourceContext;
    await assert.rejects(parts.converge(ctx, inputs, stuck, 'update', {}), (err: Error) => {
      assert.match(err.message, /^Timed out after 2m0s waiting for KeyPair team\/ops to be deleted\./);
      assert.match(err.message, /If it is still progressing, raise `timeouts\.update` \(now 2m0s\)/);
      return true;
    });
    assert.deepEqual(deleted, [['ops', { namespace: 'team', owner }]]);
  });
});
