/**
 * The API server's authorization step for RBAC-governed users (service accounts, impersonated users):
 * request attributes from the URL as kube-apiserver's RequestInfoFactory derives them (authorization runs before
 * the handler, so an unknown resource is 403, not 404, for a user without rights), impersonation headers
 * (`Impersonate-User`, `Impersonate-Group`), and the reviews `kubectl auth can-i` posts
 * (SelfSubjectAccessReview, SubjectAccessReview, and SelfSubjectRulesReview for `--list`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest } from '../api/errors';
import { parseJsonBody, readBody, sendJson } from '../api/http-io';
import { decodeProtobufObject, PROTOBUF_MEDIA_TYPE } from '../api/protobuf';
import { parseFieldRequirements } from '../api/selectors';
import type { Authenticated } from '../api/auth';
import type { Route } from '../api/router';
import type { StoreReader } from '../api/types';
import { authorize, forbiddenStatus, RbacKinds, RequestAttributes, rulesFor } from './authorizer';
import { serviceAccountUser } from './service-account-tokens';

/** What the server hands the RBAC step. */
export interface RbacContext {
  store: StoreReader;
  kinds: RbacKinds;
}

/**
 * The RBAC verb of a resource request (RequestInfoFactory: GET or HEAD item/collection/watch, POST, PUT, PATCH,
 * DELETE; any other method has the empty verb, which only a `*` rule matches).
 */
function verbOf(method: string, hasName: boolean, watch: boolean): string {
  switch (method) {
    case 'GET':
    case 'HEAD':
      return watch ? 'watch' : hasName ? 'get' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return hasName ? 'delete' : 'deletecollection';
    default:
      return '';
  }
}

/**
 * The name a list or watch narrows to with `fieldSelector=metadata.name=<name>` (RequestInfoFactory: the first
 * exact `metadata.name` requirement of a selector that parses, if the name is a valid path segment).
 */
function selectedName(query: URLSearchParams): string | undefined {
  let requirements;
  try {
    requirements = parseFieldRequirements(query.get('fieldSelector') ?? undefined);
  } catch {
    return undefined;
  }
  const name = requirements.find((r) => r.field === 'metadata.name' && r.operator === '=')?.value;
  return name === undefined || name === '.' || name === '..' || /[/%]/.test(name) ? undefined : name;
}

/** The authorizer attributes of a request (`query`: its query string, read for a list's field selector). */
export function attributesOf(auth: { user: string; groups: string[] }, route: Route, method: string, watch: boolean, path: string, query = new URLSearchParams()): RequestAttributes {
  // A non-resource request's verb is its method in lower case (HEAD is `head`, not `get`).
  if (route.type !== 'resource') return { user: auth.user, groups: auth.groups, verb: method.toLowerCase(), path };
  // The name of a Namespace is its namespace, as RequestInfoFactory records it, except for a PATCH of the
  // Namespace itself (server-side apply creating it): that one is cluster-scoped.
  const ownNamespace = route.group === '' && route.plural === 'namespaces' && !(method === 'PATCH' && route.subresource === undefined);
  const namespace = route.namespace ?? (ownNamespace ? route.name : undefined);
  const verb = verbOf(method, route.name !== undefined, watch);
  return {
    user: auth.user,
    groups: auth.groups,
    verb,
    apiGroup: route.group,
    resource: route.plural,
    subresource: route.subresource,
    namespace,
    name: route.name ?? (verb === 'list' || verb === 'watch' ? selectedName(query) : undefined),
  };
}

/** Every value of a header, one per header line (Node joins repeated custom headers with `, ` in `headers`). */
function headerList(req: IncomingMessage, name: string): string[] {
  return req.headersDistinct[name] ?? [];
}

const AUTHENTICATED = 'system:authenticated';
const UNAUTHENTICATED = 'system:unauthenticated';

/**
 * The groups of an impersonated user, as WithImpersonation completes them: system:anonymous gets
 * system:unauthenticated, anyone else system:authenticated, unless the given groups already name either.
 */
function withAllGroup(user: string, groups: string[]): string[] {
  if (user === 'system:anonymous') return groups.includes(UNAUTHENTICATED) ? groups : [...groups, UNAUTHENTICATED];
  return groups.includes(AUTHENTICATED) || groups.includes(UNAUTHENTICATED) ? groups : [...groups, AUTHENTICATED];
}

/**
 * Apply impersonation headers: the impersonator must be allowed to `impersonate` the user (or service account)
 * and each group; the result is RBAC-governed. Without headers, `auth` is returned as is.
 */
export function impersonate(req: IncomingMessage, auth: Authenticated, rbac: RbacContext): Authenticated {
  // An empty Impersonate-User asks for no user (upstream reads the header's first value and wants it non-empty).
  const user = headerList(req, 'impersonate-user')[0] || undefined;
  const groups = headerList(req, 'impersonate-group');
  if (user === undefined) {
    if (groups.length > 0) throw badRequest('requested impersonation of groups without impersonating a user');
    return auth;
  }
  const sa = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(user);
  if (auth.groups) {
    const who = { user: auth.user, groups: auth.groups };
    const checks: RequestAttributes[] = [
      sa
        ? { ...who, verb: 'impersonate', apiGroup: '', resource: 'serviceaccounts', namespace: sa[1], name: sa[2] }
        : { ...who, verb: 'impersonate', apiGroup: '', resource: 'users', name: user },
      ...groups.map((g) => ({ ...who, verb: 'impersonate', apiGroup: '', resource: 'groups', name: g })),
    ];
    for (const a of checks) {
      const d = authorize(rbac.store, rbac.kinds, a);
      if (!d.allowed) throw forbiddenStatus(a, d.reason);
    }
  }
  const impliedGroups = groups.length > 0 ? groups : sa ? serviceAccountUser(sa[1], sa[2]).groups.filter((g) => g !== AUTHENTICATED) : [];
  return { user, anonymous: false, groups: withAllGroup(user, impliedGroups) };
}

