/**
 * Runs a Pulumi program the way Pulumi's Node.js language host does: `node @pulumi/pulumi/cmd/run` with the
 * monitor and engine addresses, project, stack, dry-run flag and the stack config in PULUMI_CONFIG (secret keys in
 * PULUMI_CONFIG_SECRET_KEYS). The program therefore runs on the real SDK, unchanged, with two additions of the
 * runner's: program-preload.ts (why: see there), and, for a program folder that links harvester-iac from a clone
 * (`npm install ../harvester-iac` makes a symlink and installs none of its dependencies), NODE_PATH naming the
 * node_modules the clone's @pulumi/pulumi lives in, so the program's own `require("@pulumi/pulumi")` finds the
 * very copy harvester-iac uses.
 */
import { spawn } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';

export interface ProgramRun {
  /** The compiled program (a .js file or a folder with package.json/index.js). */
  program: string;
  /** Working directory of the program (the folder of its Pulumi.yaml). */
  pwd: string;
  /** The entry point is TypeScript: run it under ts-node, as Pulumi's language host does. */
  typescript?: boolean;
  project: string;
  stack: string;
  dryRun: boolean;
  monitorAddress: string;
  config: Record<string, string>;
  secretConfigKeys: string[];
  /** Receives the program's own stdout/stderr lines (console.log in the program). */
  onOutput: (line: string) => void;
  /** Aborting ends the program's process. */
  signal?: AbortSignal;
}

function resolvesFrom(request: string, folder: string): string | undefined {
  try {
    return require.resolve(request, { paths: [folder] });
  } catch {
    return undefined;
  }
}

/**
 * linkedPulumiPath: undefined when `pwd` resolves @pulumi/pulumi itself; otherwise the node_modules folder holding
 * the @pulumi/pulumi that harvester-iac resolves. In practice harvester-iac always resolves here, even from a folder
 * that does not link it: this file is inside the package and Node resolves a package's own name from within it
 * (self-reference through "exports"), so such a folder gets the runner's own @pulumi/pulumi, the copy it needs.
 */
export function linkedPulumiPath(pwd: string): string | undefined {
  if (resolvesFrom('@pulumi/pulumi/package.json', pwd)) return undefined;
  const ours = resolvesFrom('harvester-iac/package.json', pwd);
  if (!ours) return undefined;
  const pulumi = resolvesFrom('@pulumi/pulumi/package.json', dirname(realpathSync(ours)));
  // …/node_modules/@pulumi/pulumi/package.json → …/node_modules
  return pulumi ? dirname(dirname(dirname(pulumi))) : undefined;
}

/** runProgram resolves with the program's exit code. */
export function runProgram(run: ProgramRun): Promise<number> {
  // The program's own @pulumi/pulumi runs it, as under the Pulumi CLI: one SDK copy in the program's process.
  const runner = require.resolve('@pulumi/pulumi/cmd/run', { paths: [run.pwd, __dirname] });
  const args = [
    '--require',
    join(__dirname, 'program-preload.js'),
    runner,
    `--monitor=${run.monitorAddress}`,
    `--engine=${run.monitorAddress}`,
    `--project=${run.project}`,
    `--stack=${run.stack}`,
    `--pwd=${run.pwd}`,
    `--root-directory=${run.pwd}`,
    ...(run.dryRun ? ['--dry-run'] : []),
    run.program,
  ];
  const linked = linkedPulumiPath(run.pwd);
  const child = spawn(process.execPath, args, {
    cwd: run.pwd,
    env: {
      ...process.env,
      PULUMI_CONFIG: JSON.stringify(run.config),
      PULUMI_CONFIG_SECRET_KEYS: JSON.stringify(run.secretConfigKeys),
      ...(run.typescript ? { PULUMI_NODEJS_TYPESCRIPT: 'true' } : {}),
      ...(linked ? { NODE_PATH: [linked, process.env.NODE_PATH].filter(Boolean).join(delimiter) } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    signal: run.signal,
  });
  createInterface({ input: child.stdout! }).on('line', run.onOutput);
  createInterface({ input: child.stderr! }).on('line', run.onOutput);
  return new Promise((resolve, reject) => {
    child.once('error', (err) => (run.signal?.aborted ? resolve(1) : reject(err)));
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}
