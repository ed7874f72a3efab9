/**
 * The emulator's clock. Controllers schedule their stage delays through it (never bare setTimeout), so
 * tests can use a ManualClock and advance time instead of sleeping.
 */
export interface Clock {
  now(): Date;
  setTimeout(fn: () => void, ms: number): ClockTimer;
  clearTimeout(timer: ClockTimer): void;
}

export interface ClockTimer {
  readonly id: number;
}

export class RealClock implements Clock {
  private nextId = 1;
  private readonly timers = new Map<number, NodeJS.Timeout>();

  now(): Date {
    return new Date();
  }

  setTimeout(fn: () => void, ms: number): ClockTimer {
    const id = this.nextId++;
    const handle = setTimeout(() => {
      this.timers.delete(id);
      fn();
    }, Math.max(0, ms));
    this.timers.set(id, handle);
    return { id };
  }

  clearTimeout(timer: ClockTimer): void {
    const handle = this.timers.get(timer.id);
    if (handle) clearTimeout(handle);
    this.timers.delete(timer.id);
  }

  /** Cancel every pending timer (emulator stop). */
  clearAll(): void {
    for (const handle of this.timers.values()) clearTimeout(handle);
    this.timers.clear();
  }
}

/** A clock that only moves when told to; timers fire in due order inside advance(). */
export class ManualClock implements Clock {
  private current: number;
  private nextId = 1;
  private readonly pending = new Map<number, { due: number; fn: () => void }>();

  constructor(start = Date.parse('2026-01-01T00:00:00Z')) {
    this.current = start;
  }

  now(): Date {
    return new Date(this.current);
  }

  setTimeout(fn: () => void, ms: number): ClockTimer {
    const id = this.nextId++;
    this.pending.set(id, { due: this.current + Math.max(0, ms), fn });
    return { id };
  }

  clearTimeout(timer: ClockTimer): void {
    this.pending.delete(timer.id);
  }

  /** Move time forward by `ms`, firing due timers (including ones they schedule) in order. */
  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      let nextId: number | undefined;
      let nextDue = Infinity;
      for (const [id, t] of this.pending) {
        if (t.due <= target && (t.due < nextDue || (t.due === nextDue && id < (nextId ?? Infinity)))) {
          nextDue = t.due;
          nextId = id;
        }
      }
      if (nextId === undefined) break;
      const timer = this.pending.get(nextId)!;
      this.pending.delete(nextId);
      this.current = timer.due;
      timer.fn();
    }
    this.current = target;
  }

  pendingCount(): number {
    return this.pending.size;
  }
}
