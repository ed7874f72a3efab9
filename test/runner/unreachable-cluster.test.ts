/**
 * A stack whose cluster cannot be reached says so once: the first resource checked gives the server, where the
 * kubeconfig came from and the fix with the runner's own command (the runner tells the hosts it starts which engine
 * it is); every other resource says only that it was not checked, and none is called "invalid inputs"
 * (docs/design/resource-reconciler.md). Nothing listens on 127.0.0.1:1, so every connection is refused at once.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../../scripts/resource-docs';
import { checkFailureMessage } from '../../runner/deployment';
import { runCli } from '../support/runner-cli';

const UNREACHABLE_KUBECONFIG = `apiVersion: v1
kind: Config
clusters:
- name: gone
  cluster:
    server: https://127.0.0.1:1
    insecure-skip-tls-verify: true
users:
- name: admin
  user:
    token: not-a-real-token
contexts:
- name: gone
  context: { cluster: gone, user: admin }
current-context: gone
`;

describe('local runner: a cluster that cannot be reached', function () {
  this.timeout(120_000);
  let dir: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'harvester-run-unreachable-'));
    writeFileSync(join(dir, 'kubeconfig.yaml'), UNREACHABLE_KUBECONFIG);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('preview: one full diagnostic naming the runner command, "not checked" under the others, no "invalid inputs", exit 1', async () => {
    const run = await runCli([
      'preview', '--cwd', repoRoot(), '--program', 'dist/test/runner/fixtures/three-pools.js', '--project', 'three-pools',
      '--state', join(dir, 'state'), '--secret-config', `harvester:kubeconfig=${join(dir, 'kubeconfig.yaml')}`,
    ]);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    const out = run.stdout;
    const full = out.split('cannot check the inputs against the Harvester cluster at https://127.0.0.1:1').length - 1;
    assert.equal(full, 1, `the cause is explained once:\n${out}`);
    assert.match(out, /Fix: check that the cluster is up and the credentials are current, then set them with `npx harvester-iac-run config set --secret harvester:kubeconfig < kubeconfig\.yaml`/);
    assert.equal(out.split('not checked: the Harvester cluster at https://127.0.0.1:1 is unreachable').length - 1, 2, out);
    assert.doesNotMatch(out, /invalid inputs/);
    assert.doesNotMatch(out, /pulumi config set/);
    for (const pool of ['tiny-one', 'tiny-two', 'tiny-three']) assert.match(out, new RegExp(`^  harvester:HarvesterMachinePool \\(${pool}\\):$`, 'm'));
    assert.doesNotMatch(out, /not-a-real-token/);
  });

  it('a failure that names no field is not called invalid inputs; failures of fields are, one line each', () => {
    assert.equal(checkFailureMessage([{ property: '', reason: 'not checked: x' }]), 'not checked: x');
    assert.equal(checkFailureMessage([{ property: 'url', reason: 'bad' }, { property: 'name', reason: 'name is too long' }]), 'invalid inputs:\n  - url: bad\n  - name is too long');
    assert.equal(checkFailureMessage([{ property: 'url', reason: 'bad' }, { property: '', reason: 'cannot check' }]), 'cannot check\ninvalid inputs:\n  - url: bad');
  });
});
