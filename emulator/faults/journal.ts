/**
 * The request journal: one entry per HTTP request the emulator received, in arrival order, so tests can
 * assert on what a client really sent ("the third apply sends no PATCH"). Authorization headers and bodies
 * are never recorded.
 */

/** One request as seen by the emulator. */
export interface JournalEntry {
  /** Arrival order, from 1. */
  seq: number;
  /** ISO time of arrival (wall clock). */
  time: string;
  method: string;
  /** Path plus query string, as sent. */
  url: string;
  /** Path without the query string. */
  path: string;
  /** Kubernetes verb (get, list, watch, create, update, patch, delete, deletecollection) or the lower-case method. */
  verb?: string;
  /** Plural of the resource, for resource requests. */
  resource?: string;
  namespace?: string;
  name?: string;
  subresource?: string;
  /** HTTP status sent; 0 when the connection was reset before a response. Undefined while in flight. */
  status?: number;
  /** Response Content-Type. */
  contentType?: string;
  /** Request Content-Type. */
  requestContentType?: string;
  accept?: string;
  userAgent?: string;
  /** Names of the fault rules that acted on this request. */
  faults?: string[];
  /** Milliseconds until the response finished (or the connection closed). */
  durationMs?: number;
}

/** Filter for `entries()`; strings match exactly, RegExps are tested. */
export interface JournalQuery {
  method?: string;
  verb?: string;
  resource?: string;
  name?: string;
  status?: number;
  path?: RegExp | string;
  userAgent?: RegExp | string;
  /** Only entries with seq > since (see `mark()`). */
  since?: number;
}

/** Bounded, in-memory request journal. */
export class RequestJournal {
  private readonly items: JournalEntry[] = [];
  private seq = 0;

  /** @param limit oldest entries are dropped beyond this many (long-running CLI sessions). */
  constructor(private readonly limit = 20_000) {}

  /** Record a new request; the returned entry is filled in as the response progresses. */
  record(entry: Omit<JournalEntry, 'seq' | 'time'>): JournalEntry {
    const full: JournalEntry = { seq: ++this.seq, time: new Date().toISOString(), ...entry };
    this.items.push(full);
    if (this.items.length > this.limit) this.items.splice(0, this.items.length - this.limit);
    return full;
  }

  /** The seq of the latest entry; pass it as `since` to see only later requests. */
  mark(): number {
    return this.seq;
  }

  /** Entries matching `query` (copies), oldest first. */
  entries(query: JournalQuery = {}): JournalEntry[] {
    const test = (pattern: RegExp | string | undefined, value: string | undefined): boolean =>
      pattern === undefined || (typeof pattern === 'string' ? value === pattern : pattern.test(value ?? ''));
    return this.items
      .filter(
        (e) =>
          (query.since === undefined || e.seq > query.since) &&
          (query.method === undefined || e.method === query.method) &&
          (query.verb === undefined || e.verb === query.verb) &&
          (query.resource === undefined || e.resource === query.resource) &&
          (query.name === undefined || e.name === query.name) &&
          (query.status === undefined || e.status === query.status) &&
          test(query.path, e.path) &&
          test(query.userAgent, e.userAgent),
      )
      .map((e) => ({ ...e }));
  }

  clear(): void {
    this.items.length = 0;
  }

  /** One line per entry (`200 GET /api/v1/nodes?limit=500`), handy in assertion messages. */
  format(query: JournalQuery = {}): string {
    return this.entries(query)
      .map((e) => `${e.status ?? '…'} ${e.method} ${e.url}${e.faults ? ` [fault ${e.faults.join(',')}]` : ''}`)
      .join('\n');
  }
}
