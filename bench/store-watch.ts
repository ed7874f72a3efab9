/**
 * Benchmark: watch fan-out in the emulator store. N watchers of VirtualMachines each receive every one of
 * M writes (label merge patches); the cost of delivering one event to one watcher (a copy of the object
 * handed to its callback) is compared with the cost of one write, both measured in the same run:
 *
 *   per delivered event = (time of M writes with N watchers − time of M writes with none) / (N × M)
 *   per write           =  time of M writes with none / M
 *
 * Target: delivering an event to a watcher costs at most a tenth of a write (about 0.02x when written), so
 * a controller-heavy emulator (every simulated controller watches) is bounded by its writes, not by its
 * watchers.
 */
import { KINDS } from '../emulator/kinds';
import type { ObjectStore } from '../emulator/api/store';
import type { WatchHandle } from '../emulator/api/types';
import { median, nowMs } from './measure';
import { fmt, type Reporter } from './report';
import { createVms, newBenchStore, vmBodies } from './store-fixture';

const WATCHERS = 50;
const WRITES = 200;
const VMS = 200;
const ROUNDS = 3;

/** Time (ms) of WRITES label patches plus delivery of every event they cause. */
async function timedWrites(store: ObjectStore, names: string[], round: string): Promise<number> {
  const start = nowMs();
  for (let i = 0; i < WRITES; i++) {
    const patch = { metadata: { labels: { 'bench-round': `${round}-${i}` } } };
    store.patch(KINDS.virtualMachine, 'default', names[i % names.length], 'merge', patch, { fieldManager: 'bench' });
  }
  await store.settle();
  return nowMs() - start;
}

/** Run the watch fan-out benchmark (≈2 s). */
export async function benchStoreWatch(report: Reporter): Promise<void> {
  const store = newBenchStore();
  const bodies = vmBodies(VMS, 'watched');
  createVms(store, bodies);
  await store.settle();
  const names = bodies.map((b) => b.metadata.name as string);

  // Warm-up round of each, untimed.
  await timedWrites(store, names, 'warm');
  const without: number[] = [];
  const withWatchers: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    without.push(await timedWrites(store, names, `plain${r}`));

    const received = new Array<number>(WATCHERS).fill(0);
    const handles: WatchHandle[] = [];
    for (let w = 0; w < WATCHERS; w++) {
      // From the current resourceVersion: no synthetic ADDED events, only the writes below.
      handles.push(store.watch(KINDS.virtualMachine, { namespace: 'default', resourceVersion: store.resourceVersion() }, (e) => {
        if (e.type === 'MODIFIED') received[w]++;
      }));
    }
    try {
      withWatchers.push(await timedWrites(store, names, `watched${r}`));
    } finally {
      for (const h of handles) h.stop();
    }
    const wrong = received.findIndex((n) => n !== WRITES);
    if (wrong >= 0) throw new Error(`store watch: watcher ${wrong} received ${received[wrong]} events, expected ${WRITES}`);
  }

  const t0 = median(without);
  const tN = median(withWatchers);
  const perWrite = t0 / WRITES;
  const perEvent = Math.max(0, tN - t0) / (WATCHERS * WRITES);
  report.add({
    name: `store watch fan-out, ${WATCHERS} watchers × ${WRITES} writes`,
    measured: `${fmt(perEvent * 1000, 'µs')} per delivered event`,
    baseline: `${fmt(perWrite * 1000, 'µs')} per write`,
    ratio: perEvent / perWrite,
    target: 0.1,
    note: `${fmt((WATCHERS * WRITES) / (Math.max(tN - t0, 1e-3) / 1000), 'events/s')} delivered; ${fmt(tN, 'ms')} with watchers, ${fmt(t0, 'ms')} without`,
  });
}
