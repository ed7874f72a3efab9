/**
 * Mutation scores per folder, from StrykerJS JSON reports (mutation-testing-report-schema). The score is
 * Stryker's: detected (killed + timed out) over valid mutants (detected + survived + without coverage);
 * compile errors and ignored mutants (static ones, see stryker.config.json) do not count.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

export type MutantStatus = 'Killed' | 'Survived' | 'NoCoverage' | 'Timeout' | 'CompileError' | 'RuntimeError' | 'Ignored' | 'Pending';

/** The part of a report this module reads. */
export interface MutationReport {
  files: Record<string, { mutants: { status: MutantStatus }[] }>;
}

export interface FolderScore {
  folder: string;
  killed: number;
  timeout: number;
  survived: number;
  noCoverage: number;
  /** Compile and runtime errors: not valid mutants, so not in the score. */
  errors: number;
  ignored: number;
  /** Detected / valid, in percent; undefined when the folder has no valid mutant. */
  score: number | undefined;
}

/** folderOf groups a source path: provider/resources/<resource>, provider/<part>, emulator/<part>. */
export function folderOf(file: string): string {
  const parts = file.split(/[\\/]/);
  const depth = parts[0] === 'provider' && parts[1] === 'resources' ? 3 : 2;
  return parts.slice(0, Math.min(depth, parts.length - 1)).join('/') || '.';
}

function blank(folder: string): FolderScore {
  return { folder, killed: 0, timeout: 0, survived: 0, noCoverage: 0, errors: 0, ignored: 0, score: undefined };
}

function add(into: FolderScore, status: MutantStatus): void {
  if (status === 'Killed') into.killed++;
  else if (status === 'Timeout') into.timeout++;
  else if (status === 'Survived') into.survived++;
  else if (status === 'NoCoverage') into.noCoverage++;
  else if (status === 'CompileError' || status === 'RuntimeError') into.errors++;
  else if (status === 'Ignored') into.ignored++;
}

function finish(s: FolderScore): FolderScore {
  const detected = s.killed + s.timeout;
  const valid = detected + s.survived + s.noCoverage;
  return { ...s, score: valid ? (100 * detected) / valid : undefined };
}

/**
 * scoresOf returns one row per folder, then one per parent prefix asked for in `rollups` (e.g.
 * "provider/resources"), then "all". Paths are made relative to `root` when absolute. A file found in several
 * reports counts once: the last report wins.
 */
export function scoresOf(reports: MutationReport[], root: string, rollups: string[] = []): FolderScore[] {
  const files = new Map<string, MutantStatus[]>();
  for (const report of reports) {
    for (const [file, { mutants }] of Object.entries(report.files)) {
      const rel = path.isAbsolute(file) ? path.relative(root, file) : file;
      files.set(rel.split(path.sep).join('/'), mutants.map((m) => m.status));
    }
  }
  const folders = new Map<string, FolderScore>();
  const extra = new Map(rollups.map((r) => [r, blank(r)]));
  const all = blank('all');
  for (const [file, statuses] of files) {
    const folder = folderOf(file);
    const row = folders.get(folder) ?? blank(folder);
    folders.set(folder, row);
    for (const status of statuses) {
      add(row, status);
      add(all, status);
      for (const [prefix, r] of extra) if (file.startsWith(`${prefix}/`)) add(r, status);
    }
  }
  return [...[...folders.values()].sort((a, b) => a.folder.localeCompare(b.folder)), ...extra.values(), all].map(finish);
}

/** formatScores renders the rows as a fixed-width table. */
export function formatScores(rows: FolderScore[]): string {
  const head = ['folder', 'score', 'killed', 'timeout', 'survived', 'no cov', 'errors', 'ignored'];
  const body = rows.map((r) => [
    r.folder,
    r.score === undefined ? '-' : r.score.toFixed(2),
    ...[r.killed, r.timeout, r.survived, r.noCoverage, r.errors, r.ignored].map(String),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(head), ...body.map(line)].join('\n') + '\n';
}

/** readReport parses one Stryker JSON report, naming the file when it is not one. */
export function readReport(file: string): MutationReport {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<MutationReport>;
  if (!parsed.files || typeof parsed.files !== 'object') {
    throw new Error(`${file} is not a StrykerJS JSON report (no "files"): run \`npm run mutate\` first`);
  }
  return parsed as MutationReport;
}
