/**
 * The runner's help texts, from the command and flag table of args.ts: `harvester-iac-run --help` lists the
 * commands, `harvester-iac-run <command> --help` one command with its flags.
 */
import { COMMANDS, FLAGS, type CommandSpec } from './args';

const INTRO = `Runs the Pulumi program of a folder (default: the current one) on the real @pulumi/pulumi SDK and Pulumi's
real dynamic-provider host, with the stack's state in a local file; no Pulumi CLI or login needed. Commands and
flags are named as the Pulumi CLI's (docs/guides/local-runner-vs-pulumi-cli.md says where they differ).
In a folder that installed harvester-iac:

  npx harvester-iac-run config set --secret harvester:kubeconfig < ~/harvester.yaml
  npx harvester-iac-run preview --diff
  npx harvester-iac-run up --yes
  npx harvester-iac-run stack output --json
`;

function flagLines(names: readonly string[]): string {
  return names
    .map((name) => FLAGS[name])
    .map((f) => {
      const left = `${f.short ? `-${f.short}, ` : '    '}--${f.name}${f.value ? ` ${f.value}` : ''}`;
      return `  ${left.padEnd(28)} ${f.help}`;
    })
    .join('\n');
}

/** usage: the whole help (no command) or one command's. */
export function usage(command?: CommandSpec): string {
  if (!command) {
    const lines = COMMANDS.map((c) => `  ${`${c.name}${c.args ? ` ${c.args}` : ''}`.padEnd(28)} ${c.summary}`);
    return `usage: harvester-iac-run <command> [flags]\n\n${INTRO}\nCommands:\n${lines.join('\n')}\n\n\`harvester-iac-run <command> --help\` lists a command's flags. Exit code: 0 when the command succeeded\n(and, with --expect-no-changes, nothing changed), 1 when it failed, 2 for a command line it does not understand.\n`;
  }
  return `usage: harvester-iac-run ${command.name}${command.args ? ` ${command.args}` : ''} [flags]\n\n${command.summary}\n\nFlags:\n${flagLines(command.flags)}\n`;
}
