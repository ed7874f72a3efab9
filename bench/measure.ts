/**
 * Timing and memory helpers. The machine is shared, so single timings are noisy: we take the median of
 * several bounded runs, and interleave measurement and baseline where it matters.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Milliseconds since an arbitrary origin, with sub-millisecond resolution. */
export function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** Median of a non-empty list. */
export function median(values: number[]): number {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Wall time of one call of `fn`, in ms. */
export async function timeOnce(fn: () => unknown): Promise<number> {
  const start = nowMs();
  await fn();
  return nowMs() - start;
}

/**
 * Medians of two functions timed in alternation (a, b, a, b, …), so that a burst of load from other work
 * on the machine hits both about equally. `beforeEach` runs untimed before every call (e.g. a full GC, so
 * one call's garbage is not collected on the next call's time).
 */
export async function interleaved(
  a: () => unknown,
  b: () => unknown,
  runs: number,
  warmup = 1,
  beforeEach: () => void = () => {},
): Promise<{ a: number; b: number }> {
  for (let i = 0; i < warmup; i++) {
    await a();
    await b();
  }
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < runs; i++) {
    beforeEach();
    ta.push(await timeOnce(a));
    beforeEach();
    tb.push(await timeOnce(b));
  }
  return { a: median(ta), b: median(tb) };
}

let gcFn: (() => void) | undefined;

/**
 * A full garbage collection. Uses `global.gc` when node runs with --expose-gc; otherwise enables the flag
 * at run time and takes `gc` from a fresh context (V8 installs it there once the flag is on).
 */
export function collectGarbage(passes = 2): void {
  if (!gcFn) {
    const exposed = (globalThis as { gc?: () => void }).gc;
    if (typeof exposed === 'function') {
      gcFn = exposed;
    } else {
      setFlagsFromString('--expose-gc');
      const fromContext: unknown = runInNewContext('typeof gc === "function" ? gc : undefined');
      if (typeof fromContext !== 'function') throw new Error('bench: cannot force garbage collection; run node with --expose-gc');
      gcFn = fromContext as () => void;
    }
  }
  // Two passes by default: the first may only queue weak callbacks and finalisers.
  for (let i = 0; i < passes; i++) gcFn();
}

/** Heap bytes in use after a full collection. */
export function heapUsedAfterGc(): number {
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

/** Wait for the next turn of the event loop (lets queued I/O and setImmediate work run). */
export function tick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
