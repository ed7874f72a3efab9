/**
 * The local runner's command line, for a program of this repository or your own compiled program:
 *
 *   node dist/runner/cli.js <preview|up|refresh|destroy> [--refresh] [--expect-no-changes]
 *        [--program dist/examples/quickstart/index.js] [--cwd .] [--project harvester-quickstart] [--stack dev]
 *        [--state .harvester-run] [--config key=value]... [--secret-config key=value]...
 *
 * Exit code 0 when the operation succeeded (and, with --expect-no-changes, planned nothing), else 1.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BANNER, runOperation, type OperationKind } from './operations';

const KINDS: OperationKind[] = ['preview', 'up', 'refresh', 'destroy'];

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
      program: { type: 'string', default: 'dist/examples/quickstart/index.js' },
      cwd: { type: 'string', default: '.' },
      project: { type: 'string', default: 'harvester-quickstart' },
      stack: { type: 'string', default: 'dev' },
      state: { type: 'string', default: '.harvester-run' },
      config: { type: 'string', multiple: true },
      'secret-config': { type: 'string', multiple: true },
    },
  });
  const kind = positionals[0] as OperationKind;
  if (!KINDS.includes(kind)) throw new Error(`usage: harvester-iac-run <${KINDS.join('|')}> [options]; got "${positionals[0] ?? ''}"`);
  const secret = pairs(values['secret-config'], '--secret-config');
  process.stdout.write(`${BANNER}\n\n`);
  const result = await runOperation(
    kind,
    {
      program: resolve(values.program!),
      pwd: resolve(values.cwd!),
      project: values.project!,
      stack: values.stack!,
      stateDir: resolve(values.state!),
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
