/**
 * What the runner does as the engine, pinned against the emulator (issue 32), each through the command line in
 * this process:
 * - a resource that asks to be deleted before its replacement (a key pair whose public key changes): the old one
 *   goes first, the replacement is on the cluster with the new value, and the next preview plans nothing;
 *   `preview --expect-no-changes` exits 1 on that one change and 0 once there is none; --diff shows it whole;
 * - a create that fails part-way (an image whose download breaks, no retries): the image is in the state with
 *   what exists, `refresh` reads it, `destroy` removes it from the cluster;
 * - a program that throws during `up`: what it did not get to register stays, on the cluster and in the state;
 * - a refresh that finds only outputs moved on (an IP pool's allocation after its load balancer was made) is
 *   labelled apart from drift of the inputs, and is no change to --expect-no-changes.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { repoRoot } from '../../scripts/resource-docs';
import { startTestEmulator, type TestEmulator } from '../support/emulator-harness';
import { runCli, runCliExpect, type CliRun } from '../support/runner-cli';

const KEY_A = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIO+RWp2+pdRm0dxSIEdI4DNmBxqPF7rBRC+oKsnpXnMZ runner-test';
const KEY_B = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILGQ37HVulihRr47BsA0u6WrpBxFt3FYIkONoyL4fSEH runner-test-second-key-with-a-comment-long-enough-to-be-cut';

interface Recorded {
  resources: { name: string; id: string; outputs: Record<string, unknown> }[];
}

describe('local runner: engine behaviour pinned against the emulator', function () {
  this.timeout(180_000);
  let t: TestEmulator;
  let client: HarvesterClient;
  const dirs: string[] = [];

  before(async () => {
    t = await startTestEmulator({ harvester: { delays: { vmiSchedule: 10, vmiBoot: 30, guestAgent: 30, imageImport: 20, imageRetry: 20 } } });
    client = await HarvesterClient.connect({ kubeconfig: t.emulator.kubeconfig });
  });
  after(async () => {
    await t?.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  /** A program folder running `fixture`, connected to the emulator through Pulumi.dev.yaml. */
  async function folder(fixture: string): Promise<{ cli: (...argv: string[]) => Promise<CliRun>; state: () => Recorded }> {
    const dir = mkdtempSync(join(tmpdir(), 'harvester-run-pins-'));
    dirs.push(dir);
    // harvester-iac linked from this clone, as `npm install <clone>` links it: the host resolves harvester-iac/provider here.
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(repoRoot(), join(dir, 'node_modules', 'harvester-iac'), 'dir');
    writeFileSync(join(dir, 'Pulumi.yaml'), `name: runner-fixture\nruntime: nodejs\nmain: ${join(repoRoot(), 'dist', 'test', 'runner', 'fixtures', `${fixture}.js`)}\n`);
    await runCliExpect(0, ['config', 'set', '--secret', 'harvester:kubeconfig', '--cwd', dir], { stdin: t.emulator.kubeconfig });
    return {
      cli: (...argv) => runCli([...argv, '--cwd', dir]),
      state: () => JSON.parse(readFileSync(join(dir, '.harvester-run', 'dev.json'), 'utf8')) as Recorded,
    };
  }
  const expectCode = (r: CliRun, code: number) => assert.equal(r.code, code, `exit ${r.code}, not ${code}:\n${r.stdout}\n${r.stderr}`);

  it('deletes before replacing when asked: the replacement is on the cluster with the new value; then nothing is planned', async () => {
    const f = await folder('key-pair');
    expectCode(await f.cli('config', 'set', 'publicKey', KEY_A), 0);
    expectCode(await f.cli('up', '--yes'), 0);
    const before = await client.keyPairs.get('pinned-key', 'default');
    assert.equal(before?.spec?.publicKey, KEY_A);

    expectCode(await f.cli('config', 'set', 'publicKey', KEY_B), 0);
    const gate = await f.cli('preview', '--expect-no-changes');
    expectCode(gate, 1);
    assert.match(gate.stdout, /^ {4}\+- 1 to replace$/m);
    assert.match(gate.stdout, /^error: --expect-no-changes: the preview has 1 change\(s\)$/m);
    assert.match(gate.stdout, /~ publicKey: "ssh-ed25519 \S+ runner-test" => "ssh-ed25519 \S+ runner-test-[a-z-]+… \(forces replacement\)$/m, 'the summary view cuts the long key');
    assert.equal(gate.stdout.includes('long-enough-to-be-cut'), false);
    const diff = await f.cli('preview', '--diff');
    expectCode(diff, 0);
    assert.ok(diff.stdout.includes(`~ publicKey: "${KEY_A}" => "${KEY_B}" (forces replacement)`), `--diff shows both keys whole:\n${diff.stdout}`);

    const up = await f.cli('up', '--yes');
    expectCode(up, 0);
    const lines = up.stdout.split('\n');
    const deleted = lines.findIndex((l) => /pinned-key +deleted original/.test(l));
    const created = lines.findIndex((l) => /pinned-key +created replacement/.test(l));
    assert.ok(deleted >= 0 && created > deleted, `the original is deleted before the replacement is made:\n${up.stdout}`);
    assert.match(up.stdout, /^ {4}\+- 1 replaced$/m);
    const after = await client.keyPairs.get('pinned-key', 'default');
    assert.equal(after?.spec?.publicKey, KEY_B);
    assert.notEqual(after?.metadata?.uid, before?.metadata?.uid, 'a new object');
    assert.equal(f.state().resources.find((r) => r.name === 'pinned-key')?.outputs.publicKey, KEY_B);

    const clean = await f.cli('preview', '--expect-no-changes');
    expectCode(clean, 0);
    assert.match(clean.stdout, /^ {4}1 unchanged$/m);
    expectCode(await f.cli('destroy', '--yes'), 0);
  });

  it('records a create that failed part-way: refresh reads it, destroy removes it from the cluster', async () => {
    const f = await folder('failing-image');
    const up = await f.cli('up', '--yes');
    expectCode(up, 1);
    assert.match(up.stdout, /^ {2}harvester:HarvesterImage \(broken-download\):$/m);
    assert.match(up.stdout, /^ {4}1 failed$/m);
    const recorded = f.state().resources.find((r) => r.name === 'broken-download');
    assert.ok(recorded, `the partly made image is in the state:\n${JSON.stringify(f.state())}`);
    assert.equal(recorded.id, 'default/broken-download');
    assert.ok(await client.images.get('broken-download', 'default'), 'and on the cluster');

    const refresh = await f.cli('refresh', '--yes');
    expectCode(refresh, 0);
    assert.match(refresh.stdout, /^ {4}(1 unchanged|~ 1 refreshed|~ 1 outputs refreshed)$/m, refresh.stdout);
    assert.ok(f.state().resources.some((r) => r.name === 'broken-download'), 'refresh kept it');

    const destroy = await f.cli('destroy', '--yes');
    expectCode(destroy, 0);
    assert.match(destroy.stdout, /^ {4}- 1 deleted$/m);
    assert.equal(await client.images.get('broken-download', 'default'), undefined, 'nothing left on the cluster');
    assert.deepEqual(f.state().resources, []);
  });

  it('a program that throws during up leaves what it did not register alone, on the cluster and in the state', async () => {
    const f = await folder('throws');
    expectCode(await f.cli('up', '--yes'), 0);
    // Two independent resources: the state lists them in the order their creates finished, as Pulumi's does.
    const names = () => f.state().resources.map((r) => r.name).sort();
    assert.deepEqual(names(), ['kept-first', 'kept-second']);

    const failed = await f.cli('up', '--yes', '--config', 'runner-fixture:second=no', '--config', 'runner-fixture:throw=yes');
    expectCode(failed, 1);
    assert.match(failed.stdout, /the program has a bug: this line throws/);
    assert.doesNotMatch(failed.stdout, /kept-second +(deleting|deleted)/);
    assert.deepEqual(names(), ['kept-first', 'kept-second'], 'the state keeps kept-second');
    assert.ok(await client.keyPairs.get('kept-second', 'default'), 'the cluster keeps kept-second');

    const fixed = await f.cli('up', '--yes', '--config', 'runner-fixture:second=no');
    expectCode(fixed, 0);
    assert.match(fixed.stdout, /^ {4}- 1 deleted$/m, 'once the program runs through, the removed resource goes');
    assert.equal(await client.keyPairs.get('kept-second', 'default'), undefined);
    expectCode(await f.cli('destroy', '--yes'), 0);
  });

  it('labels a refresh that moved only outputs apart from drift; only drift is a change', async () => {
    const f = await folder('pool-lb');
    expectCode(await f.cli('up', '--yes'), 0);
    const outputsOnly = await f.cli('refresh', '--yes', '--expect-no-changes', '--parallel', '1');
    expectCode(outputsOnly, 0);
    assert.match(outputsOnly.stdout, /^ {2}~ {2}harvester:HarvesterIPPool +runner-pool +outputs refreshed \(no drift\)$/m, outputsOnly.stdout);
    assert.match(outputsOnly.stdout, /^ {8}\+ allocated\.172\.16\.100\.230: "default\/runner-lb"$/m);
    assert.doesNotMatch(outputsOnly.stdout, /the cluster differs/);
    assert.match(outputsOnly.stdout, /^ {4}~ 1 outputs refreshed$/m);

    await client.ipPools.mergePatch('runner-pool', { spec: { description: 'edited by hand' } });
    const drift = await f.cli('refresh', '--yes', '--expect-no-changes');
    expectCode(drift, 1);
    assert.match(drift.stdout, /^ {2}~ {2}harvester:HarvesterIPPool +runner-pool +refreshed \(the cluster differs\)$/m);
    assert.match(drift.stdout, /~ description: "runner refresh test" => "edited by hand"/);
    assert.match(drift.stdout, /^error: --expect-no-changes: the refresh made 1 change\(s\)$/m);
    expectCode(await f.cli('destroy', '--yes'), 0);
  });
});
