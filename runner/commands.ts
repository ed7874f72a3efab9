/**
 * What each command of `harvester-iac-run` does, given its parsed command line (args.ts): the operations
 * (preview/up/refresh/destroy through runOperation, with the stack's config from Pulumi.<stack>.yaml), `config`,
 * `stack output` and `cancel`. Output goes through CliIO, so the command line runs in a test's own process.
 */
import { resolve } from 'node:path';
import { keyValuePairs, positiveInteger, UsageError, type ParsedCommandLine } from './args';
import { breakLock, describeHolder } from './lock';
import { BANNER, runOperation, type OperationKind } from './operations';
import { programFolder } from './project';
import { displayKey, qualifyKey, StackConfigFile } from './stack-config';
import { formatOutputs } from './stack-output';
import { StateStore } from './state';

/** Where the command line reads and writes; the bin binds it to the process (cli.ts). */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  /** All of standard input, or undefined when it is a terminal (the runner never prompts). */
  readStdin(): Promise<string | undefined>;
  /** Aborted on SIGINT/SIGTERM: an operation stops its program and host and releases the stack's lock. */
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
}

type Flags = ParsedCommandLine['flags'];

/** The stack a command works on: its folder, name, state folder and project. */
interface StackPlace {
  pwd: string;
  stack: string;
  stateDir: string;
  project: string;
  /** The flags that pick this stack (" --stack prod"), for the commands the runner's hints name. */
  picks: string;
}

function place(flags: Flags): StackPlace {
  const pwd = resolve(String(flags.cwd ?? '.'));
  const stack = String(flags.stack ?? 'dev');
  if (!/^[A-Za-z0-9_.-]+$/.test(stack)) throw new UsageError(`--stack ${stack}: a stack name may hold letters, digits, '-', '_' and '.' only`);
  const stateDir = resolve(pwd, String(flags.state ?? '.harvester-run'));
  const project = programFolder(pwd, { project: flags.project as string | undefined, program: '.' }).project;
  const picks = [flags.cwd !== undefined ? ` --cwd ${flags.cwd}` : '', stack !== 'dev' ? ` --stack ${stack}` : '', flags.state !== undefined ? ` --state ${flags.state}` : ''];
  return { pwd, stack, stateDir, project, picks: picks.join('') };
}

/** A runner command as the user would type it for this stack ("npx harvester-iac-run cancel --stack prod"). */
const selfCommand = (p: StackPlace, command: string) => `npx harvester-iac-run ${command}${p.picks}`;

/** runCommand: the exit code of one parsed command line. */
export async function runCommand(parsed: ParsedCommandLine, io: CliIO): Promise<number> {
  const name = parsed.command!.name;
  const flags = parsed.flags;
  if (flags.secret && flags.plaintext) throw new UsageError('--secret and --plaintext exclude each other', name);
  const p = place(flags);
  switch (name) {
    case 'preview':
    case 'up':
    case 'refresh':
    case 'destroy':
      return operation(name, p, flags, io);
    case 'config':
      return configList(p, flags, io);
    case 'config get':
      return configGet(p, parsed.args[0], flags, io);
    case 'config set':
      return configSet(p, parsed.args[0], parsed.args[1], flags, io);
    case 'config rm':
      return configRemove(p, parsed.args[0], io);
    case 'stack output':
      return stackOutput(p, parsed.args[0], flags, io);
    case 'cancel':
      return cancel(p, flags, io);
    default:
      throw new UsageError(`unknown command "${name}"`);
  }
}

