/**
 * A live view of one object or a label-selected set: list, then watch from the list's resourceVersion.
 *
 *  1. Clean end of stream (server timeout, idle client timeout) → watch again from the last resourceVersion.
 *  2. ERROR 410 Expired → re-list at once (our resourceVersion is too old), then watch from the new one.
 *  3. Dropped stream (reset, terminated) or other watch/list failure → back off, then re-list: events may
 *     have been lost, and only a list tells us the truth again.
 *  4. Failures that waiting cannot fix (401 token expired, 403, TLS, the API not served) → `onError`, stop.
 *
 * Backoff and the idle timeout run on the injected Clock (client-node ListWatch's delayFn idea), so tests
 * drive it with a ManualClock.
 */
import { HarvesterError, NotFoundError } from '../client/errors';
import { KubeObject } from '../client/objects';
import { ResourceClient } from '../client/resource-client';
import { WatchHandle } from '../client/resource-types';
import { Clock } from './clock';

/** What to watch and where to report. */
export interface SourceOptions<T extends KubeObject> {
  resource: ResourceClient<T>;
  namespace?: string;
  /** One object by name (a `metadata.name` field selector), or… */
  name?: string;
  /** …a label-selected set. Neither: every object of the kind (in `namespace`). */
  labelSelector?: string;
  clock: Clock;
  /** Called with the current objects (sorted by namespace/name) after the first list and every change. */
  onChange: (objects: T[]) => void;
  /** Called once with a failure waiting cannot fix; the source has stopped. */
  onError: (err: HarvesterError) => void;
  /** Called on every (re)connection, for diagnostics: 'list' or 'watch'. */
  onConnect?: (what: 'list' | 'watch', resourceVersion: string) => void;
  /** Restart a watch that delivered nothing for this long. @default 330000 (server timeout 300 s + 30 s) */
  idleTimeoutMs?: number;
  /** First and largest backoff after a failure. @default 1000 / 30000 */
  backoffInitialMs?: number;
  backoffMaxMs?: number;
}

const FATAL = new Set(['Unauthorized', 'TokenExpired', 'Forbidden', 'TlsError', 'KubeConfigInvalid', 'BadRequest', 'AdmissionDenied', 'Invalid']);

/** True for errors that a re-list will not cure. */
export function isFatalForWatch(err: HarvesterError): boolean {
  return FATAL.has(err.code) || (err instanceof NotFoundError && err.apiMissing);
}

