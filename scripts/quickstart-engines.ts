/**
 * The two engines the quickstart can run on: the Pulumi CLI (when installed; through the Automation API with a
 * file backend in the scratch folder and no login) or the local runner. Both run the same program
 * (dist/examples/quickstart, named by the root Pulumi.yaml) with the same stack config.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type * as Automation from '@pulumi/pulumi/automation';
import type { Sink } from '../runner/display';
import { runOperation, type OperationKind, type OperationOptions, type OperationResult } from '../runner/operations';

export const QUICKSTART_PROJECT = 'harvester-quickstart';
export const QUICKSTART_STACK = 'dev';

export interface StoryEngine {
  name: 'local' | 'pulumi-cli';
  run(kind: OperationKind, options?: OperationOptions): Promise<Pick<OperationResult, 'ok' | 'changes' | 'counts'>>;
  close(): Promise<void>;
}

export interface EngineSetup {
  root: string;
  scratch: string;
  kubeconfig: string;
  sink: Sink;
}

function pulumiOnPath(): boolean {
  try {
    execFileSync('pulumi', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export async function chooseEngine(forced: 'local' | 'pulumi-cli' | undefined, setup: EngineSetup): Promise<StoryEngine> {
  const kind = forced ?? (pulumiOnPath() ? 'pulumi-cli' : 'local');
  return kind === 'pulumi-cli' ? pulumiCliEngine(setup) : localEngine(setup);
}

/** The local runner: state in the scratch folder, KUBECONFIG pointed nowhere so only stack config connects. */
export function localEngine(setup: EngineSetup): StoryEngine {
  const stack = {
    program: join(setup.root, 'dist', 'examples', 'quickstart', 'index.js'),
    pwd: setup.root,
    project: QUICKSTART_PROJECT,
    stack: QUICKSTART_STACK,
    stateDir: join(setup.scratch, 'state'),
    config: { 'harvester:kubeconfig': setup.kubeconfig },
    secretConfigKeys: ['harvester:kubeconfig'],
    sink: setup.sink,
    hostEnv: { KUBECONFIG: join(setup.scratch, 'no-such-kubeconfig') },
  };
  return {
    name: 'local',
    run: (kind, options) => runOperation(kind, stack, options),
    close: async () => undefined,
  };
}

/**
 * The Pulumi CLI through the Automation API. Not exercised by the tests (no CLI on the build machines); the
 * docs/guides/local-runner-vs-pulumi-cli.md documents the same steps by hand.
 */
export async function pulumiCliEngine(setup: EngineSetup): Promise<StoryEngine> {
  // Loaded only when the CLI is there: the Automation API module is large.
  const auto = require('@pulumi/pulumi/automation') as typeof Automation;
  const stack = await auto.LocalWorkspace.createOrSelectStack(
    { stackName: QUICKSTART_STACK, workDir: setup.root },
    {
      envVars: {
        PULUMI_BACKEND_URL: `file://${join(setup.scratch, 'backend')}`,
        PULUMI_CONFIG_PASSPHRASE: 'harvester-iac-quickstart',
        PULUMI_SKIP_UPDATE_CHECK: 'true',
      },
    },
  );
  await stack.setConfig('harvester:kubeconfig', { value: setup.kubeconfig, secret: true });
  const onOutput = (text: string) => text.trimEnd().split('\n').forEach((line) => setup.sink(line));
  const changesOf = (summary: Record<string, number | undefined> = {}) =>
    Object.entries(summary).reduce((n, [op, count]) => (op === 'same' || op === 'read' ? n : n + (count ?? 0)), 0);
  return {
    name: 'pulumi-cli',
    async run(kind, options = {}) {
      try {
        if (kind === 'preview') {
          const r = await stack.preview({ onOutput, refresh: options.refresh, expectNoChanges: options.expectNoChanges, diff: true });
          return { ok: true, changes: changesOf(r.changeSummary), counts: r.changeSummary as Record<string, number> };
        }
        if (kind === 'refresh') {
          const r = await stack.refresh({ onOutput });
          const counts = (r.summary.resourceChanges ?? {}) as Record<string, number>;
          return { ok: true, changes: changesOf(counts), counts };
        }
        const r = kind === 'up' ? await stack.up({ onOutput, refresh: options.refresh, diff: true }) : await stack.destroy({ onOutput });
        const counts = (r.summary.resourceChanges ?? {}) as Record<string, number>;
        return { ok: true, changes: changesOf(counts), counts };
      } catch (err) {
        setup.sink(`error: ${err instanceof Error ? err.message : String(err)}`);
        return { ok: false, changes: options.expectNoChanges ? 1 : 0, counts: {} };
      }
    },
    close: async () => undefined,
  };
}
