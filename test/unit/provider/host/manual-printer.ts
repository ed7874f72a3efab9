/**
 * A ProgressPrinter on a manual clock, for the host's progress tests: `advance` moves the clock and runs the
 * held-back prints that fall due; `delays` records each delay a print was held back for.
 */
import { ProgressPrinter } from '../../../../provider/host/progress';

/** Without `intervalMs`, the printer takes its interval from the environment, as in the host. */
export function manualPrinter(options: { intervalMs?: number } = {}) {
  const lines: string[] = [];
  let now = 0;
  const timers: { at: number; run: () => void; cancelled: boolean }[] = [];
  const delays: number[] = [];
  const p = new ProgressPrinter({
    write: (line) => lines.push(line),
    ...('intervalMs' in options ? { intervalMs: options.intervalMs } : {}),
    now: () => now,
    schedule: (run, ms) => {
      delays.push(ms);
      const timer = { at: now + ms, run, cancelled: false };
      timers.push(timer);
      return () => (timer.cancelled = true);
    },
  });
  const advance = (ms: number) => {
    now += ms;
    for (const t of timers.filter((x) => !x.cancelled && x.at <= now)) {
      t.cancelled = true;
      t.run();
    }
  };
  return { p, lines, advance, delays };
}
