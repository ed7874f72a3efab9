/**
 * The single place where client-node failures (ApiException with `.code`/`.body`/`.headers`, the watch's
 * `Error{statusCode}`, node-fetch's FetchError and socket errors) become HarvesterErrors. Nothing else in the
 * provider inspects them. Status shapes follow docs/design/kube-api-errors.md §"Status shapes"; the body is raw
 * text and may be plain text (an APF 429) or absent (client-node drops the body of a 401).
 */
import type { ConnectionInfo } from './kube-config';
import {
  AdmissionDeniedError,
  AlreadyExistsError,
  BadRequestError,
  ConflictError,
  ErrorCause,
  ExpiredError,
  ForbiddenError,
  HarvesterError,
  InvalidError,
  NotFoundError,
  TimeoutError,
  TlsError,
  TokenExpiredError,
  TooManyRequestsError,
  UnauthorizedError,
  UnavailableError,
} from './errors';
import { KindSpec, apiVersionOf } from './kinds';
import { StatusObject } from './objects';
import { parseRetryAfter } from './retry';

/** The API verbs the client issues. */
export type Verb = 'get' | 'list' | 'create' | 'update' | 'patch' | 'apply' | 'delete' | 'watch';

/** What a request was about, for naming it in errors. */
export interface RequestTarget {
  verb: Verb;
  kind: KindSpec;
  namespace?: string;
  name?: string;
  labelSelector?: string;
}

/** "LoadBalancer default/lb1", "IPPool pool-1", or "LoadBalancer objects in namespace default" for lists. */
export function describeObject(kind: KindSpec, namespace?: string, name?: string): string {
  if (name) return kind.namespaced && namespace ? `${kind.kind} ${namespace}/${name}` : `${kind.kind} ${name}`;
  return kind.namespaced && namespace ? `${kind.kind} objects in namespace ${namespace}` : `${kind.kind} objects`;
}

function describeTarget(t: RequestTarget): string {
  const base = describeObject(t.kind, t.namespace, t.name);
  return !t.name && t.labelSelector ? `${base} with labels ${t.labelSelector}` : base;
}

const VERB_PHRASE: Record<Verb, string> = {
  get: 'read',
  list: 'list',
  create: 'create',
  update: 'update',
  patch: 'patch',
  apply: 'apply',
  delete: 'delete',
  watch: 'watch',
};

/** The RBAC verbs a request needs: RBAC has no "apply"; server-side apply is a patch, and a create for a new object. */
const rbacVerbs = (verb: Verb): string => (verb === 'apply' ? 'patch and create' : verb);

/** Socket-level failures worth retrying: the request may not have reached the server, or the reply was lost. */
const TRANSIENT_NET = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'UND_ERR_SOCKET']);
const TLS_CODES = /^(UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|CERT_|ERR_TLS_CERT_ALTNAME_INVALID|ERR_SSL_)/;
const TRANSIENT_MESSAGES = /socket hang up|premature close|terminated|ECONNRESET|network timeout|other side closed/i;

/** Parse an error body into a Status, if it is one. */
export function parseStatus(body: unknown): StatusObject | undefined {
  let value = body;
  if (typeof value === 'string') {
    const t = value.trim();
    if (!t.startsWith('{')) return undefined;
    try {
      value = JSON.parse(t);
    } catch {
      return undefined;
    }
  }
  if (value && typeof value === 'object' && (value as { kind?: unknown }).kind === 'Status') return value as StatusObject;
  return undefined;
}

function header(headers: unknown, name: string): string | undefined {
  if (!headers || typeof headers !== 'object') return undefined;
  for (const [k, v] of Object.entries(headers as Record<string, unknown>)) {
    if (k.toLowerCase() === name) return Array.isArray(v) ? String(v[0]) : String(v);
  }
  return undefined;
}

/**
 * Turn whatever a client-node call threw into a HarvesterError naming the request's object. Errors that
 * already belong to the family pass through unchanged.
 */
