/**
 * The controller runtime of the simulated Harvester: a keyed work queue fed by store watches, drained through
 * the injected clock. Like a wrangler/controller-runtime controller it is level-triggered: an event only says
 * "look at this key again"; the reconcile function reads the current object from the store.
 *
 * Work is always deferred through `clock.setTimeout` (never run inside a watch callback), so a controller's own
 * writes never re-enter it, and a ManualClock test drives everything with `clock.advance(ms)`.
 */
import { Clock, ClockTimer } from '../clock';
import { StatusError } from '../api/errors';
import { KindInfo, KubeObject, Store, WatchEvent, WatchHandle } from '../api/types';

/** One failed reconcile, kept for tests and the admin handle (never contains object contents). */
export interface ControllerError {
  controller: string;
  key: string;
  message: string;
  time: string;
}

/** Where controllers report unexpected failures. */
export interface ErrorSink {
  report(error: ControllerError): void;
}

/** A bounded in-memory ErrorSink. */
export class ErrorLog implements ErrorSink {
  private readonly entries: ControllerError[] = [];

  constructor(private readonly limit = 200) {}

  report(error: ControllerError): void {
    this.entries.push(error);
    if (this.entries.length > this.limit) this.entries.shift();
  }

  /** A copy of the recorded errors, oldest first. */
  list(): ControllerError[] {
    return [...this.entries];
  }
}

/** Returned by a reconcile: a delay (ms) after which the key should be looked at again, or nothing. */
export type ReconcileResult = number | void | undefined;

/** Maps a watch event to the keys it should requeue (default: the object's own key). */
export type KeyMapper = (object: KubeObject, type: WatchEvent['type']) => string[];

export interface ControllerConfig {
  /** Shown in error reports, e.g. `harvester-lb-controller`. */
  name: string;
  clock: Clock;
  reconcile(key: string): ReconcileResult;
  errors?: ErrorSink;
}

const CONFLICT_RETRY_MS = 20;
const MAX_BACKOFF_MS = 30_000;
const MAX_RUNS_PER_INSTANT = 50;
const LOOP_BACKOFF_MS = 1000;

/** `namespace/name` for namespaced objects, `name` for cluster-scoped ones. */
export function objectKey(object: KubeObject): string {
  const ns = object.metadata.namespace;
  return ns ? `${ns}/${object.metadata.name}` : String(object.metadata.name);
}

/** Splits a key made by objectKey. */
export function splitKey(key: string): { namespace?: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/**
 * A keyed, de-duplicated work queue with watches as its event source. Each key is scheduled at most once; an
 * earlier request replaces a later one. Failures are retried with exponential backoff (conflicts quickly).
 */
export class Controller {
  private readonly pending = new Map<string, { timer: ClockTimer; due: number }>();
  private readonly failures = new Map<string, number>();
  /** Runs of a key at one clock instant; a guard against write→event→write loops (e.g. pruned fields). */
  private readonly burst = new Map<string, { at: number; runs: number }>();
  private readonly watches: WatchHandle[] = [];
  private stopped = false;

  constructor(private readonly config: ControllerConfig) {}

  get name(): string {
    return this.config.name;
  }

  /** Watch a kind in a store; every event requeues the keys `map` returns (default: the object's key). */
  watch(store: Store, kind: KindInfo, map: KeyMapper = (o) => [objectKey(o)]): this {
    const handle = store.watch(kind, {}, (event) => {
      if (this.stopped || (event.type !== 'ADDED' && event.type !== 'MODIFIED' && event.type !== 'DELETED')) return;
      const object = event.object as KubeObject;
      if (!object?.metadata) return;
      for (const key of map(object, event.type)) this.enqueue(key);
    });
    this.watches.push(handle);
    return this;
  }

  /** Look at `key` after `delayMs` (or sooner if already queued sooner). */
  enqueue(key: string, delayMs = 0): void {
    if (this.stopped) return;
    const clock = this.config.clock;
    const due = clock.now().getTime() + Math.max(0, delayMs);
    const existing = this.pending.get(key);
    if (existing && existing.due <= due) return;
    if (existing) clock.clearTimeout(existing.timer);
    const timer = clock.setTimeout(() => {
      this.pending.delete(key);
      this.run(key);
    }, Math.max(0, delayMs));
    this.pending.set(key, { timer, due });
  }

  /** Stop watching and drop every queued key. */
  stop(): void {
    this.stopped = true;
    for (const w of this.watches.splice(0)) w.stop();
    for (const { timer } of this.pending.values()) this.config.clock.clearTimeout(timer);
    this.pending.clear();
  }

  private run(key: string): void {
    if (this.stopped) return;
    if (this.loopDetected(key)) return;
    let result: ReconcileResult;
    try {
      result = this.config.reconcile(key);
      this.failures.delete(key);
    } catch (err) {
      this.retryAfterError(key, err);
      return;
    }
    if (typeof result === 'number' && result >= 0) this.enqueue(key, result);
  }

  private loopDetected(key: string): boolean {
    const at = this.config.clock.now().getTime();
    const entry = this.burst.get(key);
    if (!entry || entry.at !== at) {
      this.burst.set(key, { at, runs: 1 });
      if (this.burst.size > 10_000) this.burst.clear();
      return false;
    }
    entry.runs++;
    if (entry.runs <= MAX_RUNS_PER_INSTANT) return false;
    this.config.errors?.report({
      controller: this.config.name,
      key,
      message: `reconcile loop: ${entry.runs} runs at one instant; backing off ${LOOP_BACKOFF_MS}ms`,
      time: this.config.clock.now().toISOString(),
    });
    this.burst.delete(key);
    this.enqueue(key, LOOP_BACKOFF_MS);
    return true;
  }

  private retryAfterError(key: string, err: unknown): void {
    const status = err instanceof StatusError ? err.code : undefined;
    // A write raced with another writer: read again soon, as informer-based controllers do.
    if (status === 409) {
      this.enqueue(key, CONFLICT_RETRY_MS);
      return;
    }
    // The object went away under us; the watch will bring the key back if it matters.
    if (status === 404) return;
    const attempts = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, attempts);
    this.config.errors?.report({
      controller: this.config.name,
      key,
      message: err instanceof Error ? err.message : String(err),
      time: this.config.clock.now().toISOString(),
    });
    this.enqueue(key, Math.min(MAX_BACKOFF_MS, 100 * 2 ** (attempts - 1)));
  }
}
