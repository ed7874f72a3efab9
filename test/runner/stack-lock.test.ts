/**
 * The stack lock: while a run writes a stack's state, a second one is refused with the holder named (pid, host,
 * start time, command); a lock left by a run that was killed is told apart and `cancel` removes it, as
 * `pulumi cancel` does; a lock from another host needs `cancel --yes`. Previews take no lock.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { lockPath, StackLock, type LockHolder } from '../../runner/lock';
import { repoRoot } from '../../scripts/resource-docs';
import { runCli, runCliExpect } from '../support/runner-cli';

describe('local runner: the stack lock', function () {
  this.timeout(60_000);
  let dir: string;
  let state: string;
  const program = () => join(repoRoot(), 'dist', 'test', 'runner', 'fixtures', 'outputs.js');
  const writeLock = (holder: LockHolder) => {
    mkdirSync(state, { recursive: true });
    writeFileSync(lockPath(state, 'dev'), JSON.stringify(holder));
  };
  /** A pid that ran on this host and is gone: a child that has exited. */
  const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid!;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'harvester-run-lock-'));
    state = join(dir, '.harvester-run');
    writeFileSync(join(dir, 'Pulumi.yaml'), `name: runner-fixture\nruntime: nodejs\nmain: ${program()}\n`);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a second up while the first runs, naming the holder; the first finishes and unlocks', async () => {
    let second: Promise<{ code: number; stdout: string; stderr: string }> | undefined;
    const first = runCli(['up', '--yes', '--cwd', dir], {
      // The title line is printed once the lock is held: start the second run then.
      onOut: (text) => {
        if (!second && text.startsWith('Updating (')) second = runCli(['up', '--yes', '--cwd', dir]);
      },
    });
    const [a, b] = [await first, await second!];
    assert.equal(a.code, 0, a.stdout + a.stderr);
    assert.equal(b.code, 1);
    assert.match(b.stderr, new RegExp(`^error: stack dev is locked by \`up\` \\(pid ${process.pid} on ${hostname()}, started \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\): wait for it to finish\\n$`));
    assert.equal(b.stdout.includes('Updating ('), false, 'the second run did nothing');
    assert.equal(existsSync(lockPath(state, 'dev')), false, 'released');
    await runCliExpect(0, ['up', '--yes', '--cwd', dir]);
  });

  it("tells a killed run's lock apart, and cancel removes it", async () => {
    const pid = deadPid();
    writeLock({ pid, host: hostname(), started: '2026-01-02T03:04:05.000Z', command: 'destroy' });
    const refused = await runCli(['refresh', '--cwd', dir]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, new RegExp(`locked by \`destroy\` \\(pid ${pid} on ${hostname()}, started 2026-01-02T03:04:05.000Z\\), which no longer runs \\(killed\\?\\): \`npx harvester-iac-run cancel --cwd \\S+\` removes the lock`));
    const cancelled = await runCliExpect(0, ['cancel', '--cwd', dir]);
    assert.match(cancelled.stdout, new RegExp(`^The lock of stack dev held by \`destroy\` \\(pid ${pid} on `));
    assert.equal(existsSync(lockPath(state, 'dev')), false);
    assert.equal((await runCliExpect(0, ['cancel', '--cwd', dir])).stdout, 'Stack dev is not locked.\n');
  });

  it('cancel leaves a running holder alone, and needs --yes for a holder on another host', async () => {
    writeLock({ pid: process.pid, host: hostname(), started: '2026-01-02T03:04:05.000Z', command: 'up' });
    const running = await runCli(['cancel', '--yes', '--cwd', dir]);
    assert.equal(running.code, 1);
    assert.match(running.stderr, /which is still running: stop it first \(kill \d+\)/);
    writeLock({ pid: 4242, host: 'build-agent-7', started: '2026-01-02T03:04:05.000Z', command: 'up' });
    assert.match((await runCli(['up', '--cwd', dir])).stderr, /locked by `up` \(pid 4242 on build-agent-7, .*if it is gone, `npx harvester-iac-run cancel --cwd \S+ --yes` removes the lock/);
    assert.match((await runCli(['cancel', '--cwd', dir])).stderr, /on another host, so this one cannot tell whether it still runs: if it is gone, `cancel --yes` removes the lock/);
    await runCliExpect(0, ['cancel', '--yes', '--cwd', dir]);
    assert.equal(existsSync(lockPath(state, 'dev')), false);
  });

  it('an interrupted run stops its program and host and releases the lock (in process, and the bin on SIGTERM)', async () => {
    const interrupt = new AbortController();
    const r = await runCli(['up', '--yes', '--cwd', dir], { signal: interrupt.signal, onOut: (text) => text.startsWith('Updating (') && interrupt.abort() });
    assert.equal(r.code, 1);
    assert.match(r.stdout, /^error: interrupted: the program and the provider host were stopped; run `refresh` to read back what the cluster has now$/m);
    assert.equal(existsSync(lockPath(state, 'dev')), false);

    const child = spawn(process.execPath, [join(repoRoot(), 'dist', 'runner', 'cli.js'), 'up', '--yes', '--cwd', dir]);
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('Updating (')) child.kill('SIGTERM');
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.equal(code, 143, out);
    assert.equal(existsSync(lockPath(state, 'dev')), false, 'the bin released the lock');
  });

  it('a preview takes no lock; a lock is released only by its own holder', async () => {
    writeLock({ pid: process.pid, host: hostname(), started: 'now', command: 'up' });
    await runCliExpect(0, ['preview', '--cwd', dir]);
    rmSync(lockPath(state, 'dev'));
    const mine = StackLock.acquire(state, 'dev', 'up');
    writeLock({ pid: 1, host: 'elsewhere', started: 'later', command: 'destroy' });
    mine.release();
    assert.ok(existsSync(lockPath(state, 'dev')), "another run's lock stays");
  });
});
