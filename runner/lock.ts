/**
 * The stack lock: one run that writes a stack's state (up, refresh, destroy) at a time, as the Pulumi CLI's
 * backends lock a stack during an update. The lock is the file `<state>/<stack>.lock`, made atomically (written
 * aside, then hard-linked into place, so it never exists half-written) and holding who made it: pid, host, start
 * time and command. A second run is refused with that holder named; a lock whose holder no longer runs (a killed
 * run; checked when the holder is on this host) is reported as such, and `harvester-iac-run cancel` removes it,
 * as `pulumi cancel` does for the CLI.
 */
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

export interface LockHolder {
  pid: number;
  host: string;
  /** ISO time the run started. */
  started: string;
  /** "up", "destroy", … */
  command: string;
}

/** What is known of the holder: running (on this host), gone (on this host, no such process), or unknown (another host). */
export type HolderState = 'running' | 'gone' | 'unknown';

export function lockPath(stateDir: string, stack: string): string {
  return join(stateDir, `${stack}.lock`);
}

function processRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** stateOf: whether the holder still runs, as far as this host can tell. */
export function stateOf(holder: LockHolder): HolderState {
  if (holder.host !== hostname()) return 'unknown';
  return processRunning(holder.pid) ? 'running' : 'gone';
}

export function describeHolder(holder: LockHolder): string {
  return `\`${holder.command}\` (pid ${holder.pid} on ${holder.host}, started ${holder.started})`;
}

/** readLock: the holder of the stack's lock, or undefined when it is not locked. */
export function readLock(stateDir: string, stack: string): LockHolder | undefined {
  const path = lockPath(stateDir, stack);
  if (!existsSync(path)) return undefined;
  try {
    const holder = JSON.parse(readFileSync(path, 'utf8')) as LockHolder;
    if (typeof holder.pid === 'number' && typeof holder.host === 'string') return holder;
  } catch {
    // A lock file that is not ours to read still locks; its holder is unknown.
  }
  return { pid: 0, host: 'an unknown host', started: 'at an unknown time', command: 'an unknown run' };
}

/** The stack is locked by another run: the message names the holder and the way out. */
export class StackLockedError extends Error {
  constructor(
    readonly lockedStack: string,
    readonly holder: LockHolder,
    readonly holderState: HolderState,
    cancelCommand: string,
  ) {
    const who = describeHolder(holder);
    const stack = lockedStack;
    super(
      holderState === 'gone'
        ? `stack ${stack} is locked by ${who}, which no longer runs (killed?): \`${cancelCommand}\` removes the lock; then run \`refresh\` to read back what it may have changed`
        : `stack ${stack} is locked by ${who}: wait for it to finish${holderState === 'unknown' ? `, or if it is gone, \`${cancelCommand} --yes\` removes the lock` : ''}`,
    );
    this.name = 'StackLockedError';
  }
}

/** A held lock; release() removes it (only if it is still ours). */
export class StackLock {
  private released = false;

  private constructor(
    readonly path: string,
    readonly holder: LockHolder,
  ) {}

  /** acquire takes the stack's lock or throws StackLockedError naming who holds it. */
  static acquire(stateDir: string, stack: string, command: string, cancelCommand = 'harvester-iac-run cancel'): StackLock {
    mkdirSync(stateDir, { recursive: true });
    const path = lockPath(stateDir, stack);
    const holder: LockHolder = { pid: process.pid, host: hostname(), started: new Date().toISOString(), command };
    const aside = `${path}.${process.pid}.${Date.now()}`;
    writeFileSync(aside, `${JSON.stringify(holder, null, 2)}\n`, { mode: 0o600 });
    try {
      linkSync(aside, path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const other = readLock(stateDir, stack)!;
      throw new StackLockedError(stack, other, stateOf(other), cancelCommand);
    } finally {
      unlinkSync(aside);
    }
    return new StackLock(path, holder);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    try {
      const now = JSON.parse(readFileSync(this.path, 'utf8')) as LockHolder;
      if (now.pid === this.holder.pid && now.started === this.holder.started) unlinkSync(this.path);
    } catch {
      // Already gone (cancelled): nothing to release.
    }
  }
}

/**
 * breakLock (`cancel`): removes the lock when its holder is gone, or, with `force`, whoever holds it unless it
 * visibly runs on this host. Returns what was removed, or throws saying why not.
 */
export function breakLock(stateDir: string, stack: string, force: boolean): LockHolder | undefined {
  const holder = readLock(stateDir, stack);
  if (!holder) return undefined;
  const state = stateOf(holder);
  if (state === 'running') {
    throw new Error(`stack ${stack} is locked by ${describeHolder(holder)}, which is still running: stop it first (kill ${holder.pid}); a stopped run's lock can then be removed`);
  }
  if (state === 'unknown' && !force) {
    throw new Error(`stack ${stack} is locked by ${describeHolder(holder)}, on another host, so this one cannot tell whether it still runs: if it is gone, \`cancel --yes\` removes the lock`);
  }
  unlinkSync(lockPath(stateDir, stack));
  return holder;
}
