/**
 * The local runner reports a failed resource as the Pulumi CLI does: one diagnostic under that resource (no
 * "Running program … failed with an unhandled exception", no JavaScript stack), the program's independent
 * resources still created, the summary counting the failure as failed, and exit code 1. Run through the
 * package's bin (`harvester-iac-run`, dist/runner/cli.js) against the emulator, where the API server fails
 * every VirtualMachine create in one namespace (a webhook outage there).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { repoRoot } from '../../scripts/resource-docs';
import { startTestEmulator, type TestEmulator } from '../support/emulator-harness';
import { runCli } from '../support/runner-cli';

const WEBHOOK_OUTAGE = 'failed calling webhook "validator.harvesterhci.io": context deadline exceeded';

describe('local runner: a resource that fails', function () {
  this.timeout(120_000);
  let t: TestEmulator;
  let state: string;
  const args = () => ['--cwd', repoRoot(), '--program', 'dist/test/runner/fixtures/three-pools.js', '--project', 'three-pools', '--state', state, '--secret-config', `harvester:kubeconfig=${t.emulator.kubeconfig}`];

  before(async () => {
    t = await startTestEmulator({
      harvester: { delays: { vmiSchedule: 10, vmiBoot: 30, guestAgent: 30, imageImport: 20 } },
      faults: [{ name: 'webhook-outage', match: { resource: 'virtualmachines', verb: 'create', namespace: 'harvester-public' }, action: { type: 'error', code: 500, message: WEBHOOK_OUTAGE } }],
    });
    state = mkdtempSync(join(tmpdir(), 'harvester-run-failure-'));
  });
  after(async () => {
    await t?.stop();
    if (state) rmSync(state, { recursive: true, force: true });
  });

  // One test for the up and all that is asserted of it: the runner runs in this test (not in a hook), so a
  // mutation run that picks the tests covering a runner mutant runs the up and these assertions together.
  it('up: the failure once, under the failed resource, no program stack; the independent pools made; progress under each; no user data; exit 1', async () => {
    const run = await runCli(['up', ...args()]);
    const lines = run.stdout.split('\n');
    const heading = lines.indexOf('  harvester:HarvesterMachinePool (tiny-two):');
    assert.ok(heading > lines.indexOf('Diagnostics:') && lines.indexOf('Diagnostics:') >= 0, run.stdout);
    assert.match(lines[heading + 1], /^ {4}error: .*VirtualMachine harvester-public\/tiny-two-0/);
    assert.equal(run.stdout.split(WEBHOOK_OUTAGE).length - 1, 1, `the message appears once:\n${run.stdout}`);
    assert.doesNotMatch(run.stdout + run.stderr, /unhandled exception|Promise \{|^\s+at /m);
    assert.match(run.stdout, /tiny-two +\*\*creating failed\*\*/);

    assert.match(run.stdout, /^ {4}\+ 2 created$/m);
    assert.match(run.stdout, /^ {4}1 failed$/m);
    assert.equal(run.code, 1, run.stdout);
    const client = await HarvesterClient.connect({ kubeconfig: t.emulator.kubeconfig });
    assert.ok(await client.virtualMachines.get('tiny-one-0', 'default'), 'tiny-one was created');
    assert.ok(await client.virtualMachines.get('tiny-three-0', 'kube-system'), 'tiny-three was created');
    assert.equal(await client.virtualMachines.get('tiny-two-0', 'harvester-public'), undefined);
    const recorded = JSON.parse(readFileSync(join(state, 'dev.json'), 'utf8')) as { resources: { name: string }[] };
    assert.deepEqual(recorded.resources.map((r) => r.name).sort().filter((n) => n !== 'tiny-two'), ['tiny-one', 'tiny-three']);

    assert.match(run.stdout, /^ {2}\+ {2}harvester:HarvesterMachinePool +tiny-one +creating\.\.\. \d\/1 VMs ready/m, run.stdout);
    assert.doesNotMatch(run.stdout, /^ {4}HarvesterMachinePool /m, 'every progress line found its resource');
    assert.equal((run.stdout + run.stderr).includes('s3cr3t-three-pools'), false, 'never the user data');
  });

  it('destroy then leaves nothing of any pool on the cluster, the failed one included', async () => {
    const destroy = await runCli(['destroy', ...args()]);
    assert.equal(destroy.code, 0, destroy.stdout + destroy.stderr);
    const left = await t.kubectlOk(['get', 'virtualmachines,secrets,persistentvolumeclaims', '-A', '-l', 'app.kubernetes.io/managed-by=harvester-iac', '-o', 'name']);
    assert.equal(left.trim(), '', `left on the cluster after destroy:\n${left}`);
    const cloudInit = await t.kubectl(['get', 'secret', 'tiny-two-0-cloudinit', '-n', 'harvester-public', '-o', 'name']);
    assert.notEqual(cloudInit.code, 0, `the failed pool's cloud-init Secret (its user data) is gone: ${cloudInit.stdout}`);
  });
});
