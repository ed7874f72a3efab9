/**
 * Server-side apply (application/apply-patch+yaml), the honest subset of research §5.5:
 *
 * 1. The applier owns exactly the leaf paths of its applied configuration (maps recurse, lists are atomic,
 *    labels/annotations per key). Only Apply managers are tracked.
 * 2. A path another Apply manager owns, set to a different value than the live one, is a conflict: 409 via
 *    errors.applyConflict, unless `force`, which moves the path to the applier.
 * 3. A path the applier owned before and no longer sends is removed from the object, unless another Apply
 *    manager also owns it; maps left empty by that removal and owned by nobody go too.
 * 4. The applied values are merged into the live object; the applier's managedFields entry is rewritten.
 *
 * Scope: on a kind with a status subresource, an apply to the main resource neither owns nor changes
 * `.status`; an apply to `/status` owns and changes only `.status`.
 *
 * Known gaps (documented, not emulated): conflicts with Update managers, and listType=set/map semantics.
 */
import { parse as parseYaml } from 'yaml';
import { applyConflict, badRequest, optionsInvalid, StatusError } from './errors';
import { FieldPath, FieldSet, deleteAt, formatPath, isPrefix, sameEntry, valueAt } from './managed-fields';
import { JsonObject, clone, copyJson, deepEqual, isPlainObject, jsonTypeName } from './store-json';
import { KindInfo, KubeObject, ManagedFieldsEntry, apiVersionOf } from './types';

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

/**
 * Compute the object an apply produces (not yet stored): merged values, removed fields and rewritten
 * managedFields. Throws 409 on conflicts unless forced.
 */
export function serverSideApply(input: ApplyInput): KubeObject {
  const { kind, existing, manager, force, subresource } = input;
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
  const entries: ManagedFieldsEntry[] = clone(((live.metadata as JsonObject).managedFields as ManagedFieldsEntry[]) ?? []);
  const newSet = FieldSet.fromObject(scoped);
  const mine = entries.find((e) => sameEntry(e, manager, 'Apply', subresource));
  const oldSet = mine ? FieldSet.fromFieldsV1(mine.fieldsV1) : new FieldSet();
  const others = entries
    .filter((e) => e.operation === 'Apply' && e !== mine)
    .map((e) => ({ entry: e, set: FieldSet.fromFieldsV1(e.fieldsV1) }));

  // Conflicts: another applier owns an overlapping path whose value this apply would change.
  const conflicts: { manager: string; field: string }[] = [];
  const forced: { set: FieldSet; path: FieldPath }[] = [];
  for (const p of newSet.toArray()) {
    if (deepEqual(valueAt(scoped, p), valueAt(live, p))) continue;
    for (const o of others) {
      for (const q of o.set.overlapping(p)) {
        const field = formatPath(q.length >= p.length ? q : p);
        if (!conflicts.some((c) => c.manager === o.entry.manager && c.field === field)) {
          conflicts.push({ manager: o.entry.manager, field });
        }
        forced.push({ set: o.set, path: q });
      }
    }
  }
  if (conflicts.length > 0 && !force) throw applyConflict(conflicts);
  for (const f of forced) f.set.delete(f.path);

  // Removal of fields this manager dropped from its configuration.
  const ownedByOthers = (p: FieldPath): boolean => others.some((o) => o.set.overlapping(p).length > 0);
  for (const q of oldSet.toArray()) {
    if (!inScope(q) || newSet.overlapping(q).length > 0 || ownedByOthers(q)) continue;
    if (!deleteAt(live, q)) continue;
    for (let n = q.length - 1; n >= 1; n--) {
      const parent = q.slice(0, n);
      const v = valueAt(live, parent);
      if (parent.length === 1 && parent[0] === 'metadata') break;
      if (!isPlainObject(v) || Object.keys(v).length > 0 || ownedByOthers(parent) || newSet.toArray().some((p) => isPrefix(parent, p))) break;
      deleteAt(live, parent);
    }
  }

  mergeInto(live, scoped);
  // Identity comes from the configuration (checked by the caller); a resourceVersion in it is a precondition.
  const meta = live.metadata as JsonObject;
  const cfgMeta = (isPlainObject(cfg.metadata) ? cfg.metadata : {}) as JsonObject;
  for (const k of ['name', 'namespace', 'resourceVersion', 'uid'] as const) if (cfgMeta[k] !== undefined) meta[k] = cfgMeta[k];
  live.apiVersion = apiVersionOf(kind);
  live.kind = kind.kind;

  // Rewrite managedFields: others minus forced paths, mine replaced; empty entries disappear.
  const next: ManagedFieldsEntry[] = [];
  for (const e of entries) {
    if (e === mine) continue;
    const o = others.find((x) => x.entry === e);
    if (o && o.set.size === 0) continue;
    next.push(o ? { ...e, fieldsV1: o.set.toFieldsV1() } : e);
  }
  if (newSet.size > 0) {
    const entry: ManagedFieldsEntry = {
      manager,
      operation: 'Apply',
      apiVersion: apiVersionOf(kind),
      time: input.now,
      fieldsType: 'FieldsV1',
      fieldsV1: newSet.toFieldsV1(),
    };
    if (subresource) entry.subresource = subresource;
    const at = mine ? entries.indexOf(mine) : -1;
    if (at >= 0) next.splice(Math.min(at, next.length), 0, entry);
    else next.push(entry);
  }
  if (next.length > 0) meta.managedFields = next;
  else delete meta.managedFields;
  return live as KubeObject;
}
