import assert from 'node:assert/strict';
import { clearRegisteredSecrets, redact, REDACTED } from '../../../../provider/client/redact';
import { configureConnection, connectionFor, connectionOrigin, stackConnection } from '../../../../provider/core/connection';
import { ENGINE_ENV, OtherClusterError, UnreachableClusters, configSetCommand, onCluster } from '../../../../provider/core/unreachable';

/** Runs `work` with the named environment variables set (undefined: unset), restoring them after. */
function withEnv<T>(vars: Record<string, string | undefined>, work: () => T): T {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  apply(vars);
  try {
    return work();
  } finally {
    apply(saved);
  }
}

const CONTENT = 'apiVersion: v1\nkind: Config\nclusters:\n- name: harvester\n  cluster:\n    server: https://10.0.0.1:6443\n';

describe('the Harvester connection: where it comes from (connection.ts)', () => {
  afterEach(() => {
    configureConnection({});
    clearRegisteredSecrets();
  });

  it('treats kubeconfig content in stack config as a secret, but keeps a path readable for messages', () => {
    configureConnection({ kubeconfig: '/home/ops/clusters/harvester.yaml' });
    assert.equal(redact('cannot read /home/ops/clusters/harvester.yaml'), 'cannot read /home/ops/clusters/harvester.yaml');
    configureConnection({ kubeconfig: CONTENT });
    assert.equal(redact(`loaded ${CONTENT.trim()}`), `loaded ${REDACTED}`);
  });

  it('records empty strings as unset', () => {
    configureConnection({ kubeconfig: '', context: '' });
    assert.deepEqual(stackConnection(), { kubeconfig: undefined, context: undefined });
  });

  it('uses the stack config when a resource names no kubeconfig, its own context winning', () => {
    configureConnection({ kubeconfig: '/stack.yaml', context: 'stack-ctx' });
    assert.deepEqual(connectionFor(), { kubeconfig: '/stack.yaml', context: 'stack-ctx' });
    assert.deepEqual(connectionFor({ context: 'mine' }), { kubeconfig: '/stack.yaml', context: 'mine' });
  });

  it("uses a resource's own kubeconfig, with the stack's context only when it is the stack's kubeconfig", () => {
    configureConnection({ kubeconfig: '/stack.yaml', context: 'stack-ctx' });
    assert.deepEqual(connectionFor({ kubeconfig: '/other.yaml' }), { kubeconfig: '/other.yaml', context: undefined }, "the stack's context names a context of another file");
    assert.deepEqual(connectionFor({ kubeconfig: '/stack.yaml' }), { kubeconfig: '/stack.yaml', context: 'stack-ctx' });
    assert.deepEqual(connectionFor({ kubeconfig: '/stack.yaml', context: 'mine' }), { kubeconfig: '/stack.yaml', context: 'mine' });
    assert.deepEqual(connectionFor({ kubeconfig: '/other.yaml', context: 'mine' }), { kubeconfig: '/other.yaml', context: 'mine' });
  });

  it('names where the kubeconfig came from, in the order the connection follows', () => {
    withEnv({ KUBECONFIG: '/env/kubeconfig' }, () => {
      configureConnection({ kubeconfig: '/stack.yaml' });
      assert.equal(connectionOrigin({ kubeconfig: '/own.yaml' }), "the resource's kubeconfig input");
      assert.equal(connectionOrigin({ context: 'c' }), 'stack config harvester:kubeconfig');
      configureConnection({});
      assert.equal(connectionOrigin(), '$KUBECONFIG (/env/kubeconfig)');
    });
    withEnv({ KUBECONFIG: undefined }, () => {
      assert.equal(connectionOrigin(), '~/.kube/config (no stack config harvester:kubeconfig, no $KUBECONFIG)');
    });
  });
});

describe('an unreachable cluster, said once with the fix (unreachable.ts)', () => {
  const refused = new Error('connect ECONNREFUSED 10.0.0.1:6443');

  it('names the command of the engine in use', () => {
    withEnv({ [ENGINE_ENV]: 'local' }, () => {
      assert.equal(configSetCommand(), 'npx harvester-iac-run config set --secret harvester:kubeconfig < kubeconfig.yaml');
    });
    withEnv({ [ENGINE_ENV]: undefined }, () => {
      assert.equal(configSetCommand(), 'pulumi config set --secret harvester:kubeconfig < kubeconfig.yaml');
    });
  });

  it('explains the first resource of a cluster in full, then says only "not checked" for the same cluster', () => {
    withEnv({ [ENGINE_ENV]: undefined }, () => {
      const clusters = new UnreachableClusters();
      const where = { server: 'https://10.0.0.1:6443', origin: 'stack config harvester:kubeconfig' };
      assert.deepEqual(clusters.failure(refused, where), {
        property: '',
        reason:
          'cannot check the inputs against the Harvester cluster at https://10.0.0.1:6443 (kubeconfig from stack config harvester:kubeconfig): connect ECONNREFUSED 10.0.0.1:6443\n' +
          'Fix: check that the cluster is up and the credentials are current, then set them with `pulumi config set --secret harvester:kubeconfig < kubeconfig.yaml`.',
      });
      assert.deepEqual(clusters.failure(refused, where), {
        property: '',
        reason: 'not checked: the Harvester cluster at https://10.0.0.1:6443 is unreachable or refuses us (the first resource checked says why)',
      });
      const other = clusters.failure(refused, { server: 'https://10.0.0.2:6443', origin: 'stack config harvester:kubeconfig' });
      assert.match(other.reason, /^cannot check the inputs against the Harvester cluster at https:\/\/10\.0\.0\.2:6443 /, 'another server is explained too');
    });
  });

  it("names the resource's kubeconfig input as the fix when the kubeconfig is the resource's own", () => {
    const failure = new UnreachableClusters().failure(refused, { server: 'https://10.0.0.9:6443', origin: "the resource's kubeconfig input", input: 'kubeconfig' });
    assert.match(failure.reason, /\nFix: fix the resource's kubeconfig input\.$/);
  });

  it('says a kubeconfig that cannot be loaded is unusable, every time, with its own message', () => {
    const clusters = new UnreachableClusters();
    const bad = new Error('ENOENT: no such file or directory, open /nowhere.yaml');
    const expected = {
      property: '',
      reason: "cannot check the inputs against the Harvester cluster: the kubeconfig from $KUBECONFIG (/nowhere.yaml) cannot be used: ENOENT: no such file or directory, open /nowhere.yaml\nFix: fix the resource's kubeconfig input.",
    };
    assert.deepEqual(clusters.failure(bad, { origin: '$KUBECONFIG (/nowhere.yaml)', input: 'kubeconfig' }), expected);
    assert.deepEqual(clusters.failure(bad, { origin: '$KUBECONFIG (/nowhere.yaml)', input: 'kubeconfig' }), expected, 'not folded into "not checked"');
  });

  it('names the guest cluster input of a failure met on a guest cluster', async () => {
    await assert.rejects(
      onCluster('guestKubeconfig', async () => {
        throw new Error('Unauthorized');
      }),
      (err: unknown) => {
        assert.ok(err instanceof OtherClusterError);
        assert.equal(String(err), 'OtherClusterError: Unauthorized');
        assert.deepEqual(new UnreachableClusters().failure(err, { server: 'https://10.0.0.1:6443', origin: 'x' }), {
          property: '',
          reason: 'cannot check the inputs against the guest cluster (guestKubeconfig): Unauthorized',
        });
        return true;
      },
    );
  });
});
