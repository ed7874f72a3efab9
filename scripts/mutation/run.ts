/**
 * `npm run mutate [-- <stryker run options>]`: StrykerJS with stryker.config.json (incremental, so a second run
 * only tests what changed), then the score per folder from its JSON report. Extra options go to Stryker, e.g.
 * `npm run mutate -- --mutate 'provider/client/**\/*.ts'`. `npm run mutate -- --report-only` prints the scores
 * of the last run without running anything. Exit status: Stryker's (non-zero below the break threshold).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { formatScores, readReport, scoresOf } from './summary';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const REPORT = path.join(ROOT, 'reports', 'mutation', 'mutation.json');
const ROLLUPS = ['provider/resources', 'provider', 'emulator'];

function main(argv: string[]): number {
  const reportOnly = argv.includes('--report-only');
  let status = 0;
  const started = Date.now();
  if (!reportOnly) {
    const run = spawnSync('npx', ['stryker', 'run', ...argv], { cwd: ROOT, stdio: 'inherit' });
    if (run.error) throw run.error;
    status = run.status ?? 1;
    process.stdout.write(`\nStryker took ${((Date.now() - started) / 60_000).toFixed(1)} min (exit ${status}).\n`);
  }
  if (!existsSync(REPORT) || (!reportOnly && statSync(REPORT).mtimeMs < started)) {
    process.stderr.write(`No report at ${path.relative(ROOT, REPORT)}: the run did not finish (see Stryker's output above).\n`);
    return status || 1;
  }
  process.stdout.write(`\nMutation score per folder (${path.relative(ROOT, REPORT)}):\n`);
  process.stdout.write(formatScores(scoresOf([readReport(REPORT)], ROOT, ROLLUPS)));
  return status;
}

process.exitCode = main(process.argv.slice(2));
