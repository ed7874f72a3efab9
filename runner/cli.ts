#!/usr/bin/env node
/**
 * `harvester-iac-run`: the local runner's command line (the package's bin; `npm run runner --` in this
 * repository). main() parses (args.ts), prints help (help.ts) or runs the command (commands.ts) against a CliIO,
 * so tests run it in their own process; the bin below binds it to this process. Exit code: 0 when the command
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

if (require.main === module) {
  const interrupt = new AbortController();
  const io = { ...processIO(), signal: interrupt.signal };
  let exitCode: number | undefined;
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    process.on(signal, () => {
      // A second signal leaves at once; the first lets the operation stop its children and release the lock.
      if (interrupt.signal.aborted) process.exit(code);
      exitCode = code;
      interrupt.abort();
    });
  }
  main(process.argv.slice(2), io).then((code) => process.exit(exitCode ?? code));
}
