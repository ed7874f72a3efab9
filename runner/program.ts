/**
 * Runs a Pulumi program the way Pulumi's Node.js language host does: `node @pulumi/pulumi/cmd/run` with the
 * monitor and engine addresses, project, stack, dry-run flag and the stack config in PULUMI_CONFIG (secret keys in
 * PULUMI_CONFIG_SECRET_KEYS). The program therefore runs on the real SDK, unchanged.
 */
import { spawn } from 'node:child_process';
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
}

/** runProgram resolves with the program's exit code. */
export function runProgram(run: ProgramRun): Promise<number> {
  // The program's own @pulumi/pulumi runs it, as under the Pulumi CLI: one SDK copy in the program's process.
  const runner = require.resolve('@pulumi/pulumi/cmd/run', { paths: [run.pwd, __dirname] });
  const args = [
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
  const child = spawn(process.execPath, args, {
    cwd: run.pwd,
    env: {
      ...process.env,
      PULUMI_CONFIG: JSON.stringify(run.config),
      PULUMI_CONFIG_SECRET_KEYS: JSON.stringify(run.secretConfigKeys),
      ...(run.typescript ? { PULUMI_NODEJS_TYPESCRIPT: 'true' } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  createInterface({ input: child.stdout! }).on('line', run.onOutput);
  createInterface({ input: child.stderr! }).on('line', run.onOutput);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}
