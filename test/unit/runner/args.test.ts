/**
 * The runner's command line, parsed in process (runner/args.ts): what each token becomes, and every refusal in the
 * runner's own words, naming the command, the flag, what it expects and where the help is (exit code 2 through
 * cli.ts). test/runner/command-line.test.ts pins the same promises through the bin; these pin each branch.
 */
import assert from 'node:assert/strict';
import { COMMANDS, FLAGS, keyValuePairs, parseCommandLine, positiveInteger, UsageError } from '../../../runner/args';

/** The UsageError a command line is refused with. */
function refusal(argv: string[]): UsageError {
  try {
    parseCommandLine(argv);
  } catch (err) {
    assert.ok(err instanceof UsageError, String(err));
    return err;
  }
  assert.fail(`${argv.join(' ')} was accepted`);
}

describe('runner args: parseCommandLine', () => {
  it('finds one- and two-word commands and gives the rest as positional arguments', () => {
    assert.deepEqual(parseCommandLine(['config']), { command: COMMANDS.find((c) => c.name === 'config'), args: [], flags: {} });
    const set = parseCommandLine(['config', 'set', 'k', 'v']);
    assert.equal(set.command?.name, 'config set');
    assert.deepEqual(set.args, ['k', 'v']);
    const output = parseCommandLine(['stack', 'output']);
    assert.deepEqual([output.command?.name, output.args], ['stack output', []]);
    assert.deepEqual(parseCommandLine(['stack', 'output', 'ip']).args, ['ip']);
  });

  it('takes "-" as a word and everything after "--" as words, dashes and all', () => {
    assert.deepEqual(parseCommandLine(['config', 'set', 'k', '-']).args, ['k', '-']);
    const set = parseCommandLine(['config', 'set', '--', 'k', '--secret']);
    assert.deepEqual([set.args, set.flags], [['k', '--secret'], {}]);
  });

  it('reads a value inline (--flag=value, the value may hold "=") or from the next token', () => {
    assert.deepEqual(parseCommandLine(['up', '--stack=a=b']).flags, { stack: 'a=b' });
    assert.deepEqual(parseCommandLine(['up', '--stack=']).flags, { stack: '' });
    assert.deepEqual(parseCommandLine(['up', '--stack', 'prod']).flags, { stack: 'prod' });
    assert.deepEqual(parseCommandLine(['up', '-s', '--diff']).flags, { stack: '--diff' });
    assert.deepEqual(parseCommandLine(['up', '--state', 's', '--project', 'p', '--program', 'x.js', '-p', '2']).flags, { state: 's', project: 'p', program: 'x.js', parallel: '2' });
  });

  it('a boolean flag takes no value: the next token stays a word', () => {
    const set = parseCommandLine(['config', 'set', '--secret', 'k', 'v']);
    assert.deepEqual([set.args, set.flags], [['k', 'v'], { secret: true }]);
    assert.deepEqual(parseCommandLine(['config', '--show-secrets', '--json']).flags, { 'show-secrets': true, json: true });
  });

  it('collects a list flag in order, long and short forms together', () => {
    const up = parseCommandLine(['up', '-c', 'a=1', '--config=b=2', '--config', 'c=3', '--secret-config', 's=1']);
    assert.deepEqual(up.flags, { config: ['a=1', 'b=2', 'c=3'], 'secret-config': ['s=1'] });
  });

  it('knows every short flag, and -x is a flag only for one letter', () => {
    for (const f of Object.values(FLAGS).filter((x) => x.short)) {
      const command = COMMANDS.find((c) => c.flags.includes(f.name))!;
      const argv = [...command.name.split(' '), `-${f.short}`, ...(f.kind === 'boolean' ? [] : ['v=1'])];
      const flags = parseCommandLine([...argv, ...(f.name === 'help' ? [] : Array(command.minArgs).fill('k'))]).flags;
      assert.deepEqual(flags[f.name], f.kind === 'boolean' ? true : f.kind === 'list' ? ['v=1'] : 'v=1', f.name);
    }
    assert.equal(refusal(['up', '-yr']).message, 'up does not take -yr (no such flag); `harvester-iac-run up --help` lists its flags');
    assert.equal(refusal(['up', '-s=prod']).message, 'up does not take -s=prod (no such flag); `harvester-iac-run up --help` lists its flags');
  });

  it('--help alone, or -h, asks for the whole help; with a command, for its help whatever its arguments', () => {
    assert.deepEqual(parseCommandLine(['--help']), { command: undefined, args: [], flags: { help: true } });
    assert.deepEqual(parseCommandLine(['-h']), { command: undefined, args: [], flags: { help: true } });
    const get = parseCommandLine(['config', 'get', '--help']);
    assert.deepEqual([get.command?.name, get.args, get.flags], ['config get', [], { help: true }]);
    assert.deepEqual(parseCommandLine(['up', 'now', '-h']).args, ['now']);
  });

  it('refuses an unknown command: the family it may belong to, else every command and where the help is', () => {
    const known = 'preview, up, refresh, destroy, config, config get, config set, config rm, stack output, cancel';
    assert.equal(refusal(['stack']).message, 'unknown command "stack": did you mean `stack output`?');
    assert.equal(refusal(['stack', 'outputs']).message, 'unknown command "stack outputs": did you mean `stack output`?');
    assert.equal(refusal(['apply', 'now']).message, `unknown command "apply now": the commands are ${known} (\`harvester-iac-run --help\` lists them)`);
    assert.equal(refusal([]).message, `no command given: the commands are ${known} (\`harvester-iac-run --help\` lists them)`);
    assert.equal(refusal(['--diff']).message, `no command given: the commands are ${known} (\`harvester-iac-run --help\` lists them)`);
    assert.equal(refusal(['apply']).command, undefined);
  });

  it('refuses a flag the command does not take, saying whether the flag exists at all', () => {
    const unknown = refusal(['up', '--foo']);
    assert.equal(unknown.message, 'up does not take --foo (no such flag); `harvester-iac-run up --help` lists its flags');
    assert.equal(unknown.command, 'up');
    assert.equal(unknown.name, 'UsageError');
    assert.equal(refusal(['config', 'rm', 'k', '--secret']).message, 'config rm does not take --secret; `harvester-iac-run config rm --help` lists its flags');
    assert.equal(refusal(['preview', '-y']).message, 'preview does not take -y; `harvester-iac-run preview --help` lists its flags');
    assert.equal(refusal(['up', '--=x']).message, 'up does not take -- (no such flag); `harvester-iac-run up --help` lists its flags');
  });

  it('refuses a value given to a boolean flag, and a value-taking flag without one, showing its placeholder', () => {
    const inline = refusal(['up', '--yes=no']);
    assert.equal(inline.message, '--yes takes no value (got --yes=no)');
    assert.equal(inline.command, 'up');
    const missing = refusal(['up', '--config']);
    assert.equal(missing.message, '--config needs a value: --config KEY=VALUE');
    assert.equal(missing.command, 'up');
    assert.equal(refusal(['up', '-C']).message, '--cwd needs a value: --cwd DIR');
  });

  it('refuses a word after a command that has subcommands, listing them', () => {
    const err = refusal(['config', 'list']);
    assert.equal(err.message, 'unknown command "config list": the config commands are config, config get, config set, config rm');
    assert.equal(err.command, 'config');
    assert.equal(refusal(['config', 'list', '--help']).message, err.message);
  });

  it('refuses too few or too many arguments with the command\'s shape', () => {
    const none = refusal(['up', 'now', 'please']);
    assert.equal(none.message, 'up takes no arguments (got "now" "please"): harvester-iac-run up');
    assert.equal(none.command, 'up');
    assert.equal(refusal(['stack', 'output', 'a', 'b']).message, 'stack output takes at most 1 (got "a" "b"): harvester-iac-run stack output [NAME]');
    assert.equal(refusal(['config', 'set', 'a', 'b', 'c']).message, 'config set takes at most 2 (got "a" "b" "c"): harvester-iac-run config set KEY [VALUE]');
    assert.equal(refusal(['config', 'rm']).message, 'config rm is missing an argument: harvester-iac-run config rm KEY');
    assert.equal(refusal(['cancel', 'x']).message, 'cancel takes no arguments (got "x"): harvester-iac-run cancel');
  });
});

