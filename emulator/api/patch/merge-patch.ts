/**
 * application/merge-patch+json (RFC 7386), written by hand because the npm library mutates its target:
 * null deletes a key, objects merge recursively, arrays and scalars replace.
 */
import { badRequest } from '../errors';
import { JsonObject, clone, isPlainObject, jsonTypeName } from '../store-json';

/** RFC 7386 MergePatch(target, patch); never mutates either argument. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return clone(patch);
  const out: JsonObject = isPlainObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}

/** Apply a merge patch body to `doc`; a body that is not a JSON object is 400. Returns a new object. */
export function applyMergePatch(doc: JsonObject, body: unknown): JsonObject {
  if (!isPlainObject(body)) {
    throw badRequest(`error decoding patch: a merge patch must be a JSON object, got ${jsonTypeName(body)}`);
  }
  return clone(mergePatch(doc, body)) as JsonObject;
}
