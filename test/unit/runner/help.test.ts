/**
 * The runner's help texts (runner/help.ts), from the command and flag table of args.ts: the whole help lists every
 * command with its arguments and summary and says what the exit codes mean; a command's help lists each flag it
 * takes with its short form, its value placeholder and its text, aligned as the Pulumi CLI aligns them.
 */
import assert from 'node:assert/strict';
import { COMMANDS, FLAGS } from '../../../runner/args';
import { usage } from '../../../runner/help';

const command = (name: string) => COMMANDS.find((c) => c.name === name)!;

describe('runner help', () => {
  it('the whole help: usage line, intro with examples, one aligned line per command, exit codes', () => {
    const text = usage();
    assert.ok(text.startsWith('usage: harvester-iac-run <command> [flags]\n\nRuns the Pulumi program of a folder'), text);
    assert.ok(text.includes('\n  npx harvester-iac-run config set --secret harvester:kubeconfig < ~/harvester.yaml\n'));
    assert.ok(text.includes('\nCommands:\n  preview                      show what `up` would change; writes nothing\n'), text);
    assert.ok(text.includes(`\n  config set KEY [VALUE]       ${command('config set').summary}\n`), text);
    assert.ok(text.includes(`\n  stack output [NAME]          ${command('stack output').summary}\n`), text);
    for (const c of COMMANDS) assert.ok(text.includes(`  ${`${c.name}${c.args ? ` ${c.args}` : ''}`.padEnd(28)} ${c.summary}\n`), c.name);
    assert.ok(
      text.endsWith(
        "\n\n`harvester-iac-run <command> --help` lists a command's flags. Exit code: 0 when the command succeeded\n(and, with --expect-no-changes, nothing changed), 1 when it failed, 2 for a command line it does not understand.\n",
      ),
      text,
    );
  });

  it("a command's help: its shape, summary and every flag, short form or indent, placeholder, aligned text", () => {
    const text = usage(command('config set'));
    assert.ok(text.startsWith(`usage: harvester-iac-run config set KEY [VALUE] [flags]\n\n${command('config set').summary}\n\nFlags:\n`), text);
    assert.ok(text.includes(`\n  -C, --cwd DIR                ${FLAGS.cwd.help}\n`), text);
    assert.ok(text.includes(`\n      --state DIR              ${FLAGS.state.help}\n`), text);
    assert.ok(text.includes(`\n      --secret                 ${FLAGS.secret.help}\n`), text);
    assert.ok(text.includes(`\n  -h, --help                   this text\n`), text);
    assert.ok(text.endsWith(`\n      --plaintext              ${FLAGS.plaintext.help}\n`), text);
    assert.equal(text.split('\n').filter((l) => l.startsWith('  -') || l.startsWith('      --')).length, command('config set').flags.length);
    assert.ok(usage(command('up')).startsWith('usage: harvester-iac-run up [flags]\n\ncreate, update and delete'));
  });
});
