/**
 * Kubernetes `Status` errors with the exact shapes of k8s.io/apimachinery/pkg/api/errors
 * (docs/design/kube-api-errors.md §"Status shapes"). Every layer of the emulator throws these; the HTTP layer
 * serialises `status` with `code` as the HTTP status.
 */
import { KindInfo, ValidationCause, qualifiedResource } from './types';

export interface StatusCause {
  reason?: string;
  message: string;
  field?: string;
}

export interface StatusBody {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, unknown>;
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: Record<string, unknown>;
  code: number;
}

export class StatusError extends Error {
  readonly code: number;
  readonly status: StatusBody;
  /** Extra response headers (e.g. Retry-After). */
  readonly headers: Record<string, string>;
  /** When set, the body is sent as text/plain instead of a Status (APF-style 429). */
  readonly plainText?: string;

  constructor(
    code: number,
    reason: string | undefined,
    message: string,
    details?: Record<string, unknown>,
    headers: Record<string, string> = {},
    plainText?: string,
  ) {
    super(message);
    this.name = 'StatusError';
    this.code = code;
    this.headers = headers;
    this.plainText = plainText;
    this.status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code };
    if (reason !== undefined) this.status.reason = reason;
    if (details !== undefined) this.status.details = details;
  }
}

/** Status `details` naming one object: name, group (when not core) and kind as the plural, as the apiserver sets them. */
export function resourceDetails(kind: KindInfo, name: string): Record<string, unknown> {
  const details: Record<string, unknown> = { name };
  if (kind.group) details.group = kind.group;
  details.kind = kind.plural;
  return details;
}

export function notFound(kind: KindInfo, name: string): StatusError {
  return new StatusError(404, 'NotFound', `${qualifiedResource(kind)} "${name}" not found`, resourceDetails(kind, name));
}

/** 404 for a namespace that does not exist (NamespaceLifecycle admission). */
export function namespaceNotFound(namespace: string): StatusError {
  return new StatusError(404, 'NotFound', `namespaces "${namespace}" not found`, { name: namespace, kind: 'namespaces' });
}

export function pathNotFound(): StatusError {
  return new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
}

export function alreadyExists(kind: KindInfo, name: string): StatusError {
  return new StatusError(409, 'AlreadyExists', `${qualifiedResource(kind)} "${name}" already exists`, resourceDetails(kind, name));
}

