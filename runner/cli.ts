#!/usr/bin/env node
/**
 * `harvester-iac-run`: the local runner's command line (the package's bin; `npm run runner` in this repository).
 * USAGE below is what it prints for --help or a wrong command. Exit code 0 when the operation succeeded (and,
 * with --expect-no-changes, planned nothing), else 1.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BANNER, runOperation, type OperationKind } from './operations';
import { programFolder } from './project';

const KINDS: OperationKind[] = ['preview', 'up', 'refresh', 'destroy'];

export const USAGE = `usage: harvester-iac-run <preview|up|refresh|destroy> [options]

Runs the Pulumi program of a folder (default: the current one) on the real @pulumi/pulumi SDK and Pulumi's
real dynamic-provider host, with the stack's state in a local file; no Pulumi CLI or login needed. In a folder
that installed harvester-iac:   npx harvester-iac-run up --refresh

  --refresh               read every resource back first (preview/up). As with the Pulumi CLI, \`up\` heals
                          drift made outside the program only with --refresh, or after \`refresh\`.
  --expect-no-changes     preview: fail when anything would change (a drift gate for CI)
  --cwd DIR               the program's folder (default .): Pulumi.yaml, package.json and node_modules
                          with harvester-iac are looked up here
  --program PATH          the program, relative to --cwd (default: \`main\` of Pulumi.yaml, else the folder,
                          resolved as Pulumi does: package.json \`main\`, else index.js). Compiled JavaScript
                          runs as is; a .ts entry point runs under ts-node.
  --project NAME          default: \`name\` of Pulumi.yaml, else of package.json, else the folder's name
  --stack NAME            default dev
  --state DIR             state folder, relative to --cwd (default .harvester-run): <stack>.json, secrets
                          sealed with the key file <stack>.key beside it
  --config KEY=VALUE      stack config, repeatable (e.g. harvester:context=prod)
  --secret-config KEY=VALUE  secret stack config, repeatable (e.g. harvester:kubeconfig="$(cat kubeconfig)");
                          without harvester:kubeconfig the provider uses $KUBECONFIG
  --help                  this text
`;

function pairs(list: string[] | undefined, flag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of list ?? []) {
    const i = item.indexOf('=');
    if (i <= 0) throw new Error(`${flag} ${item}: expected key=value, e.g. ${flag} harvester:context=prod`);
    out[item.slice(0, i)] = item.slice(i + 1);
  }
  return out;
}

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      refresh: { type: 'boolean' },
      'expect-no-changes': { type: 'boolean' },
      program: { type: 'string' },
      cwd: { type: 'string', default: '.' },
      project: { type: 'string' },
      stack: { type: 'string', default: 'dev' },
      state: { type: 'string', default: '.harvester-run' },
      config: { type: 'string', multiple: true },
      'secret-config': { type: 'string', multiple: true },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const kind = positionals[0] as OperationKind;
  if (!KINDS.includes(kind)) throw new Error(`${USAGE}\ngot "${positionals[0] ?? ''}" instead of one of ${KINDS.join(', ')}`);
  const secret = pairs(values['secret-config'], '--secret-config');
  const pwd = resolve(values.cwd!);
  const folder = programFolder(pwd, { project: values.project, program: values.program });
  process.stdout.write(`${BANNER}\n\n`);
  const result = await runOperation(
    kind,
    {
      program: folder.program,
      typescript: folder.typescript,
      pwd,
      project: folder.project,
      stack: values.stack!,
      stateDir: resolve(pwd, values.state!),
      config: { ...pairs(values.config, '--config'), ...secret },
      secretConfigKeys: Object.keys(secret),
    },
    { refresh: values.refresh, expectNoChanges: values['expect-no-changes'] },
  );
  return result.ok ? 0 : 1;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
