/**
 * The runner's command line speaks for itself: every refusal is its own sentence naming the command, the flag and
 * the help to read (exit code 2), never Node's argument-parser text; the Pulumi CLI's flags are accepted where the
 * CLI takes them; --help lists every command and every flag of a command.
 */
import assert from 'node:assert/strict';
import { COMMANDS, FLAGS, keyValuePairs, parseCommandLine, positiveInteger, UsageError } from '../../runner/args';
import { usage } from '../../runner/help';
import { runCli } from '../support/runner-cli';

describe('local runner: the command line', () => {
  const refusal = (argv: string[]) => {
    try {
      parseCommandLine(argv);
    } catch (err) {
      assert.ok(err instanceof UsageError, String(err));
      return err.message;
    }
    assert.fail(`${argv.join(' ')} was accepted`);
  };

  it('refuses, in its own words, what it does not understand', () => {
    assert.equal(refusal(['up', '--foo']), 'up does not take --foo (no such flag); `harvester-iac-run up --help` lists its flags');
    assert.equal(refusal(['preview', '--yes']), 'preview does not take --yes; `harvester-iac-run preview --help` lists its flags');
    assert.equal(refusal(['up', '--stack']), '--stack needs a value: --stack NAME');
    assert.equal(refusal(['up', '--diff=true']), '--diff takes no value (got --diff=true)');
    assert.equal(refusal(['up', 'now']), 'up takes no arguments (got "now"): harvester-iac-run up');
    assert.equal(refusal(['config', 'get']), 'config get is missing an argument: harvester-iac-run config get KEY');
    assert.equal(refusal(['config', 'set', 'a', 'b', 'c']), 'config set takes at most 2 (got "a" "b" "c"): harvester-iac-run config set KEY [VALUE]');
    assert.equal(refusal(['config', 'list']), 'unknown command "config list": the config commands are config, config get, config set, config rm');
    assert.equal(refusal(['stack']), 'unknown command "stack": did you mean `stack output`?');
    assert.match(refusal(['apply']), /^unknown command "apply": the commands are preview, up, refresh, destroy, config, config get, config set, config rm, stack output, cancel/);
    assert.match(refusal([]), /^no command given: the commands are preview, up/);
  });

  it("takes the Pulumi CLI's flags where the CLI takes them, long and short, --flag=value and --flag value", () => {
    const up = parseCommandLine(['up', '-y', '--skip-preview', '--non-interactive', '--diff', '-r', '--stack=prod', '-C', '/tmp/x', '-c', 'a=1', '--config', 'b=2', '-p', '4']);
    assert.equal(up.command?.name, 'up');
    assert.deepEqual(up.flags, { yes: true, 'skip-preview': true, 'non-interactive': true, diff: true, refresh: true, stack: 'prod', cwd: '/tmp/x', config: ['a=1', 'b=2'], parallel: '4' });
    const preview = parseCommandLine(['preview', '--diff', '--refresh', '--expect-no-changes']);
    assert.deepEqual(preview.flags, { diff: true, refresh: true, 'expect-no-changes': true });
    const set = parseCommandLine(['config', 'set', '--secret', 'harvester:kubeconfig', '--', '-starts-with-a-dash']);
    assert.deepEqual([set.command?.name, set.args, set.flags], ['config set', ['harvester:kubeconfig', '-starts-with-a-dash'], { secret: true }]);
    const output = parseCommandLine(['stack', 'output', 'kubeconfig', '-j', '--show-secrets']);
    assert.deepEqual([output.command?.name, output.args, output.flags], ['stack output', ['kubeconfig'], { json: true, 'show-secrets': true }]);
    assert.deepEqual(parseCommandLine(['destroy', '--yes', '--skip-preview']).flags, { yes: true, 'skip-preview': true });
    assert.deepEqual(parseCommandLine(['cancel', '--yes']).flags, { yes: true });
  });

  it('checks flag values: KEY=VALUE pairs and whole numbers', () => {
    assert.deepEqual(keyValuePairs(['harvester:context=prod', 'a=b=c'], 'config'), { 'harvester:context': 'prod', a: 'b=c' });
    assert.throws(() => keyValuePairs(['novalue'], 'config'), /--config novalue: expected KEY=VALUE, e\.g\. --config harvester:context=prod/);
    assert.equal(positiveInteger(undefined, 'parallel', 8), 8);
    assert.equal(positiveInteger('3', 'parallel', 8), 3);
    assert.throws(() => positiveInteger('0', 'parallel', 8), /--parallel 0: expected a whole number of at least 1/);
    assert.throws(() => positiveInteger('two', 'parallel', 8), /--parallel two/);
  });

  it('--help lists every command, and a command\'s --help every flag it takes', () => {
    const all = usage();
    for (const c of COMMANDS) assert.ok(all.includes(`  ${c.name}${c.args ? ` ${c.args}` : ''}`), `${c.name} listed`);
    for (const c of COMMANDS) {
      const text = usage(c);
      assert.ok(text.startsWith(`usage: harvester-iac-run ${c.name}`));
      for (const f of c.flags) assert.ok(text.includes(`--${f}${FLAGS[f].value ? ` ${FLAGS[f].value}` : ''}`), `${c.name} --help lists --${f}`);
    }
  });

  it('exits 2 with the refusal on stderr, 0 with the help on stdout', async () => {
    const bad = await runCli(['up', '--foo']);
    assert.deepEqual([bad.code, bad.stdout], [2, '']);
    assert.equal(bad.stderr, 'error: up does not take --foo (no such flag); `harvester-iac-run up --help` lists its flags\n');
    assert.doesNotMatch(bad.stderr, /ERR_PARSE_ARGS|TypeError|Unknown option/);
    const help = await runCli(['config', 'set', '--help']);
    assert.deepEqual([help.code, help.stderr], [0, '']);
    assert.match(help.stdout, /^usage: harvester-iac-run config set KEY \[VALUE\] \[flags\]/);
    assert.match((await runCli(['--help'])).stdout, /^Commands:$/m);
    assert.equal((await runCli(['config', 'set', '--secret', '--plaintext', 'k', 'v'])).code, 2);
  });
});
