/**
 * preview / up / refresh / destroy of one stack with the local runner: the real program on the real SDK
 * (program.ts), our engine side (monitor.ts, deployment.ts), the real dynamic-provider host (dynamic-host.ts),
 * state in a local file (state.ts), the stack locked while a run writes it (lock.ts).
 *
 * runOperation is the runner's in-process engine entry point: the command line (cli.ts), the quickstart and the
 * tests call it in their own process, so everything here runs where a test (and a mutation run) can reach it; only
 * the program and the dynamic-provider host are processes of their own, as under the Pulumi CLI.
 */
import { Deployment } from './deployment';
import { Display, type CountKey, type ResourceFailure, type Sink, stdoutSink } from './display';
import { DynamicHost } from './dynamic-host';
import { ENGINE_ENV } from '../provider/core/unreachable';
import { StackLock } from './lock';
import { MonitorServer } from './monitor';
import { runProgram } from './program';
import { StateStore } from './state';

type Raw = Record<string, unknown>;

export type OperationKind = 'preview' | 'up' | 'refresh' | 'destroy';

export interface StackOptions {
  /** The program: a file, or a folder resolved as Pulumi does (package.json main, else index.js). */
  program: string;
  /** The entry point is TypeScript (run under ts-node). */
  typescript?: boolean;
  /** The program's folder; `require("harvester-iac/provider")` in the host resolves from here. */
  pwd: string;
  project: string;
  stack: string;
  /** Folder of the state file and its key. */
  stateDir: string;
  /** Stack config, e.g. { "harvester:kubeconfig": "…" }. */
  config: Record<string, string>;
  secretConfigKeys: string[];
  sink?: Sink;
  /** Environment of the host (e.g. KUBECONFIG). */
  hostEnv?: NodeJS.ProcessEnv;
  progressEveryMs?: number;
  /** The runner's `config set` as the user types it, named in the SDK's missing-config hint. */
  configSetCommand?: string;
  /** The runner's `cancel` as the user types it, named when the stack is locked. */
  cancelCommand?: string;
  /** Aborting stops the program and the host at once (the command line's SIGINT/SIGTERM); the lock is released. */
  signal?: AbortSignal;
}

export interface OperationOptions {
  /** preview/up: refresh first (`--refresh`). */
  refresh?: boolean;
  /** A planned or made change is a failure (`--expect-no-changes`, the drift gate). */
  expectNoChanges?: boolean;
  /** `--diff`: every changed property with its whole value. */
  diff?: boolean;
  /** `--parallel`: resources a refresh reads at once. */
  parallel?: number;
}

export interface OperationResult {
  ok: boolean;
  /** Planned (preview) or made changes. */
  changes: number;
  counts: Record<string, number>;
  outputs: Raw;
  /** Every error: "<resource>: <message>" for each failed step, then the operation's own. */
  errors: string[];
}

export const BANNER =
  'harvester-iac local runner: runs your program on the real @pulumi/pulumi SDK and drives Pulumi\'s real dynamic-provider host; ' +
  'it plays the engine\'s part itself (this is not the Pulumi CLI; state is a local file with sealed secrets).';

/** The operations that write the state, and so take the stack's lock. */
const WRITES: readonly OperationKind[] = ['up', 'refresh', 'destroy'];

export async function runOperation(kind: OperationKind, stack: StackOptions, options: OperationOptions = {}): Promise<OperationResult> {
  const lock = WRITES.includes(kind) ? StackLock.acquire(stack.stateDir, stack.stack, kind, stack.cancelCommand) : undefined;
  try {
    return await operate(kind, stack, options);
  } finally {
    lock?.release();
  }
}

