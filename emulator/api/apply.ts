/**
 * Server-side apply (application/apply-patch+yaml) as structured-merge-diff's `Updater.Apply` does it
 * (sigs.k8s.io/structured-merge-diff v4 merge/update.go, with k8s.io/apimachinery pkg/util/managedfields/
 * internal: skipnonapplied.go, lastappliedmanager.go, lastappliedupdater.go, conflict.go; v0.32), over the
 * emulator's model (maps granular, lists atomic; docs/design/kube-api.md §4):
 *
 * 1. The applier's Apply entry becomes exactly the leaf paths of its configuration.
 * 2. The configuration is merged into the live object (maps recurse, everything else replaces).
 * 3. Paths the applier owned before and no longer sends are removed, unless some manager (Apply or Update)
 *    still owns them or something under them; maps left empty by that and owned by nobody go too.
 * 4. Comparing live and result: any other manager, Apply or Update, owning a path the apply adds or modifies is
 *    a conflict (409 naming it, Update managers "using <apiVersion>") unless `force`, which moves the path to
 *    the applier; paths the result lost are dropped from every manager.
 * 5. An object nobody tracks yet is first given to `before-first-apply` (an Update entry owning all it holds).
 * 6. For the manager `kubectl` only (kubectl's client-side → server-side upgrade): conflicts on fields whose
 *    live value still equals the `kubectl.kubernetes.io/last-applied-configuration` annotation are forced,
 *    and that annotation, when present, is rewritten to the applied configuration.
 *
 * Scope: on a kind with a status subresource, an apply to the main resource neither owns nor changes
 * `.status`; an apply to `/status` owns and changes only `.status`.
 */
import { parse as parseYaml } from 'yaml';
import { applyConflict, badRequest, optionsInvalid, StatusError } from './errors';
import { BEFORE_FIRST_APPLY, Manager, compareObjects, emptyObject, decodeManagers, encodeManagers, managerIdentifier, ownable, ownedAtOrBelow, printManager, sortedPaths, takeFrom } from './field-manager';
import { LAST_APPLIED_ANNOTATION, KUBECTL_APPLY_MANAGER, allowedByLastApplied, lastAppliedText } from './last-applied';
import { FieldPath, FieldSet, deleteAt, formatPath, isPrefix, valueAt } from './managed-fields';
import { JsonObject, clone, copyJson, deepEqual, isPlainObject, jsonTypeName } from './store-json';
import { KindInfo, KubeObject, apiVersionOf } from './types';

/** 422 for an apply patch without a field manager, worded as the apiserver does. */
export function fieldManagerRequired(): StatusError {
  return optionsInvalid('PatchOptions', 'fieldManager', 'FieldValueRequired', 'Required value: is required for apply patch');
}

/** 422 for `force` on a patch that is not an apply. */
export function forceNotAllowed(): StatusError {
  return optionsInvalid('PatchOptions', 'force', 'FieldValueForbidden', 'Forbidden: may not be specified for non-apply patch');
}