export function fromApiException(err: unknown, target: RequestTarget, conn: ConnectionInfo): HarvesterError {
  if (err instanceof HarvesterError) return err;
  const e = err as { code?: unknown; statusCode?: unknown; body?: unknown; headers?: unknown; message?: unknown; type?: unknown; errno?: unknown };
  const status = typeof e?.code === 'number' ? e.code : typeof e?.statusCode === 'number' ? e.statusCode : undefined;
  if (status !== undefined) {
    const body = parseStatus(e.body);
    const text = body?.message ?? (typeof e.body === 'string' && e.body.trim() ? e.body.trim() : undefined);
    const retryAfter = parseRetryAfter(header(e.headers, 'retry-after')) ?? secondsToMs(body?.details?.retryAfterSeconds);
    return fromStatus(status, body, text, retryAfter, target, conn);
  }
  return fromNetworkError(err, target, conn);
}

function secondsToMs(s: number | undefined): number | undefined {
  return typeof s === 'number' && Number.isFinite(s) ? s * 1000 : undefined;
}

function fromStatus(
  status: number,
  body: StatusObject | undefined,
  text: string | undefined,
  retryAfterMs: number | undefined,
  t: RequestTarget,
  conn: ConnectionInfo,
): HarvesterError {
  const object = describeObject(t.kind, t.namespace, t.name);
  const what = describeTarget(t);
  const verb = VERB_PHRASE[t.verb];
  const reason = body?.reason ?? '';
  const said = text ? `: ${text}` : '';
  const causes: ErrorCause[] = (body?.details?.causes ?? []).map((c) => ({ reason: c.reason, field: c.field, message: c.message ?? '' }));
  const base = { object, causes, httpStatus: status };
  const resource = t.kind.group ? `${t.kind.plural}.${t.kind.group}` : t.kind.plural;

  const denial = text === undefined ? undefined : admissionDenial(text);
  if (denial) {
    return new AdmissionDeniedError({
      ...base,
      code: 'AdmissionDenied',
      summary: `Harvester's admission webhook "${denial.webhook}" denied the ${verb} of ${what}: ${denial.reason}`,
      fix: 'Change the input the reason names; the same request is denied again, so retrying does not help',
    }, denial.webhook, denial.reason);
  }

  switch (status) {
    case 400:
    case 405:
    case 415: {
      const code = status === 400 ? 'BadRequest' : status === 405 ? 'MethodNotAllowed' : 'UnsupportedMediaType';
      return new BadRequestError({
        ...base,
        code,
        summary: `Harvester refused to ${verb} ${what} (${status} ${reason || code}${said})`,
        fix:
          status === 400
            ? 'Change the input the message names'
            : 'This is a harvester-iac bug (wrong request type for this API); please report it with this message',
      });
    }
    case 401:
      return unauthorized(t, conn, object, what);
    case 403:
      return new ForbiddenError({
        ...base,
        code: 'Forbidden',
        summary: `Cannot ${verb} ${what}: the user of kubeconfig context "${conn.context}" is not allowed to (403 Forbidden${said})`,
        fix:
          `Grant that user RBAC permission to ${rbacVerbs(t.verb)} ${resource}` +
          `${t.kind.namespaced && t.namespace ? ` in namespace ${t.namespace}` : ''} on the cluster, or use a kubeconfig that has it`,
      });
    case 404:
      return notFound(t, body, text, base, what, verb, conn);
    case 409:
      if (reason === 'AlreadyExists') {
        return new AlreadyExistsError({
          ...base,
          code: 'AlreadyExists',
          summary: `Cannot create ${what}: an object with that name already exists (409 AlreadyExists)`,
          fix: 'Choose another name, or delete the existing object first',
        });
      }
      if (causes.some((c) => c.reason === 'FieldManagerConflict')) {
        const list = causes.map((c) => `${c.field ?? '?'} (${c.message})`).join(', ');
        return new ConflictError({
          ...base,
          code: 'Conflict',
          summary: `Server-side apply of ${what} conflicts with fields owned by other writers (409 Conflict): ${list}`,
          fix: 'Stop the other writer from managing these fields, or apply with force to take them over',
        });
      }
      return new ConflictError({
        ...base,
        code: 'Conflict',
        summary: `Cannot ${verb} ${what}: it was changed by someone else after it was read (409 Conflict${said})`,
        fix:
          'Run the operation again; if this repeats, another controller keeps changing the object — see who with ' +
          `\`kubectl get ${[resource, t.name, t.kind.namespaced && t.namespace ? `-n ${t.namespace}` : undefined].filter(Boolean).join(' ')} --show-managed-fields -o yaml\``,
      });
    case 410:
      return new ExpiredError({
        ...base,
        code: 'Expired',
        summary: `The ${verb} of ${what} used a resourceVersion the server no longer keeps (410 Expired${said})`,
        fix: 'List again from the current state',
      });
    case 422: {
      const detail = causes.length > 0 ? causes.map((c) => [c.field, c.message].filter(Boolean).join(': ')).join('; ') : (text ?? 'no details');
      return new InvalidError({
        ...base,
        code: 'Invalid',
        summary: `Harvester rejected the ${verb} of ${what} as invalid (422 Invalid): ${detail}`,
        fix: causes.length > 0 ? 'Correct the field(s) named above in the resource inputs' : 'Correct the input the message names',
      });
    }
    case 429:
      return new TooManyRequestsError({
        ...base,
        code: 'TooManyRequests',
        transient: true,
        retryAfterMs,
        summary:
          `The API server at ${conn.server} throttled the ${verb} of ${what} (429 TooManyRequests` +
          `${retryAfterMs !== undefined ? `, Retry-After ${Math.round(retryAfterMs / 1000)}s` : ''})`,
        fix: 'The server is overloaded or rate-limits this user: retry later, or lower the parallelism (`pulumi up --parallel 4`)',
      });
    case 504:
      return new TimeoutError({
        ...base,
        code: 'Timeout',
        transient: true,
        retryAfterMs,
        summary: `The API server at ${conn.server} timed out on the ${verb} of ${what} (504${said})`,
        fix: "Check the health of the cluster's API server and etcd, then retry",
      });
    default:
      if (status >= 500) {
        return new UnavailableError({
          ...base,
          code: 'Unavailable',
          transient: true,
          retryAfterMs,
          summary: `The API server at ${conn.server} failed to ${verb} ${what} (${status} ${reason || 'ServerError'}${said})`,
          fix: "Check the health of the cluster (its API server and the node it runs on), then retry",
        });
      }
      return new HarvesterError({
        ...base,
        code: 'Unknown',
        summary: `Cannot ${verb} ${what}: unexpected HTTP ${status}${reason ? ` ${reason}` : ''}${said}`,
        fix: 'Check the server URL in the kubeconfig; it should point at the Kubernetes API of the cluster',
      });
  }
}

