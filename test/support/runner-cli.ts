/**
 * The runner's command line in the test's own process (runner/cli.ts main with a CliIO that collects what it
 * prints), so the runner's code runs where the test (and a mutation run) reaches it; only the program and the
 * dynamic-provider host run as processes of their own.
 */
import { main } from '../../runner/cli';
import type { CliIO } from '../../runner/commands';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** Standard input; undefined acts as a terminal (nothing piped). */
  stdin?: string;
  /** Called with each chunk printed to stdout as it is printed. */
  onOut?: (text: string) => void;
  signal?: AbortSignal;
}

/** runCli: `harvester-iac-run <argv>` in process. */
export async function runCli(argv: string[], options: CliOptions = {}): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    out: (text) => {
      stdout += text;
      options.onOut?.(text);
    },
    err: (text) => (stderr += text),
    readStdin: async () => options.stdin,
    signal: options.signal,
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

/** runCli, failing the test with everything printed when the exit code is not `expected`. */
export async function runCliExpect(expected: number, argv: string[], options: CliOptions = {}): Promise<CliRun> {
  const r = await runCli(argv, options);
  if (r.code !== expected) throw new Error(`harvester-iac-run ${argv.join(' ')} exited ${r.code}, not ${expected}:\n${r.stdout}\n${r.stderr}`);
  return r;
}
