/**
 * The runner's operations through its command line in process (runner/cli.ts main → commands.ts), over the program
 * with one dynamic resource needing no cluster (fixtures/echo-program.ts): how a command line becomes an operation —
 * the program from --program, the config merged from Pulumi.<stack>.yaml, --config and --secret-config, the flags
 * handed on, the exit code and the hints naming the runner's own commands. The runner tests over the real resources
 * (test/runner) cover the same path against the emulator; these need no cluster, so the mutation run of the runner
 * (stryker.runner-unit.config.mjs) reaches it.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { lockPath } from '../../runner/lock';
import { BANNER } from '../../runner/operations';
import { StateStore } from '../../runner/state';
import { repoRoot } from '../../scripts/resource-docs';
import { runCli } from '../support/runner-cli';

const PROGRAM = join(repoRoot(), 'dist', 'test', 'engine', 'fixtures', 'echo-program.js');

describe('runner: operations through the command line, over a program with no cluster', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'runner-cli-ops-'));
    writeFileSync(join(dir, 'Pulumi.yaml'), 'name: echo-fixture\nruntime: nodejs\n');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** `harvester-iac-run <command> --cwd <dir> --program <echo program> <rest>`. */
  const cli = (command: string, ...rest: string[]) => runCli([command, '--cwd', dir, '--program', PROGRAM, ...rest]);
  const state = () => new StateStore(join(dir, '.harvester-run'), 'dev').load('echo-fixture');

  it('preview, up and destroy: the banner, the program from --program, each operation\'s lines, exit 0', async () => {
    const preview = await cli('preview');
    assert.equal(preview.code, 0, preview.stdout + preview.stderr);
    assert.ok(preview.stdout.startsWith(`${BANNER}\n\nPreviewing update (echo-fixture/dev):\n`), preview.stdout);
    assert.ok(preview.stdout.includes('\nResources:\n    + 1 to create\n'), preview.stdout);
    const up = await cli('up', '--yes');
    assert.equal(up.code, 0, up.stdout + up.stderr);
    assert.ok(up.stdout.includes('\nResources:\n    + 1 created\n'), up.stdout);
    const destroy = await cli('destroy', '--yes');
    assert.equal(destroy.code, 0, destroy.stdout + destroy.stderr);
    assert.ok(destroy.stdout.startsWith(`${BANNER}\n\nDestroying (echo-fixture/dev):\n`), destroy.stdout);
    assert.ok(destroy.stdout.includes('\nResources:\n    - 1 deleted\n'), destroy.stdout);
    assert.deepEqual(state().resources.filter((r) => r.type !== 'pulumi:pulumi:Stack'), []);
  });

  it('config: the stack file\'s values and secrets, --config over them as plain, --secret-config as secrets; the program is told which keys are secret', async () => {
    for (const args of [['echo-fixture:value', 'fromfile'], ['--secret', 'echo-fixture:kept', 'sealed'], ['--secret', 'echo-fixture:token', 'was-secret']]) {
      assert.equal((await runCli(['config', 'set', '--cwd', dir, ...args])).code, 0);
    }
    const up = await cli('up', '--yes', '--config', 'echo-fixture:report=yes', '--config', 'echo-fixture:token=now-plain', '--secret-config', 'echo-fixture:aaa=now-secret');
    assert.equal(up.code, 0, up.stdout + up.stderr);
    const line = up.stdout.split('\n').find((l) => l.startsWith('    seen '));
    const seen = JSON.parse(line!.slice('    seen '.length)) as { config: Record<string, string>; secretKeys: string[] };
    assert.deepEqual(seen.config, {
      'echo-fixture:aaa': 'now-secret',
      'echo-fixture:kept': 'sealed',
      'echo-fixture:report': 'yes',
      'echo-fixture:token': 'now-plain',
      'echo-fixture:value': 'fromfile',
    });
    assert.deepEqual(seen.secretKeys, ['echo-fixture:aaa', 'echo-fixture:kept'], 'sorted; a secret given again with --config is no longer one');
    assert.deepEqual(state().resources.filter((r) => r.type !== 'pulumi:pulumi:Stack').map((r) => r.outputs.value), ['fromfile']);
  });

  it('flags handed on: --expect-no-changes exits 1 on a change; --refresh reads drift back; --diff shows whole values', async () => {
    assert.equal((await cli('up', '--yes')).code, 0);
    const changed = await cli('preview', '--expect-no-changes', '--config', 'echo-fixture:value=two');
    assert.equal(changed.code, 1);
    assert.ok(changed.stdout.includes('error: --expect-no-changes: the preview has 1 change(s)\n'), changed.stdout);
    const long = 'x'.repeat(150);
    const diff = await cli('preview', '--diff', '--config', `echo-fixture:value=${long}`);
    assert.ok(diff.stdout.includes(`~ value: "one" => "${long}"\n`), diff.stdout);
    const cut = await cli('preview', '--config', `echo-fixture:value=${long}`);
    assert.equal(cut.stdout.includes(`~ value: "one" => "${long}"\n`), false, 'without --diff a long value is cut');
    // The host inherits this process's environment: ECHO_DRIFT stands for a change made behind the program's back.
    process.env.ECHO_DRIFT = 'moved';
    try {
      assert.equal((await cli('preview', '--expect-no-changes', '--parallel', '1')).code, 0, 'without --refresh the drift is not read');
      const refreshed = await cli('preview', '--expect-no-changes', '--refresh', '--parallel', '1');
      assert.equal(refreshed.code, 1, refreshed.stdout);
    } finally {
      delete process.env.ECHO_DRIFT;
    }
  });

  it('bad flag values are usage errors (exit 2) that name the flag, before any program starts', async () => {
    const parallel = await cli('preview', '--parallel', '0');
    assert.deepEqual([parallel.code, parallel.stderr], [2, 'error: --parallel 0: expected a whole number of at least 1\n']);
    const config = await cli('up', '--config', 'novalue');
    assert.deepEqual([config.code, config.stderr], [2, 'error: --config novalue: expected KEY=VALUE, e.g. --config harvester:context=prod\n']);
    const secret = await cli('up', '--secret-config', 'novalue');
    assert.deepEqual([secret.code, secret.stderr], [2, 'error: --secret-config novalue: expected KEY=VALUE, e.g. --secret-config harvester:context=prod\n']);
  });

  it('the hints name the runner\'s own commands with the flags that pick the stack: a missing config key, a lock left behind', async () => {
    const missing = await cli('up', '--yes', '--config', 'echo-fixture:need=absent');
    assert.equal(missing.code, 1);
    assert.ok(missing.stdout.includes(`\`npx harvester-iac-run config set --cwd ${dir} echo-fixture:absent <value>\``), missing.stdout);
    const stateDir = join(dir, '.harvester-run');
    mkdirSync(stateDir, { recursive: true });
    writeFileSync(lockPath(stateDir, 'dev'), JSON.stringify({ pid: 2 ** 31 - 2, host: hostname(), started: 'T', command: 'up' }));
    const locked = await cli('up', '--yes');
    assert.equal(locked.code, 1);
    assert.ok(locked.stderr.includes(`\`npx harvester-iac-run cancel --cwd ${dir}\` removes the lock`), locked.stderr);
  });
});
