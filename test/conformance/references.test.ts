/**
 * Contract case 3: a reference to an object the same program creates passes preview, whether the referrer's other
 * inputs are known or not, and up then creates both; a reference to an object that is neither on the cluster nor
 * declared by the program is refused at preview, naming the input. Driven by the local runner, which runs the
 * program on the real SDK (the SDK is what tells the provider that a value comes from the program).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { createMachinePoolProvider } from '../../provider/resources/machine-pool/handlers';
import { runOperation, type OperationKind } from '../../runner/operations';
import { repoRoot } from '../../scripts/resource-docs';
import { startTestEmulator, type TestEmulator } from '../support/emulator-harness';
import { ed25519Blob, keyLine } from '../support/keypair-rules';

/**
 * The kinds a machine pool references (program POOL_REFERENCES has the same keys): the object the program makes,
 * as the cluster shows it (undefined when absent), and the stack config the program needs for it.
 */
const POOL_REFERENCE_KINDS: { kind: string; made(client: HarvesterClient): Promise<unknown>; config?: Record<string, string> }[] = [
  { kind: 'image', made: (client) => client.images.get('conformance-image', 'default') },
  { kind: 'network', made: (client) => client.networks.get('conformance-net', 'default') },
  { kind: 'keyPair', made: (client) => client.keyPairs.get('conformance-key', 'default'), config: { 'conformance:publicKey': keyLine('ssh-ed25519', ed25519Blob(), 'refs') } },
];

