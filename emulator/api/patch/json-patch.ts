/**
 * application/json-patch+json (RFC 6902) through fast-json-patch in validating mode. A body that is not
 * an array is 400 (the apiserver fails to decode it); an operation that cannot apply is 422 Invalid with a
 * message in the style of the Go json-patch library the apiserver uses. The document itself never appears in
 * a message (it may hold secrets or userdata).
 */
import { applyPatch, JsonPatchError, Operation } from 'fast-json-patch';
import { StatusError, badRequest } from '../errors';
import { JsonObject, clone, isPlainObject, jsonTypeName } from '../store-json';

/** The apiserver's cap on operations in one JSON patch. */
export const MAX_JSON_PATCH_OPERATIONS = 10000;

function opFailed(message: string): StatusError {
  return new StatusError(422, 'Invalid', message, {});
}

function describeFailure(err: unknown): string {
  if (err instanceof JsonPatchError) {
    const op = (err.operation ?? {}) as { op?: string; path?: string; from?: string };
    const opName = op.op ?? 'unknown';
    switch (err.name) {
      case 'TEST_OPERATION_FAILED':
        return `testing value ${op.path} failed: test failed`;
      case 'OPERATION_PATH_UNRESOLVABLE':
      case 'OPERATION_PATH_CANNOT_ADD':
        return `jsonpatch ${opName} operation does not apply: doc is missing path: "${op.path}": missing value`;
      case 'OPERATION_FROM_UNRESOLVABLE':
        return `jsonpatch ${opName} operation does not apply: doc is missing from path: "${op.from}": missing value`;
      case 'OPERATION_PATH_ILLEGAL_ARRAY_INDEX':
      case 'OPERATION_VALUE_OUT_OF_BOUNDS':
        return `jsonpatch ${opName} operation does not apply: invalid index in path "${op.path}"`;
      default: {
        const first = err.message.split('\n')[0];
        return `jsonpatch operation ${err.index ?? 0} (${opName}) is invalid: ${first}`;
      }
    }
  }
  return `invalid json patch: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`;
}

/**
 * Apply a JSON patch body (already decoded) to a copy of `doc`; returns the patched copy.
 * 400 for a body that is not an array, 413 for more than 10000 operations, 422 for a failing operation.
 */
export function applyJsonPatch(doc: JsonObject, body: unknown): JsonObject {
  if (!Array.isArray(body)) {
    throw badRequest(`error decoding patch: json: cannot unmarshal ${jsonTypeName(body)} into Go value of type jsonpatch.Patch`);
  }
  if (body.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new StatusError(
      413,
      'RequestEntityTooLarge',
      `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${body.length}`,
    );
  }
  for (const [i, op] of body.entries()) {
    if (!isPlainObject(op)) throw badRequest(`error decoding patch: operation ${i} is not a JSON object`);
  }
  let result: unknown;
  try {
    result = applyPatch(clone(doc), clone(body) as Operation[], true, true).newDocument;
  } catch (err) {
    throw opFailed(describeFailure(err));
  }
  if (!isPlainObject(result)) throw opFailed(`json patch result is a ${jsonTypeName(result)}, not an object`);
  return result;
}
