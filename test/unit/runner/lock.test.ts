/**
 * The stack lock (runner/lock.ts), in process: made atomically beside the state, holding who made it; a second
 * run refused naming the holder and the way out (which depends on whether the holder still runs, is gone, or is on
 * another host); released only by its own holder; `cancel` (breakLock) removes a gone holder's lock, another host's
 * only with --yes, and never one whose holder runs here.
 */
import assert from 'node:assert/strict';
import fs, { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { breakLock, describeHolder, lockPath, readLock, StackLock, StackLockedError, stateOf, type LockHolder } from '../../../runner/lock';

/** A pid no process has (above Linux's largest pid_max). */
const NO_SUCH_PID = 2 ** 31 - 2;

const holder = (over: Partial<LockHolder> = {}): LockHolder => ({ pid: process.pid, host: hostname(), started: '2024-01-02T03:04:05.000Z', command: 'up', ...over });

describe('runner lock', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'runner-lock-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const writeLock = (h: unknown, stack = 'dev') => writeFileSync(lockPath(dir, stack), typeof h === 'string' ? h : JSON.stringify(h));

  it('lockPath is <state>/<stack>.lock; describeHolder names command, pid, host and start', () => {
    assert.equal(lockPath('/s', 'prod'), join('/s', 'prod.lock'));
    assert.equal(describeHolder(holder({ pid: 42, host: 'h1' })), '`up` (pid 42 on h1, started 2024-01-02T03:04:05.000Z)');
  });

  it('stateOf: running or gone by pid on this host, unknown on another; a pid owned by someone else (EPERM) runs', () => {
    assert.equal(stateOf(holder()), 'running');
    assert.equal(stateOf(holder({ pid: NO_SUCH_PID })), 'gone');
    assert.equal(stateOf(holder({ host: `not-${hostname()}` })), 'unknown');
    const kill = process.kill;
    process.kill = (() => {
      throw Object.assign(new Error('operation not permitted'), { code: 'EPERM' });
    }) as typeof process.kill;
    try {
      assert.equal(stateOf(holder({ pid: 1 })), 'running');
    } finally {
      process.kill = kill;
    }
  });

  it('readLock: undefined when unlocked, the holder when readable, an unknown holder for a file it cannot read', () => {
    assert.equal(readLock(dir, 'dev'), undefined);
    writeLock(holder({ pid: 7 }));
    assert.deepEqual(readLock(dir, 'dev'), holder({ pid: 7 }));
    const unknown = { pid: 0, host: 'an unknown host', started: 'at an unknown time', command: 'an unknown run' };
    writeLock('not json');
    assert.deepEqual(readLock(dir, 'dev'), unknown);
    writeLock({ pid: '7', host: 'h' });
    assert.deepEqual(readLock(dir, 'dev'), unknown);
    writeLock({ pid: 7, host: 8 });
    assert.deepEqual(readLock(dir, 'dev'), unknown);
  });

  it('StackLockedError says who holds the lock and the way out for each holder state', () => {
    const h = holder({ pid: 42, host: 'h1' });
    const who = describeHolder(h);
    const running = new StackLockedError('dev', h, 'running', 'npx harvester-iac-run cancel');
    assert.equal(running.message, `stack dev is locked by ${who}: wait for it to finish`);
    assert.deepEqual([running.name, running.lockedStack, running.holder, running.holderState], ['StackLockedError', 'dev', h, 'running']);
    assert.equal(
      new StackLockedError('dev', h, 'unknown', 'npx harvester-iac-run cancel').message,
      `stack dev is locked by ${who}: wait for it to finish, or if it is gone, \`npx harvester-iac-run cancel --yes\` removes the lock`,
    );
    assert.equal(
      new StackLockedError('prod', h, 'gone', 'npx harvester-iac-run cancel --stack prod').message,
      `stack prod is locked by ${who}, which no longer runs (killed?): \`npx harvester-iac-run cancel --stack prod\` removes the lock; then run \`refresh\` to read back what it may have changed`,
    );
  });

  it('acquire makes the state folder and a private lock naming this run, leaving nothing aside', () => {
    const stateDir = join(dir, 'state');
    const lock = StackLock.acquire(stateDir, 'dev', 'destroy');
    assert.equal(lock.path, lockPath(stateDir, 'dev'));
    const written = JSON.parse(readFileSync(lock.path, 'utf8')) as LockHolder;
    assert.deepEqual(written, lock.holder);
    assert.deepEqual([written.pid, written.host, written.command], [process.pid, hostname(), 'destroy']);
    assert.ok(!Number.isNaN(Date.parse(written.started)));
    assert.equal(fs.statSync(lock.path).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(stateDir), ['dev.lock']);
    lock.release();
    assert.deepEqual(readdirSync(stateDir), []);
  });

  it('a second acquire is refused naming the holder, with the default or the given cancel command', () => {
    const first = StackLock.acquire(dir, 'dev', 'up');
    try {
      assert.throws(() => StackLock.acquire(dir, 'dev', 'refresh'), (err: unknown) => {
        assert.ok(err instanceof StackLockedError);
        assert.deepEqual([err.holder, err.holderState], [first.holder, 'running']);
        return true;
      });
      StackLock.acquire(dir, 'other', 'up').release();
      assert.deepEqual(readdirSync(dir), ['dev.lock'], 'nothing left aside by the refused acquire');
    } finally {
      first.release();
    }
    writeLock(holder({ pid: NO_SUCH_PID }));
    assert.throws(() => StackLock.acquire(dir, 'dev', 'up'), { message: /which no longer runs \(killed\?\): `harvester-iac-run cancel` removes the lock/ });
    assert.throws(() => StackLock.acquire(dir, 'dev', 'up', 'npx harvester-iac-run cancel --stack dev'), { message: /`npx harvester-iac-run cancel --stack dev` removes the lock/ });
  });

  it('acquire passes on a failure other than "already locked", and still removes what it wrote aside', () => {
    const link = fs.linkSync;
    fs.linkSync = () => {
      throw Object.assign(new Error('cross-device link'), { code: 'EXDEV' });
    };
    try {
      assert.throws(() => StackLock.acquire(dir, 'dev', 'up'), { message: 'cross-device link' });
    } finally {
      fs.linkSync = link;
    }
    assert.deepEqual(readdirSync(dir), []);
  });

  it('release removes only its own lock, once, and minds a lock already gone', () => {
    const lock = StackLock.acquire(dir, 'dev', 'up');
    writeLock({ ...lock.holder, pid: lock.holder.pid + 1 });
    lock.release();
    assert.ok(existsSync(lock.path), 'another pid\'s lock stays');
    rmSync(lock.path);
    const second = StackLock.acquire(dir, 'dev', 'up');
    writeLock({ ...second.holder, started: 'another time' });
    second.release();
    assert.ok(existsSync(second.path), 'another start\'s lock stays');
    rmSync(second.path);
    const third = StackLock.acquire(dir, 'dev', 'up');
    rmSync(third.path);
    third.release();
    const fourth = StackLock.acquire(dir, 'dev', 'up');
    fourth.release();
    writeLock(fourth.holder);
    fourth.release();
    assert.ok(existsSync(fourth.path), 'a second release does nothing, even to a lock that reads as its own');
  });

  it('breakLock: nothing when unlocked; a gone holder removed; another host only with force; a running one never', () => {
    assert.equal(breakLock(dir, 'dev', false), undefined);
    const gone = holder({ pid: NO_SUCH_PID });
    writeLock(gone);
    assert.deepEqual(breakLock(dir, 'dev', false), gone);
    assert.equal(existsSync(lockPath(dir, 'dev')), false);

    const remote = holder({ host: 'elsewhere' });
    writeLock(remote);
    assert.throws(() => breakLock(dir, 'dev', false), {
      message: `stack dev is locked by ${describeHolder(remote)}, on another host, so this one cannot tell whether it still runs: if it is gone, \`cancel --yes\` removes the lock`,
    });
    assert.ok(existsSync(lockPath(dir, 'dev')));
    assert.deepEqual(breakLock(dir, 'dev', true), remote);
    assert.equal(existsSync(lockPath(dir, 'dev')), false);

    const running = holder();
    writeLock(running);
    for (const force of [false, true]) {
      assert.throws(() => breakLock(dir, 'dev', force), {
        message: `stack dev is locked by ${describeHolder(running)}, which is still running: stop it first (kill ${process.pid}); a stopped run's lock can then be removed`,
      });
    }
    assert.ok(existsSync(lockPath(dir, 'dev')));
  });
});
