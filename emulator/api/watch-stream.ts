/**
 * One watch response (docs/design/kube-api.md §13): 200 with the headers flushed at once (kubectl wait
 * hangs otherwise), then newline-delimited JSON events over a chunked response.
 *
 * 1. Events the store delivers while the watch is being set up are buffered until the headers are out.
 * 2. An ERROR event (e.g. 410 "too old resource version") is written and the stream ends cleanly, as the
 *    apiserver's cacher does; a 410 thrown by the store is turned into that same event.
 * 3. `allowWatchBookmarks` adds a BOOKMARK every `bookmarkIntervalMs` and just before a timeout close.
 * 4. `timeoutSeconds` ends the stream cleanly; without it the stream stays open until the client leaves
 *    (kubectl get -w never re-watches, so closing it early would end the command).
 * 5. A client disconnect is detected on the response's 'close' (the request's fires once the body is read).
 * 6. Fault drops: clean end, ERROR 410 then end, TCP reset, or a stall (headers sent, then silence).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StatusError } from './errors';
import type { ObjectStore, StoreWatchHandle } from './store';
import type { KindInfo, KubeObject, WatchEvent, WatchOptions } from './types';
import { IncludeObject, TableVersion, buildTable } from './table';
import { servedJson } from './served-json';
import type { WatchDropAction } from '../faults/rules';

/** Everything one watch response needs. */
export interface WatchStreamOptions {
  req: IncomingMessage;
  res: ServerResponse;
  store: ObjectStore;
  kind: KindInfo;
  watch: WatchOptions;
  contentType: string;
  timeoutSeconds?: number;
  /** When set, ADDED/MODIFIED/DELETED objects are sent as one-row Tables. */
  table?: { version: TableVersion; includeObject: IncludeObject; now: () => Date };
  drop?: WatchDropAction;
  /** Default 60 s, as the real watch cache. */
  bookmarkIntervalMs?: number;
  /** Called once when the stream is over, however it ended. */
  onEnd?: () => void;
}

/** A running watch stream. */
export interface WatchStream {
  /** End the stream cleanly (server shutdown). */
  close(): void;
}

function rvOf(object: unknown): string | undefined {
  const meta = (object as KubeObject | undefined)?.metadata;
  return typeof meta?.resourceVersion === 'string' ? meta.resourceVersion : undefined;
}

/** Start a watch response. Throws (before any byte is written) when the store rejects the watch. */
export function serveWatch(o: WatchStreamOptions): WatchStream {
  const { res, store, kind } = o;
  let open = true;
  let headersOut = false;
  let stalled = false;
  let written = 0;
  let lastRv: string | undefined;
  const pending: WatchEvent[] = [];
  const timers: NodeJS.Timeout[] = [];
  let handle: StoreWatchHandle | undefined;

  const cleanup = (): void => {
    if (!open) return;
    open = false;
    handle?.stop();
    for (const t of timers) clearTimeout(t);
    o.onEnd?.();
  };
  const end = (): void => {
    if (!open) return;
    cleanup();
    res.end();
  };

  let closeAfterBookmark = false;
  // The store queues the BOOKMARK behind every event already due to this watcher, so its resourceVersion
  // never overtakes an event still in flight.
  const bookmark = (): void => {
    if (open && !stalled) handle?.bookmark();
  };

  // Object events reuse the object's cached text (served-json.ts): one serialization per event, however many
  // watchers send it; the line is byte-identical to JSON.stringify({type, object}).
  const writeLine = (event: WatchEvent, object?: KubeObject): void => {
    if (object) res.write(`{"type":${JSON.stringify(event.type)},"object":${servedJson(kind, object)}}\n`);
    else res.write(`${JSON.stringify(event)}\n`);
  };

  const drop = (action: WatchDropAction): void => {
    if (!open) return;
    switch (action.mode) {
      case 'clean':
        end();
        return;
      case 'expire': {
        const current = store.resourceVersion();
        writeLine({ type: 'ERROR', object: new StatusError(410, 'Expired', `too old resource version: ${lastRv ?? o.watch.resourceVersion ?? '0'} (${current})`).status as unknown as Record<string, unknown> });
        end();
        return;
      }
      case 'reset':
        cleanup();
        o.req.socket.destroy();
        return;
      case 'stall':
        stalled = true;
        handle?.stop();
        for (const t of timers) clearTimeout(t);
        return;
    }
  };

  const deliver = (event: WatchEvent): void => {
    if (!open || stalled) return;
    if (event.type === 'ERROR') {
      writeLine(event);
      end();
      return;
    }
    let out = event;
    if (o.table && (event.type === 'ADDED' || event.type === 'MODIFIED' || event.type === 'DELETED')) {
      const object = event.object as KubeObject;
      out = {
        type: event.type,
        object: buildTable(kind, [object], {
          version: o.table.version,
          now: o.table.now(),
          includeObject: o.table.includeObject,
          listMeta: { resourceVersion: rvOf(object) ?? '' },
        }),
      };
    }
    lastRv = rvOf(event.object) ?? lastRv;
    const objectEvent = out === event && (event.type === 'ADDED' || event.type === 'MODIFIED' || event.type === 'DELETED');
    writeLine(out, objectEvent ? (event.object as KubeObject) : undefined);
    if (event.type === 'BOOKMARK') {
      if (closeAfterBookmark) end();
      return;
    }
    written++;
    if (o.drop?.afterEvents !== undefined && written >= o.drop.afterEvents) drop(o.drop);
  };

  // A too-old resourceVersion comes back as a queued ERROR event (on a 200 stream, as the cacher does);
  // what throws here (bad selector or resourceVersion, 400) is answered before any byte is written.
  handle = store.watchShared(kind, o.watch, (event) => {
    if (!headersOut) pending.push(event);
    else deliver(event);
  });

  res.on('close', cleanup);
  res.setHeader('Content-Type', o.contentType);
  res.setHeader('Cache-Control', 'no-cache, private');
  res.writeHead(200);
  res.flushHeaders();
  headersOut = true;
  for (const event of pending.splice(0)) deliver(event);
  if (!open) return { close: end };

  if (o.watch.allowWatchBookmarks) {
    const interval = o.bookmarkIntervalMs ?? 60_000;
    const tick = (): void => {
      bookmark();
      if (open && !stalled) timers.push(setTimeout(tick, interval));
    };
    timers.push(setTimeout(tick, interval));
  }
  if (o.timeoutSeconds !== undefined && o.timeoutSeconds > 0) {
    timers.push(
      setTimeout(() => {
        if (!o.watch.allowWatchBookmarks) return end();
        // A final BOOKMARK lets the client resume from the latest resourceVersion; end once it is out.
        closeAfterBookmark = true;
        bookmark();
        // Fallback in case the bookmark never arrives (the watch stopped meanwhile).
        timers.push(setTimeout(end, 1000));
      }, o.timeoutSeconds * 1000),
    );
  }
  if (o.drop && (o.drop.afterEvents === undefined || o.drop.afterMs !== undefined)) {
    const action = o.drop;
    // No delay means right after the headers, before any later write can reach this watcher.
    if (!action.afterMs) drop(action);
    else timers.push(setTimeout(() => drop(action), action.afterMs));
  }
  return { close: end };
}