export function conflict(kind: KindInfo, name: string, why = 'the object has been modified; please apply your changes to the latest version and try again'): StatusError {
  return new StatusError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedResource(kind)} "${name}": ${why}`,
    resourceDetails(kind, name),
  );
}

/**
 * 409 from server-side apply (managedfields internal/conflict.go): other managers own fields this apply
 * changes. `manager` names an owner (printed quoted), or `printed` is how it is printed (`"kubectl-edit"
 * using v1`); `identifier` orders the owners as the apiserver sorts them (default: the name).
 */
export function applyConflict(input: { manager: string; printed?: string; identifier?: string; field: string }[]): StatusError {
  const conflicts = input.map((c) => ({ manager: c.printed ?? JSON.stringify(c.manager), identifier: c.identifier ?? c.manager, field: c.field }));
  let message: string;
  if (conflicts.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${conflicts[0].manager}: ${conflicts[0].field}`;
  } else {
    const byOwner = new Map<string, { manager: string; fields: string[] }>();
    for (const c of conflicts) {
      const group = byOwner.get(c.identifier) ?? { manager: c.manager, fields: [] };
      group.fields.push(c.field);
      byOwner.set(c.identifier, group);
    }
    const lines: string[] = [];
    for (const id of [...byOwner.keys()].sort()) {
      const group = byOwner.get(id)!;
      lines.push(`conflicts with ${group.manager}:`, ...group.fields.map((f) => `- ${f}`));
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return new StatusError(409, 'Conflict', message, {
    causes: conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${c.manager}`, field: c.field })),
  });
}

/** The reason of one field cause (the same set schema validation reports). */
export type CauseReason = ValidationCause['reason'];

/**
 * 422 Invalid. `causes[].message` is the per-field text ("Required value", "Unsupported value: ..."); the
 * Status message is `<Kind>.<group> "<name>" is invalid: <field>: <message>` (several joined inside [...]).
 */
export function invalid(kind: KindInfo, name: string, causes: { reason: CauseReason; field: string; message: string }[]): StatusError {
  const kindName = kind.group ? `${kind.kind}.${kind.group}` : kind.kind;
  const parts = causes.map((c) => `${c.field}: ${c.message}`);
  const joined = parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
  const details: Record<string, unknown> = { name };
  if (kind.group) details.group = kind.group;
  details.kind = kind.kind;
  details.causes = causes.map((c) => ({ reason: c.reason, message: c.message, field: c.field }));
  return new StatusError(422, 'Invalid', `${kindName} "${name}" is invalid: ${joined}`, details);
}

/** 422 for several invalid request options at once (`[a, b]` in the message, as an aggregated field.ErrorList). */
export function optionsInvalidCauses(optionsKind: string, causes: { reason: string; field: string; message: string }[]): StatusError {
  const parts = causes.map((c) => `${c.field}: ${c.message}`);
  const joined = parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
  return new StatusError(422, 'Invalid', `${optionsKind}.meta.k8s.io "" is invalid: ${joined}`, {
    group: 'meta.k8s.io',
    kind: optionsKind,
    causes: causes.map((c) => ({ reason: c.reason, message: c.message, field: c.field })),
  });
}

/** 400 with a free-form message, as an admission webhook denial reads on a real cluster. */
export function admissionDenied(hookName: string, message: string): StatusError {
  return new StatusError(400, 'BadRequest', `admission webhook "${hookName}" denied the request: ${message}`);
}

/** 422 for an invalid request option, shaped like the apiserver's `<Kind>Options.meta.k8s.io "" is invalid` error. */
export function optionsInvalid(optionsKind: string, field: string, reason: string, message: string): StatusError {
  return new StatusError(422, 'Invalid', `${optionsKind}.meta.k8s.io "" is invalid: ${field}: ${message}`, {
    group: 'meta.k8s.io',
    kind: optionsKind,
    causes: [{ reason, message, field }],
  });
}

export function badRequest(message: string): StatusError {
  return new StatusError(400, 'BadRequest', message);
}

export function methodNotAllowed(): StatusError {
  return new StatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
}

export function unsupportedMediaType(accepted: string[]): StatusError {
  return new StatusError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
  );
}

export function unauthorized(): StatusError {
  return new StatusError(401, 'Unauthorized', 'Unauthorized');
}

export function forbidden(kind: KindInfo, name: string, user: string, verb: string, namespace?: string): StatusError {
  const where = namespace ? ` in the namespace "${namespace}"` : '';
  return new StatusError(
    403,
    'Forbidden',
    `${qualifiedResource(kind)} "${name}" is forbidden: User "${user}" cannot ${verb} resource "${kind.plural}" in API group "${kind.group}"${where}`,
    resourceDetails(kind, name),
  );
}

/** The `Retry-After` header for a retryable error, or none. */
export function retryAfterHeaders(retryAfterSeconds: number | undefined): Record<string, string> {
  return retryAfterSeconds !== undefined ? { 'Retry-After': String(retryAfterSeconds) } : {};
}

export function tooManyRequests(retryAfterSeconds: number | undefined, plain: boolean): StatusError {
  const headers = retryAfterHeaders(retryAfterSeconds);
  if (plain) return new StatusError(429, 'TooManyRequests', 'Too many requests, please try again later.', undefined, headers, 'Too many requests, please try again later.\n');
  return new StatusError(
    429,
    'TooManyRequests',
    'Too many requests, please try again later.',
    retryAfterSeconds !== undefined ? { retryAfterSeconds } : {},
    headers,
  );
}

export function internalError(cause: string, retryAfterSeconds?: number): StatusError {
  const headers = retryAfterHeaders(retryAfterSeconds);
  return new StatusError(500, 'InternalError', `Internal error occurred: ${cause}`, { causes: [{ message: cause }] }, headers);
}

export function serviceUnavailable(retryAfterSeconds?: number): StatusError {
  const headers = retryAfterHeaders(retryAfterSeconds);
  return new StatusError(503, 'ServiceUnavailable', 'the server is currently unable to handle the request', {}, headers);
}

export function expired(message: string): StatusError {
  return new StatusError(410, 'Expired', message);
}

/** The Status a successful delete answers with (details.kind is the plural, as the real store sets it). */
export function deleteSuccess(kind: KindInfo, name: string, uid: string): StatusBody {
  const details = { ...resourceDetails(kind, name), uid };
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details, code: 200 } as StatusBody;
}
