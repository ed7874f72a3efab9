/**
 * The runner's command line, parsed by hand so that every mistake is told in the runner's own words (which
 * command, which flag, what it expects, where the help is) rather than as Node's parseArgs text. The commands and
 * flags are named as the Pulumi CLI names them (docs/guides/local-runner-vs-pulumi-cli.md lists each, the same
 * or different); help.ts prints them from the same table.
 */

export type FlagKind = 'boolean' | 'string' | 'list';

export interface FlagSpec {
  name: string;
  short?: string;
  kind: FlagKind;
  /** Placeholder of the value in the help ("DIR", "KEY=VALUE"). */
  value?: string;
  help: string;
}

export interface CommandSpec {
  /** "up", "config set", "stack output". */
  name: string;
  /** The positional arguments, as the help shows them ("KEY [VALUE]"). */
  args: string;
  minArgs: number;
  maxArgs: number;
  summary: string;
  flags: string[];
}

/** A command line the runner refuses: printed with the command's help hint, exit code 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

export const FLAGS: Record<string, FlagSpec> = {
  cwd: { name: 'cwd', short: 'C', kind: 'string', value: 'DIR', help: "the program's folder (default .): Pulumi.yaml, Pulumi.<stack>.yaml, package.json and node_modules with harvester-iac are looked up here" },
  stack: { name: 'stack', short: 's', kind: 'string', value: 'NAME', help: 'the stack (default dev)' },
  state: { name: 'state', kind: 'string', value: 'DIR', help: 'state folder, relative to --cwd (default .harvester-run): <stack>.json, the key <stack>.key that seals its secrets and those of Pulumi.<stack>.yaml, the lock <stack>.lock' },
  project: { name: 'project', kind: 'string', value: 'NAME', help: "default: `name` of Pulumi.yaml, else of package.json, else the folder's name" },
  program: { name: 'program', kind: 'string', value: 'PATH', help: 'the program, relative to --cwd (default: `main` of Pulumi.yaml, else the folder: package.json `main`, else index.js); a .ts entry point runs under ts-node' },
  config: { name: 'config', short: 'c', kind: 'list', value: 'KEY=VALUE', help: 'stack config for this run only, over Pulumi.<stack>.yaml (repeatable; not saved, unlike the CLI\'s --config)' },
  'secret-config': { name: 'secret-config', kind: 'list', value: 'KEY=VALUE', help: 'secret stack config for this run only (repeatable); prefer `config set --secret`, which keeps the value out of the process list' },
  refresh: { name: 'refresh', short: 'r', kind: 'boolean', help: 'read every resource back first: `up` heals drift made outside the program only with it, or after `refresh`' },
  'expect-no-changes': { name: 'expect-no-changes', kind: 'boolean', help: 'fail (exit 1) when anything would change or changed: the drift gate' },
  diff: { name: 'diff', kind: 'boolean', help: 'show every changed property with its whole value (without it, long values are cut at 100 characters and at most 20 lines are shown per resource)' },
  yes: { name: 'yes', short: 'y', kind: 'boolean', help: 'accepted for the Pulumi CLI\'s sake: the runner never asks for confirmation' },
  'skip-preview': { name: 'skip-preview', short: 'f', kind: 'boolean', help: 'accepted for the Pulumi CLI\'s sake: the runner never runs a separate preview first' },
  'non-interactive': { name: 'non-interactive', kind: 'boolean', help: 'accepted for the Pulumi CLI\'s sake: the runner never prompts' },
  parallel: { name: 'parallel', short: 'p', kind: 'string', value: 'N', help: 'resources read at once by a refresh (default 8)' },
  secret: { name: 'secret', kind: 'boolean', help: 'seal the value with the stack\'s key (Pulumi.<stack>.yaml holds `secure:` ciphertext)' },
  plaintext: { name: 'plaintext', kind: 'boolean', help: 'store the value as plain text (the default)' },
  json: { name: 'json', short: 'j', kind: 'boolean', help: 'print JSON' },
  'show-secrets': { name: 'show-secrets', kind: 'boolean', help: 'print secret values in plain text (otherwise [secret])' },
  help: { name: 'help', short: 'h', kind: 'boolean', help: 'this text' },
};

const COMMON = ['cwd', 'stack', 'state', 'project', 'non-interactive', 'help'];
const RUN = [...COMMON, 'program', 'config', 'secret-config', 'diff'];

export const COMMANDS: CommandSpec[] = [
  { name: 'preview', args: '', minArgs: 0, maxArgs: 0, summary: 'show what `up` would change; writes nothing', flags: [...RUN, 'refresh', 'expect-no-changes', 'parallel'] },
  { name: 'up', args: '', minArgs: 0, maxArgs: 0, summary: 'create, update and delete resources to match the program', flags: [...RUN, 'refresh', 'expect-no-changes', 'parallel', 'yes', 'skip-preview'] },
  { name: 'refresh', args: '', minArgs: 0, maxArgs: 0, summary: 'read every resource back from the cluster into the state', flags: [...RUN, 'expect-no-changes', 'parallel', 'yes', 'skip-preview'] },
  { name: 'destroy', args: '', minArgs: 0, maxArgs: 0, summary: 'delete every resource of the stack, newest first', flags: [...RUN, 'refresh', 'parallel', 'yes', 'skip-preview'] },
  { name: 'config', args: '', minArgs: 0, maxArgs: 0, summary: "list the stack's config (Pulumi.<stack>.yaml); secrets show as [secret]", flags: [...COMMON, 'json', 'show-secrets'] },
  { name: 'config get', args: 'KEY', minArgs: 1, maxArgs: 1, summary: 'print one config value (a secret in plain text, as `pulumi config get` does)', flags: [...COMMON, 'json'] },
  { name: 'config set', args: 'KEY [VALUE]', minArgs: 1, maxArgs: 2, summary: 'set a config value; without VALUE it is read from standard input (e.g. `< kubeconfig`)', flags: [...COMMON, 'secret', 'plaintext'] },
  { name: 'config rm', args: 'KEY', minArgs: 1, maxArgs: 1, summary: 'remove a config value', flags: COMMON },
  { name: 'stack output', args: '[NAME]', minArgs: 0, maxArgs: 1, summary: "print the stack's outputs of the last `up` (or one of them); secrets show as [secret]", flags: [...COMMON, 'json', 'show-secrets'] },
  { name: 'cancel', args: '', minArgs: 0, maxArgs: 0, summary: "remove the stack's lock left by a run that no longer runs (--yes: whoever holds it)", flags: [...COMMON, 'yes'] },
];

export interface ParsedCommandLine {
  command: CommandSpec | undefined;
  args: string[];
  flags: Record<string, string | boolean | string[] | undefined>;
}

const PROGRAM = 'harvester-iac-run';

function findCommand(words: string[]): { spec: CommandSpec; used: number } | undefined {
  for (const used of [2, 1]) {
    const name = words.slice(0, used).join(' ');
    const spec = COMMANDS.find((c) => c.name === name);
    if (spec && words.length >= used) return { spec, used };
  }
  return undefined;
}

/** parseCommandLine: the command, its positional arguments and its flags, or a UsageError saying what is wrong. */
export function parseCommandLine(argv: readonly string[]): ParsedCommandLine {
  const words: string[] = [];
  const given: { token: string; value?: string; inline: boolean }[] = [];
  let afterDashes = false;
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i];
    if (afterDashes || token === '-' || !token.startsWith('-')) {
      words.push(token);
    } else if (token === '--') {
      afterDashes = true;
    } else {
      const eq = token.startsWith('--') ? token.indexOf('=') : -1;
      const name = eq > 0 ? token.slice(0, eq) : token;
      if (eq > 0) given.push({ token: name, value: token.slice(eq + 1), inline: true });
      else if (flagSpec(name) && flagSpec(name)!.kind !== 'boolean' && i + 1 < argv.length) given.push({ token: name, value: argv[++i], inline: false });
      else given.push({ token: name, inline: false });
    }
  }
  const wantsHelp = given.some((f) => f.token === '--help' || f.token === '-h');
  if (words.length === 0 && wantsHelp) return { command: undefined, args: [], flags: { help: true } };
  const found = findCommand(words);
  if (!found) {
    const family = COMMANDS.filter((c) => c.name.startsWith(`${words[0]} `)).map((c) => c.name);
    if (family.length) throw new UsageError(`unknown command "${words.join(' ')}": did you mean ${family.map((c) => `\`${c}\``).join(' or ')}?`);
    const known = COMMANDS.map((c) => c.name).join(', ');
    throw new UsageError(words.length ? `unknown command "${words.join(' ')}": the commands are ${known} (\`${PROGRAM} --help\` lists them)` : `no command given: the commands are ${known} (\`${PROGRAM} --help\` lists them)`);
  }
  const { spec, used } = found;
  const flags: ParsedCommandLine['flags'] = {};
  for (const f of given) {
    const flag = flagSpec(f.token);
    if (!flag || !spec.flags.includes(flag.name)) {
      throw new UsageError(`${spec.name} does not take ${f.token}${flag ? '' : ' (no such flag)'}; \`${PROGRAM} ${spec.name} --help\` lists its flags`, spec.name);
    }
    if (flag.kind === 'boolean') {
      if (f.inline) throw new UsageError(`--${flag.name} takes no value (got ${f.token}=${f.value})`, spec.name);
      flags[flag.name] = true;
    } else if (f.value === undefined) {
      throw new UsageError(`--${flag.name} needs a value: --${flag.name} ${flag.value}`, spec.name);
    } else if (flag.kind === 'list') {
      flags[flag.name] = [...((flags[flag.name] as string[] | undefined) ?? []), f.value];
    } else {
      flags[flag.name] = f.value;
    }
  }
  const args = words.slice(used);
  const subcommands = COMMANDS.filter((c) => c.name.startsWith(`${spec.name} `)).map((c) => c.name.slice(spec.name.length + 1));
  if (args.length > spec.maxArgs && subcommands.length) {
    throw new UsageError(`unknown command "${spec.name} ${args[0]}": the ${spec.name} commands are ${[spec.name, ...subcommands.map((s) => `${spec.name} ${s}`)].join(', ')}`, spec.name);
  }
  if (!flags.help && (args.length < spec.minArgs || args.length > spec.maxArgs)) {
    const shape = `${PROGRAM} ${spec.name}${spec.args ? ` ${spec.args}` : ''}`;
    const what =
      args.length < spec.minArgs
        ? 'is missing an argument'
        : `takes ${spec.maxArgs === 0 ? 'no arguments' : `at most ${spec.maxArgs}`} (got ${args.map((a) => JSON.stringify(a)).join(' ')})`;
    throw new UsageError(`${spec.name} ${what}: ${shape}`, spec.name);
  }
  return { command: spec, args, flags };
}

function flagSpec(token: string): FlagSpec | undefined {
  if (token.startsWith('--')) return FLAGS[token.slice(2)];
  if (/^-[A-Za-z]$/.test(token)) return Object.values(FLAGS).find((f) => f.short === token.slice(1));
  return undefined;
}

/** pairs: `--config KEY=VALUE` items as a record; a UsageError names the bad item. */
export function keyValuePairs(list: readonly string[] | undefined, flag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of list ?? []) {
    const i = item.indexOf('=');
    if (i <= 0) throw new UsageError(`--${flag} ${item}: expected KEY=VALUE, e.g. --${flag} harvester:context=prod`);
    out[item.slice(0, i)] = item.slice(i + 1);
  }
  return out;
}

/** A positive integer flag value, or a UsageError. */
export function positiveInteger(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${flag} ${value}: expected a whole number of at least 1`);
  return n;
}
