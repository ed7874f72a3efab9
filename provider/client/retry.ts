/**
 * Bounded, jittered exponential backoff for transient failures (429, 5xx, connection resets). client-node never
 * retries by itself (docs/design/kube-api-errors.md §"How clients react"), so every request goes through
 * `withRetry`. The sleep and the random source are injected, so tests never really wait.
 *
 * Which failures are transient is decided when the error is mapped (`HarvesterError.transient`); whether a
 * request may be repeated blindly is the caller's business: a create re-reads before trying again
 * (resource-client.ts), because the first POST may have succeeded.
 */
import { HarvesterError } from './errors';
import { SafeLogger } from './logger';

/** How hard to retry. */
export interface RetryPolicy {
  /** Total tries, the first included. @default 6 */
  maxAttempts: number;
  /** Delay after the first failure, before jitter. @default 250 */
  initialDelayMs: number;
  /** Ceiling of the exponential delay. @default 10000 */
  maxDelayMs: number;
  /** Growth per attempt. @default 2 */
  multiplier: number;
  /** Fraction of each delay that is random: 0 = fixed, 1 = anywhere in [0, delay]. @default 0.5 */
  jitter: number;
  /** Longest server-requested wait (Retry-After) honoured; longer requests are clamped to it. @default 60000 */
  maxRetryAfterMs: number;
}

/** The policy used when the caller passes none. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 6,
  initialDelayMs: 250,
  maxDelayMs: 10_000,
  multiplier: 2,
  jitter: 0.5,
  maxRetryAfterMs: 60_000,
});

/** Waits `ms` milliseconds. Injected everywhere a retry or a wait sleeps. */
export type Sleep = (ms: number) => Promise<void>;

/** A real sleep. */
export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** The policy with `overrides` applied and every number checked. */
export function resolvePolicy(overrides: Partial<RetryPolicy> = {}): RetryPolicy {
  const p: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...overrides };
  const bad = (Object.keys(p) as (keyof RetryPolicy)[]).filter((k) => !Number.isFinite(p[k]) || p[k] < 0);
  if (bad.length > 0) throw new RangeError(`retry policy: ${bad.join(', ')} must be a finite number >= 0`);
  if (p.maxAttempts < 1) throw new RangeError(`retry policy: maxAttempts (${p.maxAttempts}) must be at least 1`);
  if (p.jitter > 1) throw new RangeError(`retry policy: jitter (${p.jitter}) must be between 0 and 1`);
  return p;
}

/**
 * The delay after failure number `failedAttempt` (1-based): exponential, capped at maxDelayMs, with the
 * random part taken off the top, i.e. a value in [d·(1−jitter), d].
 */
export function backoffDelay(failedAttempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const exp = policy.initialDelayMs * Math.pow(policy.multiplier, Math.max(0, failedAttempt - 1));
  const capped = Math.min(policy.maxDelayMs, exp);
  return Math.round(capped * (1 - policy.jitter + policy.jitter * random()));
}

/** The wait before the next try: the backoff, but never less than Retry-After (itself clamped). */
export function retryDelay(failedAttempt: number, policy: RetryPolicy, retryAfterMs: number | undefined, random?: () => number): number {
  const backoff = backoffDelay(failedAttempt, policy, random);
  if (retryAfterMs === undefined) return backoff;
  return Math.max(backoff, Math.min(retryAfterMs, policy.maxRetryAfterMs));
}

/**
 * A Retry-After header value in milliseconds: delta-seconds (`"3"`) or an HTTP date, relative to `nowMs`.
 * Undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined | null, nowMs: number = Date.now()): number | undefined {
  if (value === undefined || value === null) return undefined;
  const v = String(value).trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const date = Date.parse(v);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

/** Options of one retried operation. */
export interface RetryOptions {
  policy: RetryPolicy;
  sleep: Sleep;
  random?: () => number;
  /** Used in debug lines: e.g. "get LoadBalancer default/lb1". */
  describe: string;
  logger?: SafeLogger;
}

/**
 * Run `op` until it succeeds, fails permanently, or the attempts are spent. `op` gets the 1-based attempt
 * number, so it can re-read before repeating something non-idempotent. Errors that are not HarvesterErrors
 * are not retried.
 */
export async function withRetry<T>(op: (attempt: number) => Promise<T>, options: RetryOptions): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await op(attempt);
    } catch (err) {
      if (!(err instanceof HarvesterError)) throw err;
      if (!err.transient) throw attempt > 1 ? err.withAttempts(attempt) : err;
      if (attempt >= options.policy.maxAttempts) throw err.withAttempts(attempt);
      const delay = retryDelay(attempt, options.policy, err.retryAfterMs, options.random);
      options.logger?.debug(
        `retrying ${options.describe} in ${delay}ms after ${err.code}${err.httpStatus ? ` (${err.httpStatus})` : ''} ` +
          `(attempt ${attempt}/${options.policy.maxAttempts})`,
      );
      await options.sleep(delay);
    }
  }
}
