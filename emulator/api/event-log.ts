/**
 * The bounded history of writes, so that a watch (or a list continue token) can resume from a recent
 * resourceVersion, like the apiserver's watch cache over etcd. Older history answers "too old" (410).
 */
import { KubeObject } from './types';

/** One stored write. Objects are the store's frozen copies and are shared, never mutated. */
export interface LoggedEvent {
  rv: number;
  /** The store's key of the kind (`group/plural`). */
  kindKey: string;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  /** State after the write; for DELETED, the last state stamped with the deletion's resourceVersion. */
  object: KubeObject;
  /** State before the write (MODIFIED and DELETED). */
  prev?: KubeObject;
}

/** A ring buffer of events in increasing resourceVersion order. */
export class EventLog {
  private readonly ring: (LoggedEvent | undefined)[];
  private head = 0;
  private count = 0;
  private compacted: number;

  /**
   * @param capacity how many events to keep (the oldest fall off).
   * @param startRv the resourceVersion the store starts at: history is complete after it.
   */
  constructor(
    readonly capacity: number,
    startRv = 0,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`event log capacity must be a positive integer, got ${capacity}`);
    this.ring = new Array(capacity);
    this.compacted = startRv;
  }

  /** Every event with rv > compactedThrough is retained; resuming from an older rv is impossible. */
  get compactedThrough(): number {
    return this.compacted;
  }

  /** Number of events held. */
  get size(): number {
    return this.count;
  }

  /** Record an event; its rv must be greater than every rv recorded before. */
  append(event: LoggedEvent): void {
    if (this.count === this.capacity) {
      const dropped = this.ring[this.head]!;
      this.compacted = dropped.rv;
      this.ring[this.head] = event;
      this.head = (this.head + 1) % this.capacity;
    } else {
      this.ring[(this.head + this.count) % this.capacity] = event;
      this.count++;
    }
  }

  private at(i: number): LoggedEvent {
    return this.ring[(this.head + i) % this.capacity]!;
  }

  /**
   * Events with rv > `rv`, oldest first, optionally only of one kind; undefined when history after `rv`
   * is no longer complete (the caller answers 410 Expired).
   */
  since(rv: number, kindKey?: string): LoggedEvent[] | undefined {
    if (rv < this.compacted) return undefined;
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.at(mid).rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    const out: LoggedEvent[] = [];
    for (let i = lo; i < this.count; i++) {
      const e = this.at(i);
      if (kindKey === undefined || e.kindKey === kindKey) out.push(e);
    }
    return out;
  }

  /** Drop all history: afterwards only resuming from `currentRv` (or later) is possible. */
  compact(currentRv: number): void {
    this.ring.fill(undefined);
    this.head = 0;
    this.count = 0;
    this.compacted = Math.max(this.compacted, currentRv);
  }
}
