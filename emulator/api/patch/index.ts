/**
 * PATCH dispatch by patch type (docs/design/kube-api.md §15): which media types a kind accepts, body decoding, and the
 * three non-apply patchers. Server-side apply lives in ../apply.ts because it needs ownership state.
 */
import { badRequest, unsupportedMediaType } from '../errors';
import { JsonObject } from '../store-json';
import { KindInfo, PatchType } from '../types';
import { applyJsonPatch } from './json-patch';
import { applyMergePatch } from './merge-patch';
import { applyStrategicMergePatch } from './strategic-merge';

export { applyJsonPatch, MAX_JSON_PATCH_OPERATIONS } from './json-patch';
export { applyMergePatch, mergePatch } from './merge-patch';
export { applyStrategicMergePatch, COMMON_MERGE_KEYS, COMMON_SET_LISTS } from './strategic-merge';

/** Content-Type of each patch type. */
export const PATCH_MEDIA_TYPES: Readonly<Record<PatchType, string>> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

/** Patch types a kind accepts, in the order the apiserver lists them: CRDs have no strategic merge. */
export function acceptedPatchTypes(kind: Pick<KindInfo, 'builtIn'>): PatchType[] {
  return kind.builtIn ? ['json', 'merge', 'strategic', 'apply'] : ['json', 'merge', 'apply'];
}

/** The patch type for a Content-Type (parameters such as `;charset=` ignored), or undefined. */
export function patchTypeOf(contentType: string | undefined): PatchType | undefined {
  const bare = (contentType ?? '').split(';')[0].trim().toLowerCase();
  return (Object.keys(PATCH_MEDIA_TYPES) as PatchType[]).find((t) => PATCH_MEDIA_TYPES[t] === bare);
}

/**
 * 415 UnsupportedMediaType (with the exact accepted list) unless `kind` accepts `type`; an unknown
 * Content-Type (`patchTypeOf` gave undefined) is refused the same way.
 */
export function checkPatchTypeAllowed(kind: Pick<KindInfo, 'builtIn'>, type: PatchType | undefined): asserts type is PatchType {
  const accepted = acceptedPatchTypes(kind);
  if (type === undefined || !accepted.includes(type)) throw unsupportedMediaType(accepted.map((t) => PATCH_MEDIA_TYPES[t]));
}

/** Decode a JSON patch body given as text (a Buffer or string); decoded values pass through. */
export function decodeJsonBody(body: unknown): unknown {
  if (Buffer.isBuffer(body)) body = body.toString('utf8');
  if (typeof body !== 'string') return body;
  try {
    return JSON.parse(body);
  } catch (err) {
    throw badRequest(`error decoding patch: ${(err as Error).message}`);
  }
}

/**
 * Apply a json, merge or strategic patch to `doc` (not mutated); returns the patched object. The caller has
 * checked that `kind` accepts `type` (checkPatchTypeAllowed).
 */
export function applyNonApplyPatch(kind: KindInfo, doc: JsonObject, type: Exclude<PatchType, 'apply'>, body: unknown): JsonObject {
  const decoded = decodeJsonBody(body);
  switch (type) {
    case 'json':
      return applyJsonPatch(doc, decoded);
    case 'merge':
      return applyMergePatch(doc, decoded);
    case 'strategic':
      return applyStrategicMergePatch(doc, decoded, kind.smpMergeKeys ?? {});
  }
}