async function operation(kind: OperationKind, p: StackPlace, flags: Flags, io: CliIO): Promise<number> {
  const folder = programFolder(p.pwd, { project: flags.project as string | undefined, program: flags.program as string | undefined });
  const fromFile = StackConfigFile.of(p.pwd, p.stateDir, p.stack).entries(true);
  const plain = keyValuePairs(flags.config as string[] | undefined, 'config');
  const secret = keyValuePairs(flags['secret-config'] as string[] | undefined, 'secret-config');
  const config: Record<string, string> = {};
  const secretKeys = new Set<string>();
  for (const e of fromFile) {
    config[e.key] = e.value;
    if (e.secret) secretKeys.add(e.key);
  }
  for (const [key, value] of Object.entries(plain)) {
    config[key] = value;
    secretKeys.delete(key);
  }
  for (const [key, value] of Object.entries(secret)) {
    config[key] = value;
    secretKeys.add(key);
  }
  io.out(`${BANNER}\n\n`);
  const result = await runOperation(
    kind,
    {
      program: folder.program,
      typescript: folder.typescript,
      pwd: p.pwd,
      project: folder.project,
      stack: p.stack,
      stateDir: p.stateDir,
      config,
      secretConfigKeys: [...secretKeys].sort(),
      sink: (line) => io.out(`${line}\n`),
      configSetCommand: selfCommand(p, 'config set'),
      cancelCommand: selfCommand(p, 'cancel'),
      signal: io.signal,
    },
    {
      refresh: Boolean(flags.refresh),
      expectNoChanges: Boolean(flags['expect-no-changes']),
      diff: Boolean(flags.diff),
      parallel: positiveInteger(flags.parallel as string | undefined, 'parallel', 8),
    },
  );
  return result.ok ? 0 : 1;
}

function configFile(p: StackPlace): StackConfigFile {
  return StackConfigFile.of(p.pwd, p.stateDir, p.stack);
}

function configList(p: StackPlace, flags: Flags, io: CliIO): number {
  const entries = configFile(p).entries(Boolean(flags['show-secrets']));
  if (flags.json) {
    const out = Object.fromEntries(entries.map((e) => [e.key, e.secret && !flags['show-secrets'] ? { secret: true } : { value: e.value, secret: e.secret }]));
    io.out(`${JSON.stringify(out, null, 2)}\n`);
    return 0;
  }
  const rows = entries.map((e) => [displayKey(e.key, p.project), e.secret && !flags['show-secrets'] ? '[secret]' : e.value]);
  const width = Math.max(3, ...rows.map(([k]) => k.length));
  io.out(`${'KEY'.padEnd(width)}  VALUE\n`);
  for (const [key, value] of rows) io.out(`${key.padEnd(width)}  ${value}\n`);
  return 0;
}

function configGet(p: StackPlace, key: string, flags: Flags, io: CliIO): number {
  const qualified = qualifyKey(key, p.project);
  const entry = configFile(p).get(qualified);
  if (!entry) {
    io.err(`error: configuration key '${qualified}' not found for stack '${p.stack}' (${configFile(p).path})\n`);
    return 1;
  }
  io.out(flags.json ? `${JSON.stringify({ value: entry.value, secret: entry.secret }, null, 2)}\n` : `${entry.value}\n`);
  return 0;
}

async function configSet(p: StackPlace, key: string, value: string | undefined, flags: Flags, io: CliIO): Promise<number> {
  const qualified = qualifyKey(key, p.project);
  let text = value;
  if (text === undefined) {
    const input = await io.readStdin();
    if (input === undefined) {
      throw new UsageError(`config set ${key}: give VALUE, or pipe it in (the runner never prompts): ${selfCommand(p, 'config set')} ${flags.secret ? '--secret ' : ''}${key} < FILE`, 'config set');
    }
    // One trailing line break is the shell's (echo, a file's last line), not the value's.
    text = input.replace(/\r?\n$/, '');
  }
  configFile(p).set(qualified, text, Boolean(flags.secret));
  return 0;
}

function configRemove(p: StackPlace, key: string, io: CliIO): number {
  const qualified = qualifyKey(key, p.project);
  if (!configFile(p).remove(qualified)) io.err(`warning: ${qualified} was not set for stack '${p.stack}'\n`);
  return 0;
}

function stackOutput(p: StackPlace, name: string | undefined, flags: Flags, io: CliIO): number {
  const state = new StateStore(p.stateDir, p.stack).load(p.project);
  const result = formatOutputs(state.outputs, state.outputSecretKeys, { name, json: Boolean(flags.json), showSecrets: Boolean(flags['show-secrets']) });
  if (result.error) {
    io.err(`error: ${result.error}\n`);
    return 1;
  }
  io.out(result.text);
  return 0;
}

function cancel(p: StackPlace, flags: Flags, io: CliIO): number {
  const removed = breakLock(p.stateDir, p.stack, Boolean(flags.yes));
  io.out(
    removed
      ? `The lock of stack ${p.stack} held by ${describeHolder(removed)} was removed. Run \`${selfCommand(p, 'refresh')}\` to read back what that run may have changed.\n`
      : `Stack ${p.stack} is not locked.\n`,
  );
  return 0;
}
