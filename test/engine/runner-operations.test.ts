/**
 * The runner's in-process engine entry point (runner/operations.ts runOperation) over a program with one dynamic
 * resource needing no cluster (fixtures/echo-program.ts): what each operation returns (ok, changes, counts,
 * outputs, errors) and prints (title, provider lines, summary, errors), in Pulumi's order. The program and the
 * dynamic-provider host are real processes, so each run costs their start only; every run is inside its `it`
 * (a mutation run credits what a hook runs to one test).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runOperation, type OperationKind, type OperationOptions, type OperationResult } from '../../runner/operations';
import { StateStore } from '../../runner/state';
import { repoRoot } from '../../scripts/resource-docs';

const PROGRAM = join(repoRoot(), 'dist', 'test', 'engine', 'fixtures', 'echo-program.js');

describe('runner: operations over a program with no cluster', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'runner-ops-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** One operation with this stack config (keys of project echo-fixture); the lines it printed. */
  async function run(kind: OperationKind, config: Record<string, string> = {}, options: OperationOptions = {}, signal?: AbortSignal, hostEnv?: NodeJS.ProcessEnv): Promise<OperationResult & { lines: string[] }> {
    const lines: string[] = [];
    const qualified = Object.fromEntries(Object.entries(config).map(([k, v]) => [`echo-fixture:${k}`, v]));
    const stack = { program: PROGRAM, pwd: repoRoot(), project: 'echo-fixture', stack: 'dev', stateDir: dir, config: qualified, secretConfigKeys: [], sink: (l: string) => lines.push(l), signal, hostEnv };
    const result = await runOperation(kind, stack, options);
    return { ...result, lines };
  }
  const resources = () => new StateStore(dir, 'dev').load('echo-fixture').resources.filter((r) => r.type !== 'pulumi:pulumi:Stack');

  it('preview plans the create and writes nothing; up makes it with its output; the next preview plans nothing', async () => {
    const preview = await run('preview');
    assert.equal(preview.lines[0], 'Previewing update (echo-fixture/dev):');
    assert.deepEqual([preview.ok, preview.changes, preview.errors], [true, 1, []]);
    assert.equal(preview.counts.create, 1);
    assert.equal(existsSync(join(dir, 'dev.json')) && resources().length > 0, false, 'a preview writes no resource to the state');
    const up = await run('up');
    assert.equal(up.lines[0], 'Updating (echo-fixture/dev):');
    assert.deepEqual([up.ok, up.changes, up.counts.create, up.outputs], [true, 1, 1, { echoed: 'one' }]);
    assert.ok(up.lines.includes('    echoed: "one"'), up.lines.join('\n'));
    assert.deepEqual(resources().map((r) => r.id), ['echo-one']);
    const again = await run('preview', {}, { expectNoChanges: true });
    assert.deepEqual([again.ok, again.changes, again.errors], [true, 0, []]);
  });

  it('ends with a blank line, the outputs and the summary: planned by a preview, done by an up; the host is told its engine is this runner', async () => {
    const preview = await run('preview');
    assert.deepEqual(preview.lines.slice(-4), ['', 'Resources:', '    + 1 to create', ''], preview.lines.join('\n'));
    const up = await run('up');
    assert.deepEqual(up.lines.slice(-7), ['', 'Outputs:', '    echoed: "one"', '', 'Resources:', '    + 1 created', ''], up.lines.join('\n'));
    assert.deepEqual(resources().map((r) => r.outputs.engine), ['local'], 'HARVESTER_IAC_ENGINE=local in the host (core/unreachable.ts names the runner\'s commands then)');
  });

  it('without --refresh nothing is read back: a preview and an up do not see drift in the cluster', async () => {
    await run('up');
    const drifted = { ECHO_DRIFT: 'moved' };
    const preview = await run('preview', {}, {}, undefined, drifted);
    assert.deepEqual([preview.ok, preview.changes, preview.counts], [true, 0, { same: 1 }]);
    const up = await run('up', {}, {}, undefined, drifted);
    assert.deepEqual([up.ok, up.changes, up.counts], [true, 0, { same: 1 }]);
    assert.deepEqual(resources().map((r) => r.outputs.value), ['one'], 'the state keeps what the last up made');
  });

  it('a run leaves no process and no server behind: the host, the program and the monitor are all stopped', async () => {
    const watched = () => process.getActiveResourcesInfo().filter((r) => r === 'ProcessWrap' || r === 'TCPServerWrap').length;
    // A process handle is closed a turn of the event loop after its exit event: a stopped one is gone within a second.
    const settled = async (count: number) => {
      for (let turn = 0; turn < 100 && watched() !== count; turn++) await new Promise((resolve) => setTimeout(resolve, 10));
      return watched();
    };
    const before = watched();
    for (const kind of ['up', 'preview', 'refresh', 'destroy'] as const) {
      const result = await run(kind);
      assert.equal(result.ok, true, result.errors.join('\n'));
      assert.equal(await settled(before), before, `after ${kind}: ${process.getActiveResourcesInfo().join(', ')}`);
    }
  });

  it('--expect-no-changes fails a preview that plans one change, and an up that makes one, saying how many', async () => {
    await run('up');
    const preview = await run('preview', { value: 'two' }, { expectNoChanges: true });
    assert.deepEqual([preview.ok, preview.changes, preview.errors], [false, 1, ['--expect-no-changes: the preview has 1 change(s)']]);
    assert.equal(preview.lines.at(-1), 'error: --expect-no-changes: the preview has 1 change(s)');
    const up = await run('up', { value: 'two' }, { expectNoChanges: true });
    assert.deepEqual([up.ok, up.changes, up.counts.update, up.errors], [false, 1, 1, ['--expect-no-changes: the up made 1 change(s)']]);
    assert.deepEqual(resources().map((r) => r.outputs.value), ['two'], 'the up still made its change');
  });

  it('refresh reads every resource back, unchanged; destroy removes it and says what it did', async () => {
    await run('up');
    const refresh = await run('refresh');
    assert.equal(refresh.lines[0], 'Refreshing (echo-fixture/dev):');
    assert.deepEqual([refresh.ok, refresh.changes, refresh.counts], [true, 0, { same: 1 }], 'read back as it was: unchanged');
    assert.deepEqual(refresh.lines.slice(-3), ['Resources:', '    1 unchanged', '']);
    const destroy = await run('destroy');
    assert.equal(destroy.lines[0], 'Destroying (echo-fixture/dev):');
    assert.deepEqual([destroy.ok, destroy.changes, destroy.counts.delete], [true, 1, 1]);
    assert.deepEqual(resources(), []);
  });

  it('drift: preview --refresh reads it without writing it; refresh records it and counts it as a change', async () => {
    await run('up');
    const drifted = { ECHO_DRIFT: 'moved' };
    const preview = await run('preview', {}, { refresh: true }, undefined, drifted);
    assert.deepEqual([preview.ok, preview.changes], [true, 1], 'the program\'s value differs from the one read back');
    assert.deepEqual(resources().map((r) => r.outputs.value), ['one'], 'a preview writes nothing, not even its refresh');
    const refresh = await run('refresh', {}, {}, undefined, drifted);
    assert.deepEqual([refresh.ok, refresh.changes, refresh.counts], [true, 1, { refresh: 1 }]);
    assert.deepEqual(resources().map((r) => r.outputs.value), ['moved']);
  });

  it('up --refresh writes what it read, then sets the value back', async () => {
    await run('up');
    const up = await run('up', {}, { refresh: true }, undefined, { ECHO_DRIFT: 'moved' });
    assert.deepEqual([up.ok, up.changes, up.counts.update], [true, 1, 1]);
    assert.deepEqual(resources().map((r) => r.outputs.value), ['one']);
  });

  it('a failed create: the resource named with its message, in the result and in the diagnostics; a partial one is recorded', async () => {
    const failed = await run('up', { fail: 'quota' });
    assert.equal(failed.ok, false);
    assert.ok(failed.errors.some((e) => /thing: .*create refused: quota/.test(e)), failed.errors.join('\n'));
    assert.ok(failed.lines.some((l) => l.includes('create refused: quota')), failed.lines.join('\n'));
    assert.deepEqual(resources(), [], 'a failed create with nothing made records nothing');
    const partial = await run('up', { partial: 'yes' });
    assert.equal(partial.ok, false);
    assert.deepEqual(resources().map((r) => r.id), ['half'], 'a partial failure is in the state, to refresh and destroy');
  });

  it('a program that exits non-zero with no failed resource: "the program exited with code N"', async () => {
    const result = await run('up', { none: 'yes', exit: '3' });
    assert.equal(result.ok, false);
    assert.deepEqual(result.errors, ['the program exited with code 3']);
    assert.equal(result.lines.at(-1), 'error: the program exited with code 3');
  });

  it('what the provider prints while it works is shown indented under the run', async () => {
    const result = await run('up', { say: 'provider says hello' });
    assert.equal(result.ok, true);
    assert.ok(result.lines.some((l) => /^ {4,}.*provider says hello/.test(l)), result.lines.join('\n'));
  });

  it('what the program itself prints is shown under the run, indented by four spaces', async () => {
    const result = await run('up', { shout: 'the program says hello' });
    assert.equal(result.ok, true);
    assert.ok(result.lines.includes('    the program says hello'), result.lines.join('\n'));
  });

  it('a refresh or destroy interrupted while the provider hangs: the host is stopped under its call, the run ends interrupted', async () => {
    await run('up');
    for (const [kind, hang] of [['refresh', 'read'], ['destroy', 'delete']] as const) {
      const controller = new AbortController();
      const lines: string[] = [];
      const stack = {
        program: PROGRAM, pwd: repoRoot(), project: 'echo-fixture', stack: 'dev', stateDir: dir, config: {}, secretConfigKeys: [], signal: controller.signal,
        hostEnv: { ECHO_HANG: hang },
        sink: (l: string) => (lines.push(l), l.includes(', forever') && controller.abort()),
      };
      const result = await runOperation(kind, stack);
      assert.equal(result.ok, false, kind);
      assert.equal(result.errors.at(-1), 'interrupted: the program and the provider host were stopped; run `refresh` to read back what the cluster has now', kind);
      assert.deepEqual(resources().map((r) => r.id), ['echo-one'], `${kind}: the resource is still recorded`);
    }
  });

  it('a run interrupted while the provider works: the host is stopped under its call, the run ends interrupted', async () => {
    const controller = new AbortController();
    const lines: string[] = [];
    const stack = {
      program: PROGRAM, pwd: repoRoot(), project: 'echo-fixture', stack: 'dev', stateDir: dir, secretConfigKeys: [], signal: controller.signal,
      config: { 'echo-fixture:say': 'creating, forever', 'echo-fixture:hang': 'yes' },
      sink: (l: string) => (lines.push(l), l.includes('creating, forever') && controller.abort()),
    };
    const result = await runOperation('up', stack);
    assert.equal(result.ok, false);
    assert.equal(result.errors.at(-1), 'interrupted: the program and the provider host were stopped; run `refresh` to read back what the cluster has now');
  });

  it('a refresh or destroy interrupted before it starts reads and deletes nothing: the resource stays as it was', async () => {
    await run('up');
    for (const kind of ['refresh', 'destroy'] as const) {
      const controller = new AbortController();
      controller.abort();
      const result = await run(kind, {}, {}, controller.signal, { ECHO_DRIFT: 'moved' });
      assert.equal(result.ok, false, kind);
      assert.equal(result.errors.at(-1), 'interrupted: the program and the provider host were stopped; run `refresh` to read back what the cluster has now', kind);
      assert.deepEqual(resources().map((r) => [r.id, r.outputs.value]), [['echo-one', 'one']], `${kind}: not deleted, not refreshed`);
    }
  });

  it('an interrupted run stops the program and the host and says to refresh; the lock is released', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await run('up', {}, {}, controller.signal);
    assert.equal(result.ok, false);
    assert.equal(result.errors.at(-1), 'interrupted: the program and the provider host were stopped; run `refresh` to read back what the cluster has now');
    const next = await run('preview');
    assert.equal(next.ok, true, 'the stack is not left locked');
  });
});