async function operate(kind: OperationKind, stack: StackOptions, options: OperationOptions): Promise<OperationResult> {
  const display = new Display(stack.sink ?? stdoutSink);
  const store = new StateStore(stack.stateDir, stack.stack);
  const state = store.load(stack.project);
  const dryRun = kind === 'preview';
  const titles: Record<OperationKind, string> = { preview: 'Previewing update', up: 'Updating', refresh: 'Refreshing', destroy: 'Destroying' };
  display.line(`${titles[kind]} (${stack.project}/${stack.stack}):`);
  // What the provider prints (its progress lines) goes under the resource the current deployment works on.
  let current: Deployment | undefined;
  const onOutput = (line: string) => (current ? current.providerOutput(line) : display.line(`    ${line}`));
  // The host knows its engine is this runner, so a fix it prints names the runner's commands (core/unreachable.ts).
  const host = await DynamicHost.start({ cwd: stack.pwd, project: stack.project, env: { [ENGINE_ENV]: 'local', ...stack.hostEnv }, onOutput });
  const stopHost = () => host.kill();
  stack.signal?.addEventListener('abort', stopHost, { once: true });
  if (stack.signal?.aborted) stopHost();
  const failures: ResourceFailure[] = [];
  const errors: string[] = [];
  let changes = 0;
  let counts: Partial<Record<CountKey, number>> = {};
  let outputs: Raw = {};
  let programOk = true;
  let outputsShown: (() => void) | undefined;
  try {
    await host.configure(stack.config);
    const deployment = (dry: boolean) =>
      (current = new Deployment({ host, state, store, dryRun: dry, display, full: options.diff, progressEveryMs: stack.progressEveryMs, configSetCommand: stack.configSetCommand }));
    if (kind === 'refresh' || options.refresh) {
      const refresh = deployment(false);
      await refresh.refreshAll(kind !== 'preview', options.parallel);
      failures.push(...refresh.failures);
      if (kind === 'refresh') {
        changes = refresh.changeCount + (refresh.counts.refresh ?? 0);
        counts = refresh.counts;
      }
    }
    if (kind === 'destroy') {
      const d = deployment(false);
      await d.destroyAll();
      failures.push(...d.failures);
      changes = d.changeCount;
      counts = d.counts;
    } else if (kind !== 'refresh') {
      const d = deployment(dryRun);
      const server = await MonitorServer.start(d);
      let code: number;
      try {
        code = await runProgram({
          program: stack.program,
          typescript: stack.typescript,
          pwd: stack.pwd,
          project: stack.project,
          stack: stack.stack,
          dryRun,
          monitorAddress: server.address,
          config: stack.config,
          secretConfigKeys: stack.secretConfigKeys,
          onOutput: (line) => display.line(`    ${line}`),
          signal: stack.signal,
        });
      } finally {
        await server.stop();
      }
      programOk = code === 0;
      await d.finish(programOk);
      failures.push(...d.failures);
      if (!programOk && !d.failures.length) errors.push(`the program exited with code ${code}`);
      changes = d.changeCount;
      counts = d.counts;
      outputs = d.outputs.outputs;
      outputsShown = () => display.outputs(d.outputs.outputs, d.outputs.secretKeys);
    }
  } catch (err) {
    // A call cut short by the interruption (the host was killed under it) is the interruption, reported below.
    if (!stack.signal?.aborted) throw err;
  } finally {
    stack.signal?.removeEventListener('abort', stopHost);
    await host.stop();
  }
  if (stack.signal?.aborted) errors.push('interrupted: the program and the provider host were stopped; run `refresh` to read back what the cluster has now');
  // Pulumi's order: the failed resources' diagnostics, the outputs, the summary, then what failed overall.
  display.line('');
  display.diagnostics(failures);
  outputsShown?.();
  display.summary(counts, kind === 'preview' ? 'to' : 'done');
  if (options.expectNoChanges && changes > 0) {
    errors.push(`--expect-no-changes: the ${kind === 'preview' ? 'preview has' : `${kind} made`} ${changes} change(s)`);
  }
  for (const e of errors) display.line(`error: ${e}`);
  const all = [...failures.map((f) => `${f.name}: ${f.message}`), ...errors];
  return { ok: all.length === 0 && programOk, changes, counts: counts as Record<string, number>, outputs, errors: all };
}
