/**
 * Request-shape checks and the store-specific Status errors whose wording comes from the apiserver's
 * generic registry (docs/design/kube-api.md §11; docs/design/kube-api-errors.md §"Status shapes").
 */
import { StatusError, badRequest, conflict, resourceDetails } from './errors';
import { isPlainObject } from './store-json';
import { KindInfo, KubeObject, apiVersionOf, qualifiedResource } from './types';

/**
 * 400 unless the body's apiVersion/kind (when present) are the endpoint's; a missing one is filled in, so
 * internal callers may leave them out. Also rejects bodies without an object `metadata`.
 */
export function checkBodyType(kind: KindInfo, obj: unknown): KubeObject {
  if (!isPlainObject(obj)) throw badRequest(`the body of a ${kind.kind} write must be a JSON object`);
  const expected = apiVersionOf(kind);
  if (obj.apiVersion !== undefined && obj.apiVersion !== expected) {
    throw badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${expected})`);
  }
  if (obj.kind !== undefined && obj.kind !== kind.kind) {
    throw badRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${kind.kind})`);
  }
  if (obj.metadata !== undefined && !isPlainObject(obj.metadata)) {
    throw badRequest(`metadata of the ${kind.kind} must be a JSON object`);
  }
  obj.apiVersion = expected;
  obj.kind = kind.kind;
  if (obj.metadata === undefined) obj.metadata = {};
  return obj as KubeObject;
}

/**
 * Namespace scope: namespaced kinds need `metadata.namespace` (400 when missing); cluster-scoped kinds have
 * it cleared, as the apiserver does.
 */
export function checkNamespaceScope(kind: KindInfo, obj: KubeObject): void {
  if (kind.namespaced) {
    if (typeof obj.metadata.namespace !== 'string' || obj.metadata.namespace === '') {
      throw badRequest(`${kind.kind} "${obj.metadata.name ?? obj.metadata.generateName ?? ''}" has no metadata.namespace: ${qualifiedResource(kind)} are namespaced; set metadata.namespace`);
    }
  } else {
    delete obj.metadata.namespace;
  }
}

/**
 * For the HTTP layer: the body of a PUT/PATCH/POST must name the object of the URL. Fills a missing body
 * namespace from the URL; 400 on a name or namespace mismatch (apiserver wording).
 */
export function assertTargetMatches(kind: KindInfo, urlNamespace: string | undefined, urlName: string | undefined, obj: KubeObject): void {
  const meta = obj.metadata ?? (obj.metadata = {});
  if (kind.namespaced && urlNamespace !== undefined) {
    if (meta.namespace === undefined || meta.namespace === '') meta.namespace = urlNamespace;
    else if (meta.namespace !== urlNamespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
  }
  if (urlName !== undefined) {
    if (meta.name === undefined || meta.name === '') meta.name = urlName;
    else if (meta.name !== urlName) {
      throw badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${urlName})`);
    }
  }
}

/** 500 for a create carrying a resourceVersion (an etcd3 store error, so no reason). */
export function resourceVersionOnCreate(): StatusError {
  return new StatusError(500, undefined, 'resourceVersion should not be set on objects to be created');
}

/** 422 for a PUT without resourceVersion on a kind that refuses unconditional updates (details.kind = plural). */
export function resourceVersionRequired(kind: KindInfo, name: string): StatusError {
  const details = {
    ...resourceDetails(kind, name),
    causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: 0x0: must be specified for an update', field: 'metadata.resourceVersion' }],
  };
  return new StatusError(
    422,
    'Invalid',
    `${qualifiedResource(kind)} "${name}" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update`,
    details,
  );
}

/** 409 for a failed uid/resourceVersion precondition (delete options, or a uid in an update body). */
export function preconditionFailed(kind: KindInfo, name: string, what: 'UID' | 'ResourceVersion', wanted: string, actual: string | undefined): StatusError {
  return conflict(kind, name, `Precondition failed: ${what} in precondition: ${wanted}, ${what} in object meta: ${actual ?? ''}`);
}

/** 403 for creating in a namespace that is being deleted (NamespaceLifecycle admission). */
export function namespaceTerminating(kind: KindInfo, name: string, namespace: string): StatusError {
  const details = {
    ...resourceDetails(kind, name),
    causes: [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }],
  };
  return new StatusError(
    403,
    'Forbidden',
    `${qualifiedResource(kind)} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
    details,
  );
}

/** 400 for a resourceVersion that is not a decimal number (watch start, precondition). */
export function invalidResourceVersion(rv: string): StatusError {
  return badRequest(`invalid resourceVersion "${rv}": resource versions are decimal numbers returned by this server; use one from a list or an object`);
}

/** Parse a client resourceVersion; 400 when it is not a non-negative decimal integer. */
export function parseResourceVersion(rv: string): number {
  if (!/^\d+$/.test(rv)) throw invalidResourceVersion(rv);
  return Number(rv);
}
