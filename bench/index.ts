/**
 * `npm run bench`: every benchmark, one line per result with the measured numbers, a ratio against a
 * baseline measured in the same run, the target and PASS/FAIL. Exit code 1 when a target is missed or a
 * benchmark fails to run. Everything runs in this process, on loopback, in well under a minute; every
 * server and watch is closed at the end, so the process exits by itself.
 *
 * `node dist/bench/index.js [name…]` runs only the benchmarks named (see BENCHMARKS).
 */
import { availableParallelism } from 'node:os';
import { nowMs } from './measure';
import { benchEmulatorRead } from './emulator-read';
import { benchHostOverhead } from './host-overhead';
import { benchLoadBalancer } from './load-balancer';
import { benchPhysicalBound } from './physical-bound';
import { benchStackRefresh } from './stack-refresh';
import { benchRefreshOutOfProcess } from './refresh-out-of-process';
import { writeBenchmarksMd } from './benchmarks-md';
import { benchPoolCreate } from './pool-create';
import { startPoolBench, type PoolBench } from './pool-fixture';
import { benchPoolPlan } from './pool-plan';
import { benchPoolRead } from './pool-read';
import { benchProviderCpu } from './provider-cpu';
import { benchUpOutOfProcess } from './up-out-of-process';
import { benchGuestCluster } from './guest-cluster';
import { Reporter, fmt } from './report';
import { benchStoreList } from './store-list';
import { benchStoreMemory } from './store-memory';
import { benchStoreWatch } from './store-watch';

/** A benchmark: standalone, or needing the shared emulator with the machine-pool provider. */
type Benchmark =
  | { name: string; run: (report: Reporter) => Promise<void> }
  | { name: string; emulator: true; run: (bench: PoolBench, report: Reporter) => Promise<void> };

/** Every benchmark, in run order (pure and in-process first, then the ones over HTTP). */
export const BENCHMARKS: Benchmark[] = [
  { name: 'store-memory', run: benchStoreMemory },
  { name: 'store-list', run: benchStoreList },
  { name: 'store-watch', run: benchStoreWatch },
  { name: 'pool-plan', run: benchPoolPlan },
  { name: 'emulator-read', run: benchEmulatorRead },
  { name: 'pool-create', emulator: true, run: benchPoolCreate },
  { name: 'pool-read', emulator: true, run: benchPoolRead },
  { name: 'load-balancer', emulator: true, run: benchLoadBalancer },
  { name: 'host-overhead', run: benchHostOverhead },
  { name: 'physical-bound', run: async (report: Reporter) => { report.csv = (await benchPhysicalBound(report)).csv; } },
  { name: 'stack-refresh', run: benchStackRefresh },
  { name: 'refresh-out-of-process', run: benchRefreshOutOfProcess },
  { name: 'provider-cpu', run: benchProviderCpu },
  { name: 'up-out-of-process', run: benchUpOutOfProcess },
  { name: 'guest-cluster', run: benchGuestCluster },
];

/** Whole-run limit: a hung benchmark must not hang CI. */
const RUN_LIMIT_MS = 600_000;

/** Run the selected benchmarks and report; resolves true when every target was met. */
export async function runBenchmarks(only: string[] = [], report = new Reporter()): Promise<boolean> {
  const unknown = only.filter((n) => !BENCHMARKS.some((b) => b.name === n));
  if (unknown.length) {
    report.error('bench', `unknown benchmark ${unknown.join(', ')}; choose from ${BENCHMARKS.map((b) => b.name).join(', ')}`);
    return false;
  }
  const selected = BENCHMARKS.filter((b) => only.length === 0 || only.includes(b.name));
  const start = nowMs();
  report.info(`harvester-iac benchmarks: node ${process.version}, ${availableParallelism()} CPUs; ratios are measured against same-run baselines`);

  let emulator: PoolBench | undefined;
  try {
    for (const b of selected) {
      try {
        if ('emulator' in b) {
          emulator ??= await startPoolBench();
          await b.run(emulator, report);
        } else {
          await b.run(report);
        }
      } catch (err) {
        report.error(b.name, err);
      }
    }
  } finally {
    await emulator?.stop();
  }

  const failed = report.failures().length + report.errors.length;
  const seconds = (nowMs() - start) / 1000;
  report.info(`${report.results.length} results, ${failed} failed, in ${fmt(seconds, 's')}: ${report.ok() ? 'PASS' : 'FAIL'}`);
  // A full run rewrites BENCHMARKS.md and bench-results.json (a subset leaves them alone).
  if (only.length === 0) writeBenchmarksMd(report, seconds);
  return report.ok();
}

if (require.main === module) {
  const limit = setTimeout(() => {
    console.error(`bench: still running after ${RUN_LIMIT_MS / 1000} s; giving up (a benchmark hung: see the last line above)`);
    process.exit(2);
  }, RUN_LIMIT_MS);
  limit.unref();
  runBenchmarks(process.argv.slice(2)).then(
    (ok) => {
      if (!ok) process.exitCode = 1;
    },
    (err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    },
  );
}
