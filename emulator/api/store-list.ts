/**
 * List with selectors and paging (docs/design/kube-api.md §12). Items come sorted by namespace, then name. A continue
 * token is opaque base64 JSON `{v, rv, start}`: later pages are served from the first page's snapshot,
 * rebuilt by undoing the logged writes made since; when that history is gone the answer is 410 Expired with a
 * fresh token (rv -1: "continue inconsistently from the current state") in the Status metadata.
 */
import { EventLog } from './event-log';
import { StatusError, badRequest, expired } from './errors';
import { LabelRequirement, LabelSelector, parseFieldSelector, parseLabelSelector, fieldLabelsOf } from './selectors';
import { KindTable, objectKey, splitObjectKey } from './store-index';
import { watcherMatches } from './store-watch';
import { KindInfo, KubeObject, ListOptions } from './types';

interface ContinueToken {
  v: 'meta.k8s.io/v1';
  /** Snapshot resourceVersion, or -1 to continue from the current state. */
  rv: number;
  /** Key of the last item returned; the next page starts after it. */
  start: string;
}

/** Encode a continue token. */
export function encodeContinue(rv: number, start: string): string {
  const token: ContinueToken = { v: 'meta.k8s.io/v1', rv, start };
  return Buffer.from(JSON.stringify(token)).toString('base64url');
}

/** Decode a continue token; 400 when it is not one of ours. */
export function decodeContinue(text: string): { rv: number; start: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw badRequest('continue key is not valid: not a token returned by this server; restart the list without continue');
  }
  const t = parsed as Partial<ContinueToken>;
  if (t?.v !== 'meta.k8s.io/v1' || typeof t.rv !== 'number' || !Number.isInteger(t.rv) || typeof t.start !== 'string') {
    throw badRequest('continue key is not valid: not a token returned by this server; restart the list without continue');
  }
  return { rv: t.rv, start: t.start };
}

const TOO_OLD_CONTINUE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/** A page of stored (frozen) objects; the caller copies them out. */
export interface ListPage {
  items: KubeObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

/** Objects of one kind as they were at `rv` (which must still be inside the event log). */
function snapshotAt(table: KindTable, log: EventLog, kindKey: string, rv: number): { objects: Map<string, KubeObject>; keys: string[] } {
  const events = log.since(rv, kindKey)!;
  if (events.length === 0) return { objects: table.objects, keys: table.sortedKeys() };
  const objects = new Map(table.objects);
  const seen = new Set<string>();
  for (const e of events) {
    const key = objectKey(e.object.metadata.namespace, e.object.metadata.name!);
    if (seen.has(key)) continue;
    seen.add(key);
    if (e.type === 'ADDED' || !e.prev) objects.delete(key);
    else objects.set(key, e.prev);
  }
  return { objects, keys: [...objects.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)) };
}

/** First index in sorted `keys` greater than `after`. */
function indexAfter(keys: string[], after: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (keys[mid] <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * For a selector with an `=`/`in` requirement, the sorted keys of the objects its narrowest such requirement
 * admits (from the table's label index), instead of every key of the kind; undefined when none applies.
 */
function indexedKeys(table: KindTable, labels: LabelSelector): string[] | undefined {
  let best: LabelRequirement | undefined;
  let bestCount = Infinity;
  for (const r of labels.requirements) {
    if (r.operator !== 'equals' && r.operator !== 'in') continue;
    const n = table.countWithLabel(r.key, r.values);
    if (n < bestCount) [best, bestCount] = [r, n];
  }
  return best ? table.keysWithLabel(best.key, best.values) : undefined;
}

/** Serve one list request over a kind's table. */
export function listTable(kind: KindInfo, kindKey: string, table: KindTable, log: EventLog, currentRv: number, options: ListOptions = {}): ListPage {
  const labels = parseLabelSelector(options.labelSelector);
  const fields = parseFieldSelector(options.fieldSelector, fieldLabelsOf(kind));
  const limit = options.limit !== undefined && options.limit > 0 ? Math.floor(options.limit) : undefined;
  const namespace = kind.namespaced && options.namespace ? options.namespace : undefined;

  let snapshotRv = currentRv;
  let objects = table.objects;
  let keys = indexedKeys(table, labels) ?? table.sortedKeys();
  let start = 0;
  if (options.continue) {
    const token = decodeContinue(options.continue);
    if (token.rv > currentRv) throw badRequest('continue key is not valid: its resource version is newer than this server\'s; restart the list without continue');
    if (token.rv >= 0 && token.rv < log.compactedThrough) {
      const err: StatusError = expired(TOO_OLD_CONTINUE);
      err.status.metadata.continue = encodeContinue(-1, token.start);
      throw err;
    }
    if (token.rv >= 0 && token.rv < currentRv) {
      ({ objects, keys } = snapshotAt(table, log, kindKey, token.rv));
      snapshotRv = token.rv;
    }
    start = indexAfter(keys, token.start);
  }
  if (namespace !== undefined) {
    // Keys sort by namespace first, so one namespace is a contiguous range.
    start = Math.max(start, indexAfter(keys, `${namespace}\u0000`));
  }

  const selecting = !labels.isEmpty() || !fields.isEmpty();
  const matcher = { kind, namespace, labels, fields };
  const items: KubeObject[] = [];
  let i = start;
  let more = false;
  for (; i < keys.length; i++) {
    if (namespace !== undefined && splitObjectKey(keys[i]).namespace !== namespace) break;
    const obj = objects.get(keys[i])!;
    if (selecting && !watcherMatches(matcher, obj)) continue;
    if (limit !== undefined && items.length === limit) {
      more = true;
      break;
    }
    items.push(obj);
  }

  const page: ListPage = { items, resourceVersion: String(snapshotRv) };
  if (more) {
    const lastKey = objectKey(items[items.length - 1].metadata.namespace, items[items.length - 1].metadata.name!);
    page.continue = encodeContinue(snapshotRv, lastKey);
    if (!selecting) {
      let remaining = 0;
      for (let j = i; j < keys.length; j++) {
        if (namespace !== undefined && splitObjectKey(keys[j]).namespace !== namespace) break;
        remaining++;
      }
      page.remainingItemCount = remaining;
    }
  }
  return page;
}
