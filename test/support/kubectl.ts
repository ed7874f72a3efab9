/**
 * Runs the real kubectl against an emulator: KUBECONFIG set, a fresh discovery cache (KUBECACHEDIR) and HOME
 * per emulator instance (a reused port must never serve stale discovery), no stdin, and a hard timeout.
 */
import { ChildProcess, spawn } from 'node:child_process';

/** Where kubectl finds its configuration and caches. */
export interface KubectlEnv {
  kubeconfigPath: string;
  cacheDir: string;
  home: string;
}

/** The outcome of one kubectl run. */
export interface KubectlResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** The arguments, for assertion messages. */
  args: string[];
}

/** Options of one run. */
export interface KubectlRunOptions {
  /** Sent on stdin (e.g. a manifest for `-f -`); stdin is closed otherwise. */
  input?: string;
  /** Kill after this long (default 20 s). */
  timeoutMs?: number;
  /** Extra environment, e.g. KUBE_EDITOR for `kubectl edit`. */
  env?: Record<string, string>;
}

/** The kubectl binary (override with KUBECTL). */
export const KUBECTL = process.env.KUBECTL ?? 'kubectl';

function childEnv(env: KubectlEnv): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: env.home,
    KUBECONFIG: env.kubeconfigPath,
    KUBECACHEDIR: env.cacheDir,
    NO_PROXY: '127.0.0.1,localhost',
    LANG: 'C',
  };
}

/** A kubectl process started in the background (`get -w`, `delete` waiting on a finalizer, `wait`). */
export class KubectlProcess {
  private stdoutText = '';
  private stderrText = '';
  private timedOut = false;
  private readonly listeners = new Set<() => void>();
  /** Resolves when the process exits. */
  readonly done: Promise<KubectlResult>;

  constructor(private readonly child: ChildProcess, readonly args: string[], timeoutMs: number) {
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      this.stdoutText += d;
      for (const l of this.listeners) l();
    });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      this.stderrText += d;
      for (const l of this.listeners) l();
    });
    const timer = setTimeout(() => {
      this.timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    this.done = new Promise((resolve) => {
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        for (const l of this.listeners) l();
        resolve({ code, signal, stdout: this.stdoutText, stderr: this.stderrText, timedOut: this.timedOut, args });
      });
    });
  }

  /** True until the process has exited. */
  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Output so far. */
  get stdout(): string {
    return this.stdoutText;
  }

  get stderr(): string {
    return this.stderrText;
  }

  /** Resolve once stdout+stderr match `pattern`; reject after `timeoutMs` or when the process ends first. */
  waitFor(pattern: RegExp, timeoutMs = 10_000): Promise<void> {
    return new Promise((resolve, reject) => {
      let finished = false;
      const check = (): void => {
        if (finished) return;
        if (pattern.test(this.stdoutText + this.stderrText)) {
          finish();
          resolve();
        } else if (!this.running) {
          finish();
          reject(new Error(`kubectl ${this.args.join(' ')} ended before printing ${pattern}:\n${this.stdoutText}${this.stderrText}`));
        }
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`kubectl ${this.args.join(' ')} did not print ${pattern} within ${timeoutMs} ms:\n${this.stdoutText}${this.stderrText}`));
      }, timeoutMs);
      const finish = (): void => {
        finished = true;
        clearTimeout(timer);
        this.listeners.delete(check);
      };
      this.listeners.add(check);
      check();
    });
  }

  /** Stop the process (SIGTERM) and wait for it. */
  async stop(): Promise<KubectlResult> {
    if (this.running) this.child.kill('SIGTERM');
    return this.done;
  }
}

/** Start kubectl in the background. */
export function spawnKubectl(env: KubectlEnv, args: string[], options: KubectlRunOptions = {}): KubectlProcess {
  const child = spawn(KUBECTL, args, { env: { ...childEnv(env), ...(options.env ?? {}) }, stdio: [options.input !== undefined ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
  if (options.input !== undefined) child.stdin!.end(options.input);
  return new KubectlProcess(child, args, options.timeoutMs ?? 20_000);
}

/** Run kubectl to completion. */
export function runKubectl(env: KubectlEnv, args: string[], options: KubectlRunOptions = {}): Promise<KubectlResult> {
  return spawnKubectl(env, args, options).done;
}

/** A one-line description of a result, for assertion messages. */
export function describeResult(r: KubectlResult): string {
  return `kubectl ${r.args.join(' ')} → rc=${r.code}${r.timedOut ? ' (timed out)' : ''}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;
}
