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

/** Go-style duration for messages (one implementation, shared with the provider runtime). */
