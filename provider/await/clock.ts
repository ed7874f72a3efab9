/**
 * The time source of waits. Structurally the same as the emulator's Clock (emulator/clock.ts), so tests can
 * pass a ManualClock and advance time instead of sleeping.
 */

/** now / setTimeout / clearTimeout, injectable. */
export interface Clock {
  now(): Date;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
}

/** Real time. Timers keep the process alive (a script awaiting a wait must not exit mid-way). */
export const systemClock: Clock = {
  now: () => new Date(),
  setTimeout(fn, ms) {
    return setTimeout(fn, Math.max(0, ms));
  },
  clearTimeout(timer) {
    clearTimeout(timer as NodeJS.Timeout);
  },
};

/** Go-style duration for messages: 45s, 2m30s, 10m0s, 1h0m0s, 1.5s, 250ms. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const totalS = ms / 1000;
  if (totalS < 60) return Number.isInteger(totalS) ? `${totalS}s` : `${totalS.toFixed(1).replace(/\.0$/, '')}s`;
  const s = Math.round(totalS);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return h > 0 ? `${h}h${m}m${sec}s` : `${m}m${sec}s`;
}
