/**
 * The benchmark reporter. Every benchmark compares a measurement with a baseline measured in the same run
 * (so a slow or busy machine moves both) and states the ratio against a target. One line per result:
 *
 *   pool read, 50 VMs: 2 requests / 100 naive GETs = 0.02x (target ≤ 0.05x) PASS
 */

/** One benchmark result: what was measured, the same-run baseline, and the target ratio. */
export interface BenchResult {
  /** What was measured, e.g. "pool read, 50 VMs". */
  name: string;
  /** The measurement, with its unit, e.g. "2 requests" or "3.1 ms". */
  measured: string;
  /** The baseline, with its unit and what it is, e.g. "100 naive GETs". */
  baseline: string;
  /** measured / baseline. */
  ratio: number;
  /** The ratio must not exceed this. */
  target: number;
  /** Extra facts printed after the verdict (throughput, absolute times). */
  note?: string;
}

/** Number with a sensible amount of digits for a report line. */
export function fmt(value: number, unit = ''): string {
  const abs = Math.abs(value);
  const text = abs >= 100 ? value.toFixed(0) : abs >= 10 ? value.toFixed(1) : abs >= 1 ? value.toFixed(2) : value.toFixed(3);
  return unit ? `${text} ${unit}` : text;
}

/** Ratio with two significant decimals, e.g. 0.02x, 1.00x, 0.0042x. */
export function fmtRatio(ratio: number): string {
  if (!Number.isFinite(ratio)) return String(ratio);
  if (ratio !== 0 && Math.abs(ratio) < 0.01) return `${ratio.toPrecision(2)}x`;
  return `${ratio.toFixed(2)}x`;
}

/** Whether a result meets its target. */
export function passes(r: BenchResult): boolean {
  return Number.isFinite(r.ratio) && r.ratio <= r.target;
}

/** The report line of one result. */
export function formatResult(r: BenchResult): string {
  const verdict = passes(r) ? 'PASS' : 'FAIL';
  const note = r.note ? ` [${r.note}]` : '';
  return `${r.name}: ${r.measured} / ${r.baseline} = ${fmtRatio(r.ratio)} (target ≤ ${fmtRatio(r.target)}) ${verdict}${note}`;
}

/** Collects results, printing each line as soon as it is known. */
export class Reporter {
  readonly results: BenchResult[] = [];
  readonly errors: string[] = [];
  /** Figure 1 as CSV rows (header first), when physical-bound ran. */
  csv: string[] = [];

  constructor(private readonly print: (line: string) => void = (line) => console.log(line)) {}

  /** Record and print one result. */
  add(r: BenchResult): void {
    this.results.push(r);
    this.print(formatResult(r));
  }

  /** Record a benchmark that could not run to the end (counts as a failure). */
  error(benchmark: string, err: unknown): void {
    const why = err instanceof Error ? err.stack ?? err.message : String(err);
    const line = `${benchmark}: ERROR ${why}`;
    this.errors.push(line);
    this.print(line);
  }

  /** Print a section heading or an informational line. */
  info(line: string): void {
    this.print(line);
  }

  /** Results that missed their target. */
  failures(): BenchResult[] {
    return this.results.filter((r) => !passes(r));
  }

  /** True when every result passed and no benchmark errored. */
  ok(): boolean {
    return this.errors.length === 0 && this.failures().length === 0;
  }
}