describe('runner args: flag values', () => {
  it('keyValuePairs splits at the first "=", keeps empty values, and names the flag of a bad item', () => {
    assert.deepEqual(keyValuePairs(undefined, 'config'), {});
    assert.deepEqual(keyValuePairs(['a=', 'b=x=y', 'a=2'], 'config'), { a: '2', b: 'x=y' });
    const noEquals = (() => {
      try {
        keyValuePairs(['ok=1', 'bad'], 'secret-config');
      } catch (err) {
        return err;
      }
    })();
    assert.ok(noEquals instanceof UsageError);
    assert.equal(noEquals.message, '--secret-config bad: expected KEY=VALUE, e.g. --secret-config harvester:context=prod');
    assert.throws(() => keyValuePairs(['=value'], 'config'), { message: '--config =value: expected KEY=VALUE, e.g. --config harvester:context=prod' });
  });

  it('positiveInteger: the fallback when absent, whole numbers from 1, and a refusal naming the flag otherwise', () => {
    assert.equal(positiveInteger(undefined, 'parallel', 8), 8);
    assert.equal(positiveInteger('1', 'parallel', 8), 1);
    assert.equal(positiveInteger('16', 'parallel', 8), 16);
    for (const bad of ['0', '-2', '1.5', 'two', '']) {
      assert.throws(() => positiveInteger(bad, 'parallel', 8), (err: unknown) => err instanceof UsageError && err.message === `--parallel ${bad}: expected a whole number of at least 1`, bad);
    }
  });

  it('every flag a command lists exists, and every flag is taken by some command', () => {
    for (const c of COMMANDS) for (const f of c.flags) assert.ok(FLAGS[f], `${c.name}: ${f}`);
    for (const f of Object.keys(FLAGS)) assert.ok(COMMANDS.some((c) => c.flags.includes(f)), f);
    for (const [key, f] of Object.entries(FLAGS)) assert.equal(f.name, key);
  });
});
