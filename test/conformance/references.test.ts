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

  const run = (kind: OperationKind, which: string) => {
    const lines: string[] = [];
    return runOperation(kind, {
      program: join(repoRoot(), 'dist/test/conformance/programs/references.js'),
      pwd: repoRoot(),
      project: 'conformance',
      stack: which,
      stateDir,
      config: { 'harvester:kubeconfig': t.emulator.kubeconfig, 'conformance:case': which },
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

  it('image-pool: preview passes with the image not yet on the cluster; up downloads it and builds the pool from its id; destroy removes both, pool first', async () => {
    const preview = await run('preview', 'image-pool');
    assert.ok(preview.ok, `preview refused an image the program creates:\n${preview.text}`);
    assert.equal(preview.changes, 2);
    const up = await run('up', 'image-pool');
    assert.ok(up.ok, `up failed:\n${up.text}`);
    const image = (await client.images.get('conformance-image', 'default'))!;
    const volumes = (await client.persistentVolumeClaims.list({ namespace: 'default', labelSelector: 'harvester-iac.io/resource-name=conformance-from-image' })).items;
    assert.deepEqual(volumes.map((v) => (v.spec as { storageClassName?: string }).storageClassName), [image.status?.storageClassName], 'the boot disk is cloned from the image');
    const destroy = await run('destroy', 'image-pool');
    assert.ok(destroy.ok, destroy.text);
    assert.equal(await client.images.get('conformance-image', 'default'), undefined);
    assert.equal((await client.virtualMachines.list({ namespace: 'default', labelSelector: 'harvester-iac.io/resource-name=conformance-from-image' })).items.length, 0);
  });

  it('missing: a pool neither on the cluster nor declared is refused at preview, naming ipPool, with no write', async () => {
    const mark = t.emulator.journal.mark();
    const preview = await run('preview', 'missing');
    assert.equal(preview.ok, false);
    assert.match(preview.text, /ipPool: IPPool conformance-ghost-pool does not exist/);
    const writes = t.emulator.journal.entries({ since: mark }).filter((e) => ['create', 'update', 'patch', 'delete'].includes(e.verb ?? ''));
    assert.deepEqual(writes.map((e) => e.path), []);
  });
});