/** Decode an apply body: YAML or JSON text (JSON is YAML), a Buffer, or an already decoded object. */
export function decodeApplyBody(body: unknown): JsonObject {
  if (Buffer.isBuffer(body)) body = body.toString('utf8');
  let decoded: unknown = body;
  if (typeof body === 'string') {
    try {
      decoded = parseYaml(body);
    } catch (err) {
      throw badRequest(`error decoding YAML: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  if (!isPlainObject(decoded)) throw badRequest(`error decoding YAML: an apply patch must be an object, got ${jsonTypeName(decoded)}`);
  return clone(decoded);
}

function stripNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripNulls);
  if (!isPlainObject(value)) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) out[k] = stripNulls(v);
  return out;
}

/** Merge applied values into live: maps recurse, everything else replaces. Mutates `live`. */
function mergeInto(live: JsonObject, applied: JsonObject): void {
  for (const [k, v] of Object.entries(applied)) {
    if (isPlainObject(v) && isPlainObject(live[k])) mergeInto(live[k] as JsonObject, v);
    else live[k] = clone(v);
  }
}

/** Everything one apply needs. */
export interface ApplyInput {
  kind: KindInfo;
  /** The stored object, or undefined for create-on-apply. */
  existing?: KubeObject;
  /** Decoded applied configuration (identity already checked by the caller). */
  applied: JsonObject;
  manager: string;
  force: boolean;
  subresource?: 'status';
  /** Timestamp for the manager's entry (RFC 3339). */
  now: string;
}

/** One path another manager owns and this apply would change. */
interface Conflict {
  owner: Manager['entry'];
  path: FieldPath;
}

class ApplyConflicts extends Error {
  constructor(readonly conflicts: Conflict[]) {
    super('apply conflicts');
  }
}

function conflictStatus(conflicts: Conflict[]): StatusError {
  return applyConflict(conflicts.map((c) => ({ manager: c.owner.manager, printed: printManager(c.owner), identifier: managerIdentifier(c.owner), field: formatPath(c.path) })));
}

/**
 * Compute the object an apply produces (not yet stored): merged values, removed fields and rewritten
 * managedFields. Throws 409 on conflicts unless forced (or allowed by kubectl's last-applied annotation).
 */
export function serverSideApply(input: ApplyInput): KubeObject {
  let result: KubeObject;
  try {
    result = applyOnce(input, input.force);
  } catch (err) {
    if (!(err instanceof ApplyConflicts)) throw err;
    // lastAppliedManager: only kubectl's own server-side apply may take over what its client-side apply set.
    const allowed = input.manager === KUBECTL_APPLY_MANAGER && input.existing ? allowedByLastApplied(input.kind, input.existing, input.subresource) : undefined;
    if (!allowed) throw conflictStatus(err.conflicts);
    const remaining = err.conflicts.filter((c) => !allowed.has(c.path));
    if (remaining.length > 0) throw conflictStatus(remaining);
    result = applyOnce(input, true);
  }
  // lastAppliedUpdater: keep kubectl's client-side annotation in step with what kubectl applies server-side.
  const annotations = result.metadata.annotations;
  if (input.manager === KUBECTL_APPLY_MANAGER && annotations?.[LAST_APPLIED_ANNOTATION] !== undefined) {
    result.metadata.annotations = { ...annotations, [LAST_APPLIED_ANNOTATION]: lastAppliedText(input.applied) };
  }
  return result;
}

/** The managers an apply starts from: the stored ones, or `before-first-apply` owning an untracked object. */
function startingManagers(input: ApplyInput): Manager[] {
  const { kind, existing } = input;
  const managers = decodeManagers(existing?.metadata.managedFields ?? []) ?? [];
  if (managers.length > 0 || !existing) return managers;
  const c = compareObjects(ownable(kind, emptyObject(kind), input.subresource), ownable(kind, existing, input.subresource));
  const set = c.added.union(c.modified);
  if (set.size === 0) return [];
  return [{ entry: { manager: BEFORE_FIRST_APPLY, operation: 'Update', apiVersion: apiVersionOf(kind), time: input.now, fieldsType: 'FieldsV1' }, set }];
}

function applyOnce(input: ApplyInput, force: boolean): KubeObject {
  const { kind, existing, manager, subresource } = input;
  const cfg = stripNulls(input.applied) as JsonObject;
  if (isPlainObject(cfg.metadata)) delete (cfg.metadata as JsonObject).managedFields;

  // The part of the configuration this apply owns and merges.
  let scoped: JsonObject;
  if (subresource === 'status') {
    scoped = cfg.status === undefined ? {} : { status: cfg.status };
  } else {
    scoped = { ...cfg };
    if (kind.statusSubresource) delete scoped.status;
  }
  const inScope = (p: FieldPath): boolean =>
    subresource === 'status' ? p[0] === 'status' : !(kind.statusSubresource && p[0] === 'status');

  const live: JsonObject = existing ? copyJson(existing) : { apiVersion: cfg.apiVersion, kind: cfg.kind, metadata: {} };
  const managers = startingManagers(input);
  const newSet = FieldSet.fromObject(scoped);
  newSet.delete(['metadata']);
  const identity = { manager, operation: 'Apply' as const, apiVersion: apiVersionOf(kind), fieldsType: 'FieldsV1' as const, ...(subresource ? { subresource } : {}) };
  let mine = managers.find((m) => managerIdentifier(m.entry) === managerIdentifier(identity));
  const lastSet = mine?.set ?? new FieldSet();
  if (mine) mine.set = newSet;
  else managers.push((mine = { entry: { ...identity, time: input.now }, set: newSet }));

  const merged = copyJson(live) as JsonObject;
  mergeInto(merged, scoped);

  // Pruning: what this manager applied before and no longer applies, unless someone still owns it.
  for (const q of sortedPaths(lastSet)) {
    if (!inScope(q) || ownedAtOrBelow(managers, q)) continue;
    if (!deleteAt(merged, q)) continue;
    for (let n = q.length - 1; n >= 1; n--) {
      const parent = q.slice(0, n);
      const v = valueAt(merged, parent);
      if (parent.length === 1 && parent[0] === 'metadata') break;
      if (!isPlainObject(v) || Object.keys(v).length > 0 || ownedAtOrBelow(managers, parent) || newSet.toArray().some((p) => isPrefix(parent, p))) break;
      deleteAt(merged, parent);
    }
  }

  // Conflicts: another manager owns a path this apply adds or modifies.
  const c = compareObjects(ownable(kind, live, subresource), ownable(kind, merged, subresource));
  const changed = c.added.union(c.modified);
  const conflicts: Conflict[] = [];
  for (const m of managers) {
    if (m === mine) continue;
    for (const path of sortedPaths(m.set.intersection(changed))) conflicts.push({ owner: m.entry, path });
  }
  if (conflicts.length > 0 && !force) throw new ApplyConflicts(conflicts);
  takeFrom(managers, mine, changed, c.removed);

  // Identity comes from the configuration (checked by the caller); a resourceVersion in it is a precondition.
  const meta = merged.metadata as JsonObject;
  const cfgMeta = (isPlainObject(cfg.metadata) ? cfg.metadata : {}) as JsonObject;
  for (const k of ['name', 'namespace', 'resourceVersion', 'uid'] as const) if (cfgMeta[k] !== undefined) meta[k] = cfgMeta[k];
  merged.apiVersion = apiVersionOf(kind);
  merged.kind = kind.kind;

  // managedFieldsUpdater: the applier's time moves only when the object changes.
  const unchanged = existing !== undefined && deepEqual(ownable(kind, live, undefined), ownable(kind, merged, undefined)) && deepEqual(live.status, merged.status);
  if (!unchanged) mine.entry.time = input.now;
  const entries = encodeManagers(managers);
  if (entries.length > 0) meta.managedFields = entries;
  else delete meta.managedFields;
  return merged as KubeObject;
}