const DENIAL = /admission webhook "([^"]+)" denied the request: ([\s\S]*)$/;
/** apimachinery's NewInternalError prefix, which wrangler's webhook router puts before the webhook's reason. */
const INTERNAL_PREFIX = /^Internal error occurred: /;

/** The webhook and its reason when `text` is the apiserver's relay of an admission denial, whatever its status. */
export function admissionDenial(text: string): { webhook: string; reason: string } | undefined {
  const m = DENIAL.exec(text);
  if (!m) return undefined;
  return { webhook: m[1], reason: m[2].replace(INTERNAL_PREFIX, '').trim() };
}

function notFound(
  t: RequestTarget,
  body: StatusObject | undefined,
  text: string | undefined,
  base: { object: string; causes: ErrorCause[]; httpStatus: number },
  what: string,
  verb: string,
  conn: ConnectionInfo,
): HarvesterError {
  const details = body?.details ?? {};
  if (details.kind === 'namespaces' && details.name && details.name !== t.name) {
    return new NotFoundError({
      ...base,
      code: 'NotFound',
      summary: `Cannot ${verb} ${what}: namespace "${details.name}" does not exist (404 NotFound)`,
      fix: `Create namespace ${details.name} first, or use an existing namespace`,
    });
  }
  if (!details.name) {
    // No object named: the path itself is unknown, i.e. this API is not served there.
    return new NotFoundError({
      ...base,
      code: 'NotFound',
      summary:
        `Cannot ${verb} ${what}: the API ${apiVersionOf(t.kind)} ${t.kind.plural} is not served by ${conn.server} ` +
        `(404${text ? `: ${text}` : ''})`,
      fix:
        `Check that kubeconfig context "${conn.context}" points at a Harvester cluster that has this API ` +
        '(not the Rancher local cluster or a guest cluster)',
    }, true);
  }
  return new NotFoundError({
    ...base,
    code: 'NotFound',
    summary: `Cannot ${verb} ${what}: it does not exist (404 NotFound)`,
    fix: 'It may have been deleted outside harvester-iac: run `pulumi refresh`, then retry',
  });
}

