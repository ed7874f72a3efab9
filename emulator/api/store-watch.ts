/**
 * Watch delivery. Every write is turned into per-watcher events at write time (so selector transitions use
 * the states before and after that write) and put on ONE global FIFO queue, drained in a later macrotask
 * (setImmediate). Ordering guarantee:
 *
 * - each watcher receives its events in resourceVersion order, each exactly once;
 * - across watchers, deliveries follow the global write order;
 * - a callback is never re-entered: a write made inside a callback (controllers do this) only appends to the
 *   queue, so there is no recursion however long a chain of reactions gets;
 * - a callback that throws is reported (options.onCallbackError, default a process warning) and the store
 *   and other watchers carry on;
 * - the queue also runs the garbage collector's follow-up work, in the order it was triggered.
 *
 * `settle()` resolves once the queue is empty, which is how tests wait for controllers to react.
 */
import { expired } from './errors';
import { EventLog, LoggedEvent } from './event-log';
import { FieldSelector, LabelSelector, parseFieldSelector, parseLabelSelector, fieldLabelsOf } from './selectors';
import { parseResourceVersion } from './store-checks';
import { KindTable } from './store-index';
import { shared } from './served-json';
import { clone, present } from './store-json';
import { KindInfo, KubeObject, WatchEvent, WatchHandle, WatchOptions, apiVersionOf } from './types';

/** How many queued items one macrotask runs before yielding to I/O. */
const ITEMS_PER_TURN = 5000;

/** A FIFO of deliveries and follow-up tasks, drained asynchronously and never recursively. */
export class DeliveryQueue {
  private items: (() => void)[] = [];
  private head = 0;
  private scheduled = false;
  private draining = false;
  private idle: (() => void)[] = [];

  /** @param onError receives anything a queued item throws. */
  constructor(private readonly onError: (err: unknown) => void) {}

  /** Queue one item to run after everything already queued. */
  enqueue(fn: () => void): void {
    this.items.push(fn);
    this.schedule();
  }

  /** Items waiting to run. */
  get pending(): number {
    return this.items.length - this.head;
  }

  /** Resolves when the queue has been drained (including items queued while draining). */
  settle(): Promise<void> {
    if (this.pending === 0 && !this.draining) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private schedule(): void {
    if (this.scheduled || this.draining) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.drain();
    });
  }

  private drain(): void {
    if (this.draining) return;
    this.draining = true;
    let ran = 0;
    try {
      while (this.head < this.items.length && ran < ITEMS_PER_TURN) {
        const fn = this.items[this.head];
        this.items[this.head++] = undefined as unknown as () => void;
        ran++;
        try {
          fn();
        } catch (err) {
          this.onError(err);
        }
      }
    } finally {
      this.draining = false;
      if (this.head === this.items.length) {
        this.items = [];
        this.head = 0;
        const waiters = this.idle;
        this.idle = [];
        for (const w of waiters) w();
      } else {
        this.schedule();
      }
    }
  }
}

/** A watch handle with the extras the HTTP layer uses. */
export interface StoreWatchHandle extends WatchHandle {
  /**
   * Queue a BOOKMARK event carrying the current resourceVersion (only when the watch was opened with
   * allowWatchBookmarks; otherwise nothing). The HTTP layer calls it on its own timer and before a
   * timeout close.
   */
  bookmark(): void;
  /** True after stop(), or after a too-old ERROR event was queued (the HTTP layer then closes). */
  readonly stopped: boolean;
}

/** One open watch. */
export interface Watcher {
  kind: KindInfo;
  kindKey: string;
  namespace?: string;
  labels: LabelSelector;
  fields: FieldSelector;
  allowBookmarks: boolean;
  onEvent: (event: WatchEvent) => void;
  /** Set by stop(): nothing more is delivered. */
  stopped: boolean;
  /** Set when the watch could not start (too old): one ERROR event is queued and nothing else. */
  expired: boolean;
  /** Live events at or below this resourceVersion were already covered by the start (or asked to be skipped). */
  after: number;
  /** Deliver the frozen stored objects themselves, not copies (served-json.ts): for readers that never mutate. */
  shared: boolean;
}

/** Whether an object is inside a watcher's namespace and selectors. */
export function watcherMatches(w: Pick<Watcher, 'kind' | 'namespace' | 'labels' | 'fields'>, obj: KubeObject | undefined): boolean {
  if (!obj) return false;
  if (w.kind.namespaced && w.namespace !== undefined && obj.metadata.namespace !== w.namespace) return false;
  return w.labels.matches(obj.metadata.labels) && w.fields.matches(obj);
}

/**
 * The event a watcher sees for a logged write, or undefined: selector enter → ADDED, leave → DELETED with
 * the previous state stamped with the write's resourceVersion (as the apiserver's cacher does).
 */
export function eventFor(w: Watcher, e: LoggedEvent): { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: KubeObject } | undefined {
  const now = e.type !== 'DELETED' && watcherMatches(w, e.object);
  const before = e.prev !== undefined && watcherMatches(w, e.prev);
  if (e.type === 'DELETED') return before ? { type: 'DELETED', object: e.object } : undefined;
  if (now && before) return { type: 'MODIFIED', object: e.object };
  if (now) return { type: 'ADDED', object: e.object };
  if (before) {
    const stamped = { ...e.prev!, metadata: { ...e.prev!.metadata, resourceVersion: String(e.rv) } };
    return { type: 'DELETED', object: stamped };
  }
  return undefined;
}

