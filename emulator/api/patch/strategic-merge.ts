/**
 * application/strategic-merge-patch+json: the honest subset built-in kinds need (docs/design/kube-api.md §15).
 *
 * RFC 7386 merge plus:
 * - lists merged by key where the kind declares one (KindInfo.smpMergeKeys, e.g. {'spec.ports': 'port'}),
 *   and `metadata.ownerReferences` by `uid`; `metadata.finalizers` merges as a set of strings;
 *   every other list replaces;
 * - directives `$patch: delete|replace|merge` on maps and list elements, `$setElementOrder/<field>`,
 *   `$deleteFromPrimitiveList/<field>` and `$retainKeys`. Malformed directives are 400.
 *
 * Paths are dotted map keys without list indices (`spec.template.spec.containers`), as merge keys are
 * declared per field, not per element.
 */
import { badRequest } from '../errors';
import { JsonObject, clone, deepEqual, isPlainObject, jsonTypeName } from '../store-json';

/** Merge keys every kind has, on top of the kind's own. */
export const COMMON_MERGE_KEYS: Readonly<Record<string, string>> = { 'metadata.ownerReferences': 'uid' };

/** Lists of strings that merge as sets. */
export const COMMON_SET_LISTS: ReadonlySet<string> = new Set(['metadata.finalizers']);

const SET_ORDER = '$setElementOrder/';
const DELETE_FROM = '$deleteFromPrimitiveList/';
const DELETE = Symbol('delete');

interface Ctx {
  mergeKeys: Record<string, string>;
  setLists: ReadonlySet<string>;
}

