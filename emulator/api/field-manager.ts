/**
 * kube-apiserver's field manager for every write (docs/design/kube-api.md §4), after
 * k8s.io/apimachinery pkg/util/managedfields/internal (fieldmanager.go, managedfieldsupdater.go,
 * skipnonapplied.go, capmanagers.go, stripmeta.go, managedfields.go, conflict.go; v0.32) and
 * sigs.k8s.io/structured-merge-diff v4 merge/update.go and typed/compare.go, over the emulator's schema
 * model (maps are granular, lists atomic):
 *
 * - A manager is identified by name, operation and subresource, and an Update manager by its apiVersion too.
 * - Comparing the object before and after a write gives the paths added (a map added as a whole counts
 *   itself and everything in it), modified (leaves whose value changed) and removed.
 * - An Update (create, PUT, non-apply patch) with a manager: every other manager loses the paths the write
 *   added, modified or removed; the writer's Update entry gains the paths it added or modified, its time is
 *   set, and it loses what was removed. A write that changes nothing leaves managedFields as they are.
 * - The managers a write starts from: the request's own `metadata.managedFields` when valid and non-empty
 *   (so clients can rewrite them), `[]` or `[{}]` to reset them, else the stored ones; subresource writes
 *   always start from the stored ones. An existing object with no managedFields is not tracked by updates.
 * - Fields no manager owns: apiVersion, kind, metadata itself and its server-set fields; outside a write's
 *   scope: `.status` for the main resource of a kind with a status subresource, all but `.status` for
 *   `/status`.
 * - More than 10 Update managers: the two oldest merge into `ancient-changes`, until 10 are left.
 * - Entries are served Apply first, then by time, manager, apiVersion and subresource.
 */
import { FieldPath, FieldSet, UNOWNED_FIELDS, comparePaths } from './managed-fields';
import { JsonObject, deepEqual, isPlainObject } from './store-json';
import { KindInfo, KubeObject, ManagedFieldsEntry, apiVersionOf } from './types';

/** Which part of the object a write may own. */
export type WriteScope = 'status' | 'finalize' | undefined;

/** One manager: its entry (without fields) and the paths it owns. */
export interface Manager {
  entry: Omit<ManagedFieldsEntry, 'fieldsV1'>;
  set: FieldSet;
}

/** The paths a write added, modified and removed. */
export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/** Manager name of the Update entry that takes the oldest updaters' fields (capmanagers.go). */
export const ANCIENT_CHANGES = 'ancient-changes';
/** Manager name that owns what an untracked object held when it is first applied to (skipnonapplied.go). */
export const BEFORE_FIRST_APPLY = 'before-first-apply';
const MAX_UPDATE_MANAGERS = 10;

/** structured-merge-diff's manager identifier: the entry as JSON without time and fields (Apply: no apiVersion). */
export function managerIdentifier(e: Pick<ManagedFieldsEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  const id: Record<string, string> = { manager: e.manager, operation: e.operation };
  if (e.operation === 'Update' && e.apiVersion) id.apiVersion = e.apiVersion;
  if (e.subresource) id.subresource = e.subresource;
  return JSON.stringify(id);
}