function key(o: KubeObject): string {
  return `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
}

/** List + watch with resume and re-list; see the file header. */
export class ListWatchSource<T extends KubeObject> {
  private readonly cache = new Map<string, T>();
  private resourceVersion = '';
  private watchHandle?: WatchHandle;
  private timer?: unknown;
  private idleTimer?: unknown;
  private failures = 0;
  private stopped = false;
  /** Bumped on every (re)start so late callbacks of an old stream are ignored. */
  private generation = 0;

  constructor(private readonly options: SourceOptions<T>) {}

  /** Start listing and watching. */
  start(): void {
    void this.relist();
  }

  /** Stop for good: no more callbacks. */
  stop(): void {
    this.stopped = true;
    this.generation++;
    this.watchHandle?.stop();
    this.watchHandle = undefined;
    this.clearTimers();
  }

  /** The current objects, sorted by namespace/name. */
  objects(): T[] {
    return [...this.cache.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
  }

  private get fieldSelector(): string | undefined {
    return this.options.name ? `metadata.name=${this.options.name}` : undefined;
  }

  private clearTimers(): void {
    if (this.timer !== undefined) this.options.clock.clearTimeout(this.timer);
    if (this.idleTimer !== undefined) this.options.clock.clearTimeout(this.idleTimer);
    this.timer = this.idleTimer = undefined;
  }

  private fail(err: HarvesterError): void {
    this.stop();
    this.options.onError(err);
  }

  /** After a failure: fatal → stop; otherwise back off and re-list. */
  private retryLater(err: HarvesterError): void {
    if (this.stopped) return;
    if (isFatalForWatch(err)) return this.fail(err);
    this.afterBackoff(() => void this.relist());
  }

  /** Count one more failure and run `next` after the exponential backoff it earns. */
  private afterBackoff(next: () => void): void {
    this.failures++;
    const delay = Math.min(this.options.backoffMaxMs ?? 30_000, (this.options.backoffInitialMs ?? 1000) * Math.pow(2, this.failures - 1));
    this.timer = this.options.clock.setTimeout(() => {
      this.timer = undefined;
      next();
    }, delay);
  }

  private async relist(): Promise<void> {
    if (this.stopped) return;
    const gen = ++this.generation;
    this.watchHandle?.stop();
    this.watchHandle = undefined;
    let list;
    try {
      list = await this.options.resource.list({ namespace: this.options.namespace, labelSelector: this.options.labelSelector, fieldSelector: this.fieldSelector });
    } catch (err) {
      if (gen !== this.generation) return;
      if (err instanceof HarvesterError) return this.retryLater(err);
      return this.fail(new HarvesterError({ code: 'Unknown', summary: `Listing ${this.options.resource.describe(this.options.name, this.options.namespace)} failed: ${String(err)}` }));
    }
    if (gen !== this.generation || this.stopped) return;
    this.cache.clear();
    for (const item of list.items) this.cache.set(key(item), item);
    this.resourceVersion = list.resourceVersion;
    this.options.onConnect?.('list', this.resourceVersion);
    this.options.onChange(this.objects());
    if (!this.stopped && gen === this.generation) this.watch();
  }

  private watch(): void {
    if (this.stopped) return;
    const gen = ++this.generation;
    let sawEvent = false;
    this.options.onConnect?.('watch', this.resourceVersion);
    this.armIdle(gen);
    this.watchHandle = this.options.resource.watch(
      {
        namespace: this.options.namespace,
        labelSelector: this.options.labelSelector,
        fieldSelector: this.fieldSelector,
        resourceVersion: this.resourceVersion || undefined,
        allowBookmarks: true,
      },
      (type, object) => {
        if (gen !== this.generation || this.stopped) return;
        sawEvent = true;
        this.failures = 0;
        this.armIdle(gen);
        const rv = object.metadata?.resourceVersion;
        if (rv) this.resourceVersion = rv;
        if (type === 'BOOKMARK') return;
        if (type === 'DELETED') this.cache.delete(key(object));
        else this.cache.set(key(object), object);
        this.options.onChange(this.objects());
      },
      (err) => {
        if (gen !== this.generation || this.stopped) return;
        this.watchHandle = undefined;
        // The stream is gone, so is its idle timer: fired during the backoff below, it would open a second stream
        // that the backoff's watch then overwrites, and stop() would never stop it.
        this.clearIdle();
        if (!err) {
          // A clean end: resume from where we are. A stream that ends at once, over and over, backs off.
          // A clean but empty stream lost nothing: re-watch without a list.
          if (sawEvent) this.watch();
          else this.afterBackoff(() => this.watch());
          return;
        }
        if (err.code === 'Expired') {
          this.resourceVersion = '';
          void this.relist();
          return;
        }
        this.retryLater(err);
      },
    );
  }

  private clearIdle(): void {
    if (this.idleTimer !== undefined) this.options.clock.clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  /** (Re)start the idle timer: a stream silent for too long is restarted from the last resourceVersion. */
  private armIdle(gen: number): void {
    this.clearIdle();
    this.idleTimer = this.options.clock.setTimeout(() => {
      this.idleTimer = undefined;
      if (gen !== this.generation || this.stopped) return;
      this.watchHandle?.stop();
      this.watchHandle = undefined;
      this.watch();
    }, this.options.idleTimeoutMs ?? 330_000);
  }
}