function malformed(where: string, why: string): never {
  throw badRequest(`invalid strategic merge patch at ${where || '<root>'}: ${why}`);
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

/** Remove directives from a value that is being inserted as new content. */
function fresh(value: unknown, path: string, ctx: Ctx): unknown {
  if (isPlainObject(value)) {
    const r = mergeMap(undefined, value, path, ctx);
    return r === DELETE ? undefined : r;
  }
  if (Array.isArray(value)) return value.map((v) => fresh(v, path, ctx)).filter((v) => v !== undefined);
  return value;
}

function mergeMap(orig: JsonObject | undefined, patch: JsonObject, path: string, ctx: Ctx): JsonObject | typeof DELETE {
  const directive = patch.$patch;
  if (directive !== undefined) {
    if (directive === 'delete') return DELETE;
    if (directive === 'replace') {
      const rest = { ...patch };
      delete rest.$patch;
      return mergeMap(undefined, rest, path, ctx) as JsonObject;
    }
    if (directive !== 'merge') malformed(path, `unknown $patch directive ${JSON.stringify(directive)}; expected "delete", "replace" or "merge"`);
  }
  const out: JsonObject = orig ? { ...orig } : {};

  if ('$retainKeys' in patch) {
    const keep = patch.$retainKeys;
    if (!Array.isArray(keep) || keep.some((k) => typeof k !== 'string')) malformed(path, '$retainKeys must be a list of strings');
    for (const k of Object.keys(patch)) {
      if (!k.startsWith('$') && !(keep as string[]).includes(k)) malformed(path, `key "${k}" is not listed in $retainKeys`);
    }
    for (const k of Object.keys(out)) if (!(keep as string[]).includes(k)) delete out[k];
  }

  // Deletions from primitive lists go first, so a patch may remove one finalizer and add another.
  for (const [k, v] of Object.entries(patch)) {
    if (!k.startsWith(DELETE_FROM)) continue;
    const field = k.slice(DELETE_FROM.length);
    if (!Array.isArray(v)) malformed(join(path, k), `must be a list, got ${jsonTypeName(v)}`);
    const current = out[field];
    if (Array.isArray(current)) out[field] = current.filter((x) => !v.some((d) => deepEqual(d, x)));
  }

  for (const [k, v] of Object.entries(patch)) {
    if (k === '$patch' || k === '$retainKeys' || k.startsWith(DELETE_FROM) || k.startsWith(SET_ORDER)) continue;
    if (k.startsWith('$')) malformed(join(path, k), `unknown directive "${k}"`);
    const p = join(path, k);
    if (v === null) {
      delete out[k];
    } else if (isPlainObject(v)) {
      const r = mergeMap(isPlainObject(out[k]) ? (out[k] as JsonObject) : undefined, v, p, ctx);
      if (r === DELETE) delete out[k];
      else out[k] = r;
    } else if (Array.isArray(v)) {
      out[k] = mergeList(out[k], v, p, ctx);
    } else {
      out[k] = v;
    }
  }

  for (const [k, v] of Object.entries(patch)) {
    if (!k.startsWith(SET_ORDER)) continue;
    const field = k.slice(SET_ORDER.length);
    if (!Array.isArray(v)) malformed(join(path, k), `must be a list, got ${jsonTypeName(v)}`);
    const list = out[field];
    if (Array.isArray(list)) out[field] = reorder(list, v, ctx.mergeKeys[join(path, field)], join(path, k));
  }
  return out;
}

/** Items named in `order` first, in that order; the rest keep their relative order after them. */
function reorder(list: unknown[], order: unknown[], key: string | undefined, where: string): unknown[] {
  const wanted = order.map((o) => {
    if (key === undefined) return o;
    if (!isPlainObject(o) || !(key in o)) malformed(where, `every element must carry the merge key "${key}"`);
    return (o as JsonObject)[key];
  });
  const rank = (item: unknown): number => {
    const id = key !== undefined && isPlainObject(item) ? item[key] : item;
    const i = wanted.findIndex((w) => deepEqual(w, id));
    return i < 0 ? wanted.length : i;
  };
  return list
    .map((item, i) => ({ item, i, r: rank(item) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((x) => x.item);
}

function mergeList(orig: unknown, patch: unknown[], path: string, ctx: Ctx): unknown[] {
  const key = ctx.mergeKeys[path];
  if (key !== undefined) return mergeListByKey(Array.isArray(orig) ? orig : [], patch, key, path, ctx);
  if (ctx.setLists.has(path)) {
    const out = Array.isArray(orig) ? [...orig] : [];
    for (const v of patch) if (!out.some((o) => deepEqual(o, v))) out.push(clone(v));
    return out;
  }
  // No merge strategy declared: the patch's list replaces the old one.
  return fresh(patch, path, ctx) as unknown[];
}

function mergeListByKey(orig: unknown[], patch: unknown[], key: string, path: string, ctx: Ctx): unknown[] {
  let out = [...orig];
  const replaceAll = patch.some((el) => isPlainObject(el) && el.$patch === 'replace' && Object.keys(el).length === 1);
  if (replaceAll) out = [];
  for (const [i, el] of patch.entries()) {
    const where = `${path}[${i}]`;
    if (!isPlainObject(el)) malformed(where, `elements of a list merged by "${key}" must be objects, got ${jsonTypeName(el)}`);
    if (el.$patch === 'replace' && Object.keys(el).length === 1) continue;
    if (!(key in el)) malformed(where, `element does not contain the declared merge key "${key}"`);
    const idx = out.findIndex((o) => isPlainObject(o) && deepEqual(o[key], el[key]));
    if (el.$patch === 'delete') {
      if (idx >= 0) out = out.filter((o) => !(isPlainObject(o) && deepEqual(o[key], el[key])));
      continue;
    }
    const merged = mergeMap(idx >= 0 ? (out[idx] as JsonObject) : undefined, el, path, ctx);
    if (merged === DELETE) continue;
    if (idx >= 0) out[idx] = merged;
    else out.push(merged);
  }
  return out;
}

/**
 * Apply a strategic merge patch body (decoded JSON) to `doc`; returns a new object. `mergeKeys` are the
 * kind's own (`KindInfo.smpMergeKeys`); the common ones are added here.
 */
export function applyStrategicMergePatch(doc: JsonObject, body: unknown, mergeKeys: Record<string, string> = {}): JsonObject {
  if (!isPlainObject(body)) {
    throw badRequest(`error decoding patch: a strategic merge patch must be a JSON object, got ${jsonTypeName(body)}`);
  }
  const ctx: Ctx = { mergeKeys: { ...COMMON_MERGE_KEYS, ...mergeKeys }, setLists: COMMON_SET_LISTS };
  const r = mergeMap(clone(doc), body, '', ctx);
  if (r === DELETE) malformed('', '$patch: delete on the whole object is not allowed');
  return clone(r);
}