/** How a manager is named in a conflict (conflict.go printManager). */
export function printManager(e: Pick<ManagedFieldsEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  let text = JSON.stringify(e.manager);
  if (e.subresource) text += ` with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === 'Update') text += ` using ${e.apiVersion}`;
  return text;
}

/** The copy of `obj` a write's managers can own: unowned metadata dropped, the scope applied. */
export function ownable(kind: KindInfo, obj: JsonObject | undefined, scope: WriteScope): JsonObject {
  if (!obj) return {};
  // Shallow copies: the comparison only reads, so the values are shared with `obj`.
  if (scope === 'status') return obj.status === undefined ? {} : { status: obj.status };
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'apiVersion' || k === 'kind') continue;
    if (k === 'status' && kind.statusSubresource) continue;
    out[k] = v;
  }
  if (isPlainObject(out.metadata)) {
    const meta: JsonObject = { ...(out.metadata as JsonObject) };
    for (const p of UNOWNED_FIELDS) if (p.length === 2 && p[0] === 'metadata') delete meta[p[1]];
    out.metadata = meta;
  }
  return out;
}

function addAll(value: unknown, path: string[], set: FieldSet): void {
  if (path.length > 0) set.add(path);
  if (isPlainObject(value)) for (const [k, v] of Object.entries(value)) if (v !== undefined) addAll(v, [...path, k], set);
}

/** typed.Compare over the emulator's model: maps recurse, everything else is a leaf. */
export function compareObjects(lhs: JsonObject, rhs: JsonObject): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  const visit = (l: unknown, r: unknown, path: string[]): void => {
    if (l === undefined && r === undefined) return;
    if (l === undefined) return addAll(r, path, c.added);
    if (r === undefined) return addAll(l, path, c.removed);
    const lm = isPlainObject(l);
    const rm = isPlainObject(r);
    if (lm && rm) {
      for (const k of new Set([...Object.keys(l), ...Object.keys(r)])) visit(l[k], r[k], [...path, k]);
      return;
    }
    if (lm || rm) {
      // A map became a leaf or the other way round: the path changed, and what was under it went or came.
      c.modified.add(path);
      if (lm) for (const [k, v] of Object.entries(l)) addAll(v, [...path, k], c.removed);
      if (rm) for (const [k, v] of Object.entries(r)) addAll(v, [...path, k], c.added);
      return;
    }
    if (!deepEqual(l, r)) c.modified.add(path);
  };
  visit(lhs, rhs, []);
  // `metadata` itself is never owned (stripmeta.go); its fields were dropped by ownable().
  for (const set of [c.added, c.modified, c.removed]) set.delete(['metadata']);
  return c;
}

function validEntry(e: unknown): e is ManagedFieldsEntry {
  if (!isPlainObject(e)) return false;
  return (
    typeof e.manager === 'string' &&
    (e.operation === 'Apply' || e.operation === 'Update') &&
    e.fieldsType === 'FieldsV1' &&
    (e.fieldsV1 === undefined || isPlainObject(e.fieldsV1)) &&
    (e.apiVersion === undefined || typeof e.apiVersion === 'string') &&
    (e.subresource === undefined || typeof e.subresource === 'string')
  );
}

/**
 * Decoded field sets of stored entries, by their (frozen) fieldsV1 object, and the fieldsV1 a set came from:
 * a write re-reads the stored managers and re-serves the ones it did not touch without redoing either.
 */
const decoded = new WeakMap<object, FieldSet>();
const encoded = new WeakMap<FieldSet, Record<string, unknown>>();

function decodeSet(fieldsV1: Record<string, unknown> | undefined): FieldSet {
  if (!fieldsV1) return new FieldSet();
  let set = Object.isFrozen(fieldsV1) ? decoded.get(fieldsV1) : undefined;
  if (!set) {
    set = FieldSet.fromFieldsV1(fieldsV1);
    if (Object.isFrozen(fieldsV1)) decoded.set(fieldsV1, set);
    encoded.set(set, fieldsV1);
  }
  return set;
}

/** DecodeManagedFields: the managers of a managedFields list, or undefined when it does not decode. */
export function decodeManagers(list: unknown): Manager[] | undefined {
  if (!Array.isArray(list)) return undefined;
  const out: Manager[] = [];
  const seen = new Set<string>();
  for (const e of list) {
    if (!validEntry(e)) return undefined;
    const id = managerIdentifier(e);
    if (seen.has(id)) return undefined;
    seen.add(id);
    const { fieldsV1, ...entry } = e;
    out.push({ entry: { ...entry, apiVersion: entry.apiVersion ?? '' }, set: decodeSet(fieldsV1) });
  }
  return out;
}

/** isResetManagedFields: `[]` or `[{}]` sent on purpose. */
function isReset(list: unknown): boolean {
  if (!Array.isArray(list)) return false;
  return list.length === 0 || (list.length === 1 && isPlainObject(list[0]) && Object.keys(list[0]).length === 0);
}

function seconds(e: Manager): number {
  const t = e.entry.time ? Date.parse(e.entry.time) : NaN;
  return Number.isNaN(t) ? 0 : Math.floor(t / 1000);
}

/** capUpdateManagers: fold the oldest Update managers into `ancient-changes` until at most 10 remain. */
function capUpdateManagers(managers: Manager[]): Manager[] {
  const updaters = managers.filter((m) => m.entry.operation === 'Update');
  if (updaters.length <= MAX_UPDATE_MANAGERS) return managers;
  updaters.sort((a, b) => seconds(a) - seconds(b) || (managerIdentifier(a.entry) < managerIdentifier(b.entry) ? -1 : 1));
  let out = [...managers];
  const firstOfVersion = new Map<string, Manager>();
  let length = updaters.length;
  for (const m of updaters) {
    if (length <= MAX_UPDATE_MANAGERS) break;
    const version = m.entry.apiVersion;
    const first = firstOfVersion.get(version);
    if (!first) {
      firstOfVersion.set(version, m);
      continue;
    }
    let bucket = out.find((x) => x.entry.manager === ANCIENT_CHANGES && x.entry.operation === 'Update' && x.entry.apiVersion === version && !x.entry.subresource);
    if (!bucket) {
      bucket = { entry: { manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: version, time: first.entry.time, fieldsType: 'FieldsV1' }, set: first.set };
      out = out.filter((x) => x !== first);
      out.push(bucket);
    }
    bucket.set = bucket.set.union(m.set);
    bucket.entry.time = m.entry.time;
    out = out.filter((x) => x !== m);
    length--;
  }
  return out;
}

/** The managedFields list of `managers`, in the apiserver's order (sortEncodedManagedFields). */
export function encodeManagers(managers: Manager[]): ManagedFieldsEntry[] {
  const order = (a: Manager, b: Manager): number => {
    if (a.entry.operation !== b.entry.operation) return a.entry.operation < b.entry.operation ? -1 : 1;
    const t = seconds(a) - seconds(b);
    if (t !== 0) return t;
    for (const k of ['manager', 'apiVersion', 'subresource'] as const) {
      const x = a.entry[k] ?? '';
      const y = b.entry[k] ?? '';
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  };
  return managers
    .filter((m) => m.set.size > 0)
    .sort(order)
    .map((m) => {
      const fieldsV1 = encoded.get(m.set) ?? m.set.toFieldsV1();
      const e: ManagedFieldsEntry = { manager: m.entry.manager, operation: m.entry.operation, apiVersion: m.entry.apiVersion, time: m.entry.time, fieldsType: 'FieldsV1', fieldsV1 };
      if (m.entry.subresource) e.subresource = m.entry.subresource;
      return e;
    });
}

/** Drop from every manager but `except` the paths `taken`, and from all the paths `removed`. */
export function takeFrom(managers: Manager[], except: Manager | undefined, taken: FieldSet, removed: FieldSet): void {
  for (const m of managers) {
    if (m === except) continue;
    m.set = m.set.difference(taken).difference(removed);
  }
}

/** Whether a JSON, merge or strategic patch may change `metadata.managedFields` (or metadata as a whole). */
export function patchesManagedFields(type: string, body: unknown): boolean {
  if (type === 'json') {
    if (!Array.isArray(body)) return true;
    return body.some((op) => {
      const paths = [op?.path, op?.from].filter((p): p is string => typeof p === 'string');
      return paths.some((p) => p === '' || p === '/metadata' || p.startsWith('/metadata/managedFields'));
    });
  }
  if (!isPlainObject(body)) return true;
  const meta = body.metadata;
  return meta === null || '$patch' in body || (isPlainObject(meta) && ('managedFields' in meta || '$patch' in meta || '$retainKeys' in meta));
}

/** Everything an Update needs. */
export interface UpdateInput {
  kind: KindInfo;
  scope: WriteScope;
  /** The stored object; undefined for a create. */
  live?: KubeObject;
  /** The object the write asks for (server-set fields restored), before admission. */
  next: KubeObject;
  /** `metadata.managedFields` exactly as the request carried it. */
  requested: unknown;
  manager: string;
  /** RFC 3339 timestamp for the writer's entry. */
  now: string;
}

/** The managers an Update starts from (fieldmanager.go Update and decodeLiveOrNew). */
function startingManagers(input: UpdateInput): Manager[] {
  const stored = () => decodeManagers(input.live?.metadata.managedFields ?? []) ?? [];
  if (input.scope !== undefined) return stored();
  // Most writes send back the stored list unchanged (a patch of the stored object, a PUT of what was read).
  if (input.live && (input.requested === input.live.metadata.managedFields || deepEqual(input.requested, input.live.metadata.managedFields))) return stored();
  const requested = decodeManagers(input.requested);
  if (requested && requested.length > 0) return requested;
  if (isReset(input.requested)) return [];
  return stored();
}

/**
 * The object a create is compared against: kube-apiserver starts from the kind's empty Go object, whose
 * struct-typed `spec` and `status` exist (empty) for built-in kinds, so a create does not add them as wholes;
 * a custom resource starts from nothing.
 */
export function emptyObject(kind: KindInfo): JsonObject {
  if (!kind.builtIn) return {};
  const properties = ((kind.schema as JsonObject).properties ?? {}) as Record<string, JsonObject>;
  const out: JsonObject = {};
  for (const k of ['spec', 'status']) if (properties[k]?.type === 'object') out[k] = {};
  return out;
}

/** The managedFields after an Update by `input.manager` (see the file comment). */
export function managedFieldsAfterUpdate(input: UpdateInput): ManagedFieldsEntry[] {
  const { kind, scope } = input;
  const managers = startingManagers(input);
  // skipNonAppliedManager: an existing object nobody tracks stays untracked (creates are always tracked).
  if (managers.length === 0 && input.live) return [];
  const c = compareObjects(ownable(kind, input.live ?? emptyObject(kind), scope), ownable(kind, input.next, scope));
  const changed = c.added.union(c.modified);
  const entry = { manager: input.manager, operation: 'Update' as const, apiVersion: apiVersionOf(kind), fieldsType: 'FieldsV1' as const, ...(scope ? { subresource: scope } : {}) };
  const id = managerIdentifier(entry);
  const mine = managers.find((m) => managerIdentifier(m.entry) === id);
  // The writer loses what was removed and keeps (or gains) what it changed: the same as losing both, then
  // gaining the changed paths, without rebuilding a set it already has.
  takeFrom(managers, mine, changed, c.removed);
  if (mine) mine.set = mine.set.difference(c.removed);
  if (changed.size > 0) {
    if (mine) {
      mine.set = mine.set.union(changed);
      mine.entry.time = input.now;
    } else {
      managers.push({ entry: { ...entry, time: input.now }, set: changed });
    }
  }
  return encodeManagers(capUpdateManagers(managers.filter((m) => m.set.size > 0)));
}

/** Paths in sorted order, for deterministic messages. */
export function sortedPaths(set: FieldSet): FieldPath[] {
  return set.toArray().sort(comparePaths);
}

/** Whether `path` or something under it is owned by one of `managers`. */
export function ownedAtOrBelow(managers: Manager[], path: FieldPath): boolean {
  return managers.some((m) => m.set.hasAtOrBelow(path));
}