/** Open watches by kind, fed from the store's writes. */
export class WatchHub {
  private readonly watchers = new Map<string, Set<Watcher>>();

  constructor(private readonly queue: DeliveryQueue) {}

  /** Register a watcher for live events. */
  add(w: Watcher): void {
    let set = this.watchers.get(w.kindKey);
    if (!set) this.watchers.set(w.kindKey, (set = new Set()));
    set.add(w);
  }

  /** Unregister. */
  remove(w: Watcher): void {
    w.stopped = true;
    this.watchers.get(w.kindKey)?.delete(w);
  }

  /** Number of open watchers (all kinds). */
  get size(): number {
    let n = 0;
    for (const s of this.watchers.values()) n += s.size;
    return n;
  }

  /** Queue one event for one watcher; the object is copied at delivery (unless the watcher takes it shared). */
  deliver(w: Watcher, type: WatchEvent['type'], object: KubeObject | Record<string, unknown>, raw = false): void {
    this.queue.enqueue(() => {
      if (w.stopped) return;
      const out = raw ? clone(object) : w.shared ? shared(w.kind, object as KubeObject) : present(w.kind, object as KubeObject);
      w.onEvent({ type, object: out });
    });
  }

  /** Fan a logged write out to the watchers of its kind. */
  publish(e: LoggedEvent): void {
    const set = this.watchers.get(e.kindKey);
    if (!set) return;
    for (const w of set) {
      if (e.rv <= w.after) continue;
      const ev = eventFor(w, e);
      if (ev) this.deliver(w, ev.type, ev.object);
    }
  }
}

/** The annotation of the BOOKMARK that ends a streaming list's initial events (metav1.InitialEventsAnnotationKey). */
export const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

/** What opening a watch needs from the store. */
export interface WatchSource {
  hub: WatchHub;
  log: EventLog;
  /** The kind's table (for the synthetic ADDED events). */
  table: KindTable;
  /** The current global resourceVersion. */
  rv(): number;
}

/**
 * Open a watch (docs/design/kube-api.md §13, §1): unset/'0' → synthetic ADDED for current matching objects in
 * list order, then live events; 'N' → every event after N from the log, then live; N older than the log → one
 * ERROR event (410 Expired `too old resource version: N (M)`) and nothing else. `sendInitialEvents` (a streaming list,
 * the query validated by the HTTP layer) overrides the first choice: true → the ADDED events, then the
 * initial-events-end BOOKMARK when bookmarks are allowed (as the cacher sends it only then); false → none,
 * starting now for an unset resourceVersion. Selectors are parsed first (400).
 */
export function openWatch(
  src: WatchSource,
  kind: KindInfo,
  kindKey: string,
  options: WatchOptions,
  onEvent: (event: WatchEvent) => void,
  sharedObjects = false,
): StoreWatchHandle {
  const { hub, log, table } = src;
  const w: Watcher = {
    kind,
    kindKey,
    namespace: kind.namespaced ? options.namespace || undefined : undefined,
    labels: parseLabelSelector(options.labelSelector),
    fields: parseFieldSelector(options.fieldSelector, fieldLabelsOf(kind)),
    allowBookmarks: options.allowWatchBookmarks === true,
    onEvent,
    stopped: false,
    expired: false,
    after: 0,
    shared: sharedObjects,
  };
  const handle: StoreWatchHandle = {
    stop: () => hub.remove(w),
    bookmark: () => {
      if (!w.allowBookmarks || w.stopped || w.expired) return;
      hub.deliver(w, 'BOOKMARK', { kind: kind.kind, apiVersion: apiVersionOf(kind), metadata: { resourceVersion: String(src.rv()) } }, true);
    },
    get stopped() {
      return w.stopped || w.expired;
    },
  };

  const start = options.resourceVersion;
  const fromNow = start === undefined || start === '' || start === '0';
  if (options.sendInitialEvents === true || (options.sendInitialEvents === undefined && fromNow)) {
    // The current state is always at least as new as a NotOlderThan resourceVersion here.
    for (const key of table.sortedKeys()) {
      const obj = table.objects.get(key)!;
      if (watcherMatches(w, obj)) hub.deliver(w, 'ADDED', obj);
    }
    w.after = src.rv();
    if (options.sendInitialEvents === true && w.allowBookmarks) {
      const metadata = { resourceVersion: String(w.after), annotations: { [INITIAL_EVENTS_END]: 'true' } };
      hub.deliver(w, 'BOOKMARK', { kind: kind.kind, apiVersion: apiVersionOf(kind), metadata }, true);
    }
  } else if (fromNow) {
    w.after = src.rv();
  } else {
    const from = parseResourceVersion(start);
    const events = log.since(from, kindKey);
    if (!events) {
      w.expired = true;
      const status = expired(`too old resource version: ${from} (${log.compactedThrough})`).status;
      hub.deliver(w, 'ERROR', status as unknown as Record<string, unknown>, true);
      return handle;
    }
    for (const e of events) {
      const ev = eventFor(w, e);
      if (ev) hub.deliver(w, ev.type, ev.object);
    }
    w.after = Math.max(from, src.rv());
  }
  hub.add(w);
  return handle;
}