describe('resource contract: references to objects of the same program (local runner, real SDK)', function () {
  this.timeout(180_000);
  let t: TestEmulator;
  let client: HarvesterClient;
  let stateDir: string;
  before(async () => {
    t = await startTestEmulator({ harvester: { delays: { vmiSchedule: 10, vmiBoot: 30, guestAgent: 30, imageImport: 20 } } });
    client = await HarvesterClient.connect({ kubeconfig: t.emulator.kubeconfig });
    const pools = createMachinePoolProvider({ connect: () => HarvesterClient.connect({ kubeconfig: t.emulator.kubeconfig }) });
    const checked = await pools.check({}, { name: 'conformance-backends', disks: [{ image: 'default/ubuntu-22.04-server-cloudimg', size: '10Gi' }], networks: [{ network: 'default/vm-net' }] });
    await pools.create(checked.inputs!);
  });
  beforeEach(() => {
    stateDir = mkdtempSync(join(tmpdir(), 'harvester-conformance-state-'));
  });
  afterEach(() => rmSync(stateDir, { recursive: true, force: true }));
  after(async () => t?.stop());

  const run = (kind: OperationKind, which: string, extraConfig: Record<string, string> = {}) => {
    const lines: string[] = [];
    return runOperation(kind, {
      program: join(repoRoot(), 'dist/test/conformance/programs/references.js'),
      pwd: repoRoot(),
      project: 'conformance',
      stack: which,
      stateDir,
      config: { 'harvester:kubeconfig': t.emulator.kubeconfig, 'conformance:case': which, ...extraConfig },
      secretConfigKeys: ['harvester:kubeconfig'],
      sink: (line) => lines.push(line),
    }).then((result) => ({ ...result, text: lines.join('\n') }));
  };

  for (const which of ['same-run-known', 'same-run-unknown']) {
    it(`${which}: preview passes with the pool not yet on the cluster; up creates both; destroy removes both`, async () => {
      assert.equal(await client.ipPools.get('conformance-tiny'), undefined);
      const preview = await run('preview', which);
      assert.ok(preview.ok, `preview refused a pool the program creates:\n${preview.text}`);
      assert.equal(preview.changes, 2);
      const up = await run('up', which);
      assert.ok(up.ok, `up failed:\n${up.text}`);
      assert.equal((await client.loadBalancers.get('conformance-lb', 'default'))?.spec?.ipPool, 'conformance-tiny');
      const destroy = await run('destroy', which);
      assert.ok(destroy.ok, destroy.text);
      assert.equal(await client.ipPools.get('conformance-tiny'), undefined);
      assert.equal(await client.loadBalancers.get('conformance-lb', 'default'), undefined);
    });
  }

  it('missing: a pool neither on the cluster nor declared is refused at preview, naming ipPool, with no write', async () => {
    const mark = t.emulator.journal.mark();
    const preview = await run('preview', 'missing');
    assert.equal(preview.ok, false);
    assert.match(preview.text, /ipPool: IPPool conformance-ghost-pool does not exist/);
    const writes = t.emulator.journal.entries({ since: mark }).filter((e) => ['create', 'update', 'patch', 'delete'].includes(e.verb ?? ''));
    assert.deepEqual(writes.map((e) => e.path), []);
  });

  for (const which of ['lb-no-pool-known', 'lb-no-pool-unknown']) {
    it(`${which}: a load balancer no IP pool would serve (none on the cluster, none in the program) is refused at preview on ipPool, with no write`, async () => {
      assert.deepEqual((await client.ipPools.list({})).items, []);
      const mark = t.emulator.journal.mark();
      const preview = await run('preview', which);
      assert.equal(preview.ok, false, preview.text);
      assert.match(preview.text, /ipPool: no IP pool would serve this load balancer, so up would wait out timeouts\.create/);
      const writes = t.emulator.journal.entries({ since: mark }).filter((e) => ['create', 'update', 'patch', 'delete'].includes(e.verb ?? ''));
      assert.deepEqual(writes.map((e) => e.path), []);
    });
  }

  it('lb-pool-in-program: a load balancer naming no pool passes preview when the program declares an IP pool; up serves it from that pool', async () => {
    assert.equal(await client.ipPools.get('conformance-chosen'), undefined);
    const preview = await run('preview', 'lb-pool-in-program');
    assert.ok(preview.ok, `preview refused a load balancer a pool of the program serves:\n${preview.text}`);
    const up = await run('up', 'lb-pool-in-program');
    assert.ok(up.ok, `up failed:\n${up.text}`);
    assert.equal((await client.loadBalancers.get('chosen-lb', 'default'))?.status?.allocatedAddress?.ipPool, 'conformance-chosen');
    const destroy = await run('destroy', 'lb-pool-in-program');
    assert.ok(destroy.ok, destroy.text);
    assert.equal(await client.ipPools.get('conformance-chosen'), undefined);
  });

  for (const { kind, made, config } of POOL_REFERENCE_KINDS) {
    for (const how of ['known', 'unknown']) {
      it(`machine pool, ${kind} made in the same run (reference ${how} at preview): preview passes; up creates both; destroy removes both`, async () => {
        const which = `pool-${kind}-${how}`;
        assert.equal(await made(client), undefined);
        const preview = await run('preview', which, config);
        assert.ok(preview.ok, `preview refused a ${kind} the program creates:\n${preview.text}`);
        assert.equal(preview.changes, 2);
        const up = await run('up', which, config);
        assert.ok(up.ok, `up failed:\n${up.text}`);
        assert.ok(await made(client));
        assert.equal((await client.virtualMachines.list({ namespace: 'default' })).items.filter((vm) => vm.metadata.name?.startsWith('conformance-refs-')).length, 1);
        const destroy = await run('destroy', which, config);
        assert.ok(destroy.ok, destroy.text);
        assert.equal(await made(client), undefined);
      });
    }
  }

  it('machine pool: a key pair neither on the cluster nor declared is refused at preview, naming sshKeys[0], with no write', async () => {
    const mark = t.emulator.journal.mark();
    const preview = await run('preview', 'pool-missing');
    assert.equal(preview.ok, false);
    assert.match(preview.text, /sshKeys\[0\]: KeyPair default\/conformance-ghost-key does not exist/);
    const writes = t.emulator.journal.entries({ since: mark }).filter((e) => ['create', 'update', 'patch', 'delete'].includes(e.verb ?? ''));
    assert.deepEqual(writes.map((e) => e.path), []);
  });
});
