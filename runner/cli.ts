#!/usr/bin/env node
/**
 * `harvester-iac-run`: the local runner's command line (the package's bin; `npm run runner --` in this
 * repository). main() parses (args.ts), prints help (help.ts) or runs the command (commands.ts) against a CliIO,
 * so tests run it in their own process; runAsProcess binds it to this process for the bin. Exit code: 0 when the command
 * succeeded (and, with --expect-no-changes, nothing changed), 1 when it failed, 2 for a command line it refuses.
 */
import { parseCommandLine, UsageError } from './args';
import { runCommand, type CliIO } from './commands';
import { usage } from './help';

export { usage };

/** main: the exit code of one command line. Errors are printed as `error: …`, never thrown. */
export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
  try {
    const parsed = parseCommandLine(argv);
    if (parsed.flags.help) {
      io.out(usage(parsed.command));
      return 0;
    }
    return await runCommand(parsed, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`error: ${err.message}\n`);
      return 2;
    }
    io.err(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

/** The CliIO of this process: stdout/stderr, standard input unless it is a terminal, SIGINT/SIGTERM as abort. */
export function processIO(): CliIO {
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    readStdin: async () => {
      if (process.stdin.isTTY) return undefined;
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    env: process.env,
  };
}

/** What the bin needs of its process: the signals it handles and its exit (tests pass a stand-in). */
export interface ProcessBinding {
  on(signal: 'SIGINT' | 'SIGTERM', listener: () => void): unknown;
  exit(code: number): void;
}

/**
 * runAsProcess: the bin's life. The first SIGINT or SIGTERM aborts the command, which stops the program and the host
 * and releases the stack's lock, and the process then exits 130 or 143; a second signal leaves at once.
 */
export async function runAsProcess(argv: string[], proc: ProcessBinding = process, io: CliIO = processIO(), run: typeof main = main): Promise<void> {
  const interrupt = new AbortController();
  let exitCode: number | undefined;
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    proc.on(signal, () => {
      if (interrupt.signal.aborted) return proc.exit(code);
      exitCode = code;
      interrupt.abort();
    });
  }
  const code = await run(argv, { ...io, signal: interrupt.signal });
  proc.exit(exitCode ?? code);
}

if (require.main === module) void runAsProcess(process.argv.slice(2));