function unauthorized(t: RequestTarget, conn: ConnectionInfo, object: string, what: string): HarvesterError {
  const verb = VERB_PHRASE[t.verb];
  if (conn.auth === 'token') {
    const rancherNote = conn.rancher
      ? 'This kubeconfig was issued by Rancher: its tokens expire (kubeconfig-default-token-ttl-minutes, Rancher ≥ 2.8; ' +
        'harvester/harvester#5827), which also breaks Rancher cloud credentials for Harvester.'
      : 'If this kubeconfig was issued by Rancher, its tokens expire (kubeconfig-default-token-ttl-minutes, Rancher ≥ 2.8; ' +
        'harvester/harvester#5827).';
    return new TokenExpiredError({
      code: 'TokenExpired',
      object,
      httpStatus: 401,
      summary:
        `The API server at ${conn.server} rejected the token of kubeconfig context "${conn.context}" (401 Unauthorized) ` +
        `while trying to ${verb} ${what}: the token has expired or been revoked. ${rancherNote}`,
      fix:
        'Download a fresh kubeconfig (for Rancher cloud credentials: edit the credential and renew it, or raise ' +
        'kubeconfig-default-token-ttl-minutes), or use a service-account kubeconfig that does not expire; ' +
        'then run `pulumi preview --refresh`',
    });
  }
  return new UnauthorizedError({
    code: 'Unauthorized',
    object,
    httpStatus: 401,
    summary:
      `The API server at ${conn.server} rejected the credentials (${conn.auth}) of kubeconfig context ` +
      `"${conn.context}" (401 Unauthorized) while trying to ${verb} ${what}`,
    fix: 'Check that the client certificate or credentials in the kubeconfig are current, or download a fresh kubeconfig',
  });
}

function fromNetworkError(err: unknown, t: RequestTarget, conn: ConnectionInfo): HarvesterError {
  const e = (err ?? {}) as { code?: unknown; errno?: unknown; message?: unknown; name?: unknown; cause?: { code?: unknown } };
  const code = [e.code, e.errno, e.cause?.code].find((c): c is string => typeof c === 'string');
  const message = typeof e.message === 'string' ? e.message : String(err);
  const object = describeObject(t.kind, t.namespace, t.name);
  const what = describeTarget(t);
  const verb = VERB_PHRASE[t.verb];
  if (code && TLS_CODES.test(code)) {
    return new TlsError({
      code: 'TlsError',
      object,
      summary: `Cannot verify the TLS certificate of ${conn.server} (${code}) to ${verb} ${what}`,
      fix:
        'Put the cluster CA in the kubeconfig (clusters[].cluster.certificate-authority-data), or — only if you ' +
        'accept the risk — set insecure-skip-tls-verify: true there',
    });
  }
  const transient = (code !== undefined && TRANSIENT_NET.has(code)) || TRANSIENT_MESSAGES.test(message) || e.name === 'AbortError';
  const why = code ?? (message.length > 200 ? `${message.slice(0, 200)}…` : message);
  return new UnavailableError({
    code: 'Unavailable',
    object,
    transient,
    summary: `Cannot reach the API server at ${conn.server} to ${verb} ${what}: ${why}`,
    fix: transient
      ? 'Check that the cluster is up and reachable from here, then retry'
      : `Check the server URL of kubeconfig context "${conn.context}" and that this machine can resolve and reach it`,
  });
}