/** Throw kube-apiserver's 403 unless RBAC allows the request. */
export function authorizeRequest(rbac: RbacContext, attributes: RequestAttributes): void {
  const d = authorize(rbac.store, rbac.kinds, attributes);
  if (!d.allowed) throw forbiddenStatus(attributes, d.reason);
}

/** `POST /apis/authorization.k8s.io/v1/{selfsubjectaccessreviews,subjectaccessreviews,selfsubjectrulesreviews}`, or undefined for any other route. */
export function accessReviewKind(route: Route, method: string): 'self' | 'subject' | 'rules' | undefined {
  if (route.type !== 'resource' || route.group !== 'authorization.k8s.io' || route.version !== 'v1' || method !== 'POST' || route.name !== undefined) return undefined;
  if (route.plural === 'selfsubjectaccessreviews') return 'self';
  if (route.plural === 'subjectaccessreviews') return 'subject';
  if (route.plural === 'selfsubjectrulesreviews') return 'rules';
  return undefined;
}

type Rec = Record<string, unknown>;

/** The groups the emulator's admin token stands for, as a kube-apiserver admin certificate carries them. */
const ADMIN_GROUPS = ['system:masters', 'system:authenticated'];

/** A review body: JSON, or protobuf as kubectl's typed client posts it. */
async function readReview(req: IncomingMessage): Promise<Rec> {
  const body = await readBody(req);
  const protobuf = (req.headers['content-type'] ?? '').startsWith(PROTOBUF_MEDIA_TYPE);
  return ((protobuf ? decodeProtobufObject(body) : parseJsonBody(body, 'the access review')) ?? {}) as Rec;
}

/**
 * Answer a SelfSubjectRulesReview as kube-apiserver's REST storage does (pkg/registry/authorization/
 * selfsubjectrulesreview): 400 without a namespace; otherwise the RBAC rule resolver's rules for the caller
 * in that namespace, the spec not echoed, missing roles as `evaluationError`. The emulator's admin is
 * resolved as a member of system:masters (bound to cluster-admin, as on a real cluster).
 */
async function answerRulesReview(req: IncomingMessage, res: ServerResponse, auth: Authenticated, rbac: RbacContext): Promise<void> {
  const review = await readReview(req);
  const namespace = String(((review.spec ?? {}) as Rec).namespace ?? '');
  if (namespace === '') throw badRequest('no namespace on request');
  const who = { user: auth.user, groups: auth.groups ?? ADMIN_GROUPS };
  const rules = rulesFor(rbac.store, rbac.kinds, who, namespace);
  const status: Rec = { resourceRules: rules.resourceRules, nonResourceRules: rules.nonResourceRules, incomplete: false };
  if (rules.evaluationError) status.evaluationError = rules.evaluationError;
  sendJson(res, 201, { kind: 'SelfSubjectRulesReview', apiVersion: 'authorization.k8s.io/v1', metadata: { creationTimestamp: null }, spec: {}, status });
}

/** Answer an access review: the request's spec echoed with `status.allowed` (and RBAC's reason). */
export async function answerAccessReview(req: IncomingMessage, res: ServerResponse, which: 'self' | 'subject' | 'rules', auth: Authenticated, rbac: RbacContext): Promise<void> {
  if (which === 'rules') return answerRulesReview(req, res, auth, rbac);
  const review = await readReview(req);
  const spec = (review.spec ?? {}) as Rec;
  const ra = spec.resourceAttributes as Rec | undefined;
  const nra = spec.nonResourceAttributes as Rec | undefined;
  if (!ra && !nra) throw badRequest('exactly one of nonResourceAttributes or resourceAttributes must be specified');
  const who =
    which === 'self'
      ? { user: auth.user, groups: auth.groups }
      : { user: String(spec.user ?? ''), groups: Array.isArray(spec.groups) ? (spec.groups as string[]) : [] };
  let status: Rec;
  if (who.groups === undefined) {
    // The emulator's admin (system:masters) may do anything.
    status = { allowed: true };
  } else {
    const a: RequestAttributes = ra
      ? {
          ...who,
          groups: who.groups,
          verb: String(ra.verb ?? ''),
          apiGroup: String(ra.group ?? ''),
          resource: String(ra.resource ?? ''),
          subresource: ra.subresource ? String(ra.subresource) : undefined,
          namespace: ra.namespace ? String(ra.namespace) : undefined,
          name: ra.name ? String(ra.name) : undefined,
        }
      : { ...who, groups: who.groups, verb: String(nra!.verb ?? ''), path: String(nra!.path ?? '') };
    const d = authorize(rbac.store, rbac.kinds, a);
    status = d.reason ? { allowed: d.allowed, reason: d.reason } : { allowed: d.allowed };
  }
  const kind = which === 'self' ? 'SelfSubjectAccessReview' : 'SubjectAccessReview';
  sendJson(res, 201, { kind, apiVersion: 'authorization.k8s.io/v1', metadata: { creationTimestamp: null }, spec, status });
}
