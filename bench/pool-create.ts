/**
 * Benchmark: creating a 10-VM pool (every VM Running with an IPv4 address) against the sum of ten
 * serial creates of one-VM pools, in the same run on the same emulator (small simulated boot delays,
 * see BENCH_DELAYS). A pool creates its VMs in parallel (bounded) and waits for all of them with one
 * watch, so it should cost far less than one VM after another.
 *
 * Target: the 10-VM pool takes at most half the time of the ten serial creates.
 */
import { nowMs } from './measure';
import type { PoolBench } from './pool-fixture';
import { fmt, type Reporter } from './report';

const VMS = 10;

/** Wall time (ms) of the provider's create of a checked pool; inputs are checked before timing. */
async function timedCreate(bench: PoolBench, name: string, count: number): Promise<number> {
  const inputs = await bench.inputs(name, count);
  const start = nowMs();
  const created = await bench.provider.create(inputs);
  const ms = nowMs() - start;
  if (created.outs?.readyCount !== count) throw new Error(`pool create, ${name}: ${created.outs?.readyCount} of ${count} VMs ready`);
  return ms;
}

/** Run the pool create benchmark on a running emulator (≈4 s). */
export async function benchPoolCreate(bench: PoolBench, report: Reporter): Promise<void> {
  // Warm up connections, JIT and the emulator's controllers; not timed.
  await timedCreate(bench, 'create-warmup', 1);

  let serial = 0;
  for (let i = 0; i < VMS; i++) serial += await timedCreate(bench, `create-serial-${i}`, 1);
  const pool = await timedCreate(bench, `create-pool-${VMS}`, VMS);

  report.add({
    name: `pool create, ${VMS} VMs`,
    measured: fmt(pool, 'ms'),
    baseline: `${fmt(serial, 'ms')} for ${VMS} serial 1-VM creates`,
    ratio: pool / serial,
    target: 0.5,
  });
}
