/**
 * The one error family every provider resource sees. Each error carries a CamelCase `code` (the Kubernetes
 * reason where there is one), the object as "Kind namespace/name", the per-field `causes`, and a `fix`.
 * Messages read: what failed on which object → why (observed value) → the fix. Everything that goes into a
 * message passes through `redact` first, so no token, kubeconfig or userdata can leak through an error.
 *
 * `fromApiException` (from-api-exception.ts) is the only place that turns client-node errors into these.
 */
import { redact } from './redact';

/** Every code an error of this family can carry. */
export type ErrorCode =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Invalid'
  | 'BadRequest'
  | 'AdmissionDenied'
  | 'Forbidden'
  | 'Unauthorized'
  | 'TokenExpired'
  | 'Timeout'
  | 'TooManyRequests'
  | 'Unavailable'
  | 'Expired'
  | 'TlsError'
  | 'KubeConfigInvalid'
  | 'NotOwned'
  | 'WaitTimeout'
  | 'Cancelled'
  | 'UnsupportedMediaType'
  | 'MethodNotAllowed'
  | 'Unknown';

/** One reason an object was refused, usually one field (a Status `details.causes[]` entry). */
export interface ErrorCause {
  /** e.g. `FieldValueNotSupported`, `FieldManagerConflict`. */
  reason?: string;
  /** Dotted path as the server prints it, e.g. `spec.listeners[0].port`. */
  field?: string;
  message: string;
}

/** What a HarvesterError is made from. */
export interface HarvesterErrorInit {
  code: ErrorCode;
  /** What failed on which object and why, with the observed value. Sentences, without the fix. */
  summary: string;
  /** The one action that resolves it. */
  fix?: string;
  /** "Kind namespace/name" (or "Kind name" for cluster-scoped kinds). */
  object?: string;
  causes?: ErrorCause[];
  /** HTTP status of the failed request, when there was one. */
  httpStatus?: number;
  /** True when retrying the same request may succeed (429, 5xx, connection resets). */
  transient?: boolean;
  /** How long the server asked us to wait (Retry-After), in milliseconds. */
  retryAfterMs?: number;
}

function sentence(text: string): string {
  const t = text.trim();
  return t === '' || /[.!?]$/.test(t) ? t : `${t}.`;
}

/** Base class of the family. Narrow with `code` or `instanceof`. */
export class HarvesterError extends Error {
  readonly code: ErrorCode;
  readonly summary: string;
  readonly fix?: string;
  readonly object?: string;
  readonly causes: ErrorCause[];
  readonly httpStatus?: number;
  readonly transient: boolean;
  readonly retryAfterMs?: number;
  /** How many attempts were made before giving up (set by the retry loop). */
  attempts?: number;

  constructor(init: HarvesterErrorInit) {
    const summary = redact(sentence(init.summary));
    const fix = init.fix === undefined ? undefined : redact(sentence(init.fix));
    super(HarvesterError.compose(summary, fix, undefined));
    this.name = new.target.name;
    this.code = init.code;
    this.summary = summary;
    this.fix = fix;
    this.object = init.object;
    this.causes = (init.causes ?? []).map((c) => ({ ...c, message: redact(c.message) }));
    this.httpStatus = init.httpStatus;
    this.transient = init.transient ?? false;
    this.retryAfterMs = init.retryAfterMs;
  }

  private static compose(summary: string, fix: string | undefined, attempts: number | undefined): string {
    const parts = [summary];
    if (attempts !== undefined && attempts > 1) parts.push(`Gave up after ${attempts} attempts.`);
    if (fix) parts.push(fix);
    return parts.join(' ');
  }

  /** Record that the retry budget was spent after `attempts` tries; the message then says so. */
  withAttempts(attempts: number): this {
    this.attempts = attempts;
    const old = this.message;
    this.message = HarvesterError.compose(this.summary, this.fix, attempts);
    if (this.stack) this.stack = this.stack.replace(old, () => this.message);
    return this;
  }

  /** Mark this error as not to be retried (e.g. a create that may have happened and cannot be read back). */
  notRetryable(): this {
    (this as { transient: boolean }).transient = false;
    return this;
  }

  /** A plain, secret-free view (what JSON.stringify and loggers print). */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      object: this.object,
      causes: this.causes,
      fix: this.fix,
      httpStatus: this.httpStatus,
      attempts: this.attempts,
    };
  }
}

/** The object (or, with `apiMissing`, the API serving its kind) does not exist. */
export class NotFoundError extends HarvesterError {
  /** True when the server does not serve this kind at all (unknown path), rather than lacking one object. */
  readonly apiMissing: boolean;

  constructor(init: HarvesterErrorInit, apiMissing = false) {
    super(init);
    this.apiMissing = apiMissing;
  }
}
/** A create hit an existing object of the same name that is not ours or differs from what we want. */
export class AlreadyExistsError extends HarvesterError {}
/** Stale resourceVersion, failed precondition, or server-side-apply field conflict (see `causes`). */
export class ConflictError extends HarvesterError {}
/** 422: the server's validation refused fields; `causes` lists each field. */
export class InvalidError extends HarvesterError {}
/** 400, 405 and 415 (other than admission webhook denials). */
export class BadRequestError extends HarvesterError {}
/**
 * An admission webhook denied the request. Whatever the status (Harvester's own webhook answers 400/409/422
 * for its typed errors and 500 for plain ones; the load-balancer webhook always 500 through wrangler's router),
 * the same request will be denied again, so it is never retried. `webhook` names the hook, `reason` is its text.
 */
export class AdmissionDeniedError extends HarvesterError {
  readonly webhook: string;
  readonly reason: string;

  constructor(init: HarvesterErrorInit, webhook: string, reason: string) {
    super(init);
    this.webhook = webhook;
    this.reason = reason;
  }
}
/** 403: RBAC does not allow the kubeconfig's user this verb on this resource. */
export class ForbiddenError extends HarvesterError {}
/** 401 for credentials other than a bearer token. */
export class UnauthorizedError extends HarvesterError {}
/** 401 for a bearer token: it expired or was revoked (Rancher ≥ 2.8 TTLs, harvester/harvester#5827). */
export class TokenExpiredError extends UnauthorizedError {}
/** The server timed out (504), or a wait ran out of time (WaitTimeoutError in provider/await). */
export class TimeoutError extends HarvesterError {}
/** 5xx or a connection failure; transient until the retry budget is spent. */
export class UnavailableError extends HarvesterError {}
/** 429: throttled; carries the server's Retry-After. */
export class TooManyRequestsError extends UnavailableError {}
/** 410: a resourceVersion or continue token too old; list/watch loops re-list on it. */
export class ExpiredError extends HarvesterError {}
/** The server's certificate could not be verified. */
export class TlsError extends HarvesterError {}
/** The kubeconfig is missing, unreadable or incomplete; the message names the field path. */
export class KubeConfigError extends HarvesterError {}
/** The object exists but is not managed by this harvester-iac resource, so it must not be changed. */
export class NotOwnedError extends HarvesterError {}

/** True for an error of this family with one of `codes` (any code when none are given). */
export function isHarvesterError(err: unknown, ...codes: ErrorCode[]): err is HarvesterError {
  return err instanceof HarvesterError && (codes.length === 0 || codes.includes(err.code));
}
