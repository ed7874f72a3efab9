/**
 * RBAC authorization as kube-apiserver's RBAC authorizer decides (k8s.io/kubernetes
 * plugin/pkg/auth/authorizer/rbac: rbac.go, subject_locator/rule matching in pkg/apis/rbac/v1/evaluation_helpers.go):
 * ClusterRoleBindings first, then the RoleBindings of the request's namespace (to a Role there or a
 * ClusterRole); a subject applies by user name, by group, or as a ServiceAccount (its namespace defaulting to
 * the RoleBinding's); a rule allows when verb, API group, resource (`res/sub`, a star, or star-slash-sub) and resourceNames
 * (or nonResourceURLs, `*` suffix) match. A binding whose role is missing contributes the error the denial
 * reason carries (`RBAC: clusterrole.rbac.authorization.k8s.io "x" not found`). Aggregated ClusterRoles are
 * read as stored (no aggregation controller).
 */
import { StatusError } from '../api/errors';
import { KindInfo, KubeObject, StoreReader } from '../api/types';

/** What a request asks to do (the apiserver's authorizer.Attributes). */
export interface RequestAttributes {
  user: string;
  groups: string[];
  verb: string;
  /** Resource requests; undefined `resource` means a non-resource request on `path`. */
  resource?: string;
  subresource?: string;
  apiGroup?: string;
  namespace?: string;
  name?: string;
  path?: string;
}

interface Rule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

interface Subject {
  kind?: string;
  name?: string;
  namespace?: string;
}

/** The outcome: allowed with the binding that allowed it, or denied with RBAC's reason (may be ''). */
export interface Decision {
  allowed: boolean;
  reason: string;
}

const has = (list: string[] | undefined, value: string): boolean => list !== undefined && (list.includes('*') || list.includes(value));

function resourceMatches(rule: Rule, combined: string, subresource: string | undefined): boolean {
  for (const r of rule.resources ?? []) {
    if (r === '*' || r === combined) return true;
    if (subresource && r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
  }
  return false;
}

function urlMatches(rule: Rule, path: string): boolean {
  return (rule.nonResourceURLs ?? []).some((u) => u === '*' || u === path || (u.endsWith('*') && path.startsWith(u.slice(0, -1))));
}

/** Does `rule` allow the request? */
export function ruleAllows(a: RequestAttributes, rule: Rule): boolean {
  if (!has(rule.verbs, a.verb)) return false;
  if (a.resource === undefined) return urlMatches(rule, a.path ?? '');
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  if (!has(rule.apiGroups, a.apiGroup ?? '') || !resourceMatches(rule, combined, a.subresource)) return false;
  return !rule.resourceNames || rule.resourceNames.length === 0 || rule.resourceNames.includes(a.name ?? '');
}

function subjectApplies(a: { user: string; groups: string[] }, s: Subject, bindingNamespace: string): boolean {
  switch (s.kind) {
    case 'User':
      return s.name === a.user;
    case 'Group':
      return a.groups.includes(s.name ?? '');
    case 'ServiceAccount': {
      const ns = s.namespace || bindingNamespace;
      return ns !== '' && `system:serviceaccount:${ns}:${s.name}` === a.user;
    }
    default:
      return false;
  }
}

/** The kinds the authorizer reads. */
export interface RbacKinds {
  role: KindInfo;
  clusterRole: KindInfo;
  roleBinding: KindInfo;
  clusterRoleBinding: KindInfo;
}

/** The RBAC kinds of a registry, or undefined when it serves none. */
export function rbacKinds(registry: { byKind(apiVersion: string, kind: string): KindInfo | undefined }): RbacKinds | undefined {
  const v = 'rbac.authorization.k8s.io/v1';
  const role = registry.byKind(v, 'Role');
  const clusterRole = registry.byKind(v, 'ClusterRole');
  const roleBinding = registry.byKind(v, 'RoleBinding');
  const clusterRoleBinding = registry.byKind(v, 'ClusterRoleBinding');
  return role && clusterRole && roleBinding && clusterRoleBinding ? { role, clusterRole, roleBinding, clusterRoleBinding } : undefined;
}

function subjectLabel(s: Subject, bindingNamespace: string): string {
  return s.kind === 'ServiceAccount' ? `ServiceAccount "${s.name}/${s.namespace || bindingNamespace}"` : `${s.kind} "${s.name}"`;
}

/** One binding that applies to a user, with the rules of its role (or the error of a missing role). */
interface AppliedBinding {
  binding: KubeObject;
  bindingNamespace: string;
  subject: Subject;
  ref: { kind?: string; name?: string };
  rules?: Rule[];
  error?: string;
}

/**
 * The rule resolver's VisitRulesFor: the ClusterRoleBindings whose subjects include the user, then (for a
 * namespace) the RoleBindings there, each with its role's rules, in list order.
 */
function* appliedBindings(store: StoreReader, kinds: RbacKinds, who: { user: string; groups: string[] }, namespace: string | undefined): Generator<AppliedBinding> {
  const visit = (binding: KubeObject, bindingNamespace: string): AppliedBinding | undefined => {
    const subjects = (binding.subjects as Subject[] | undefined) ?? [];
    const subject = subjects.find((s) => subjectApplies(who, s, bindingNamespace));
    if (!subject) return undefined;
    const ref = (binding.roleRef ?? {}) as { kind?: string; name?: string };
    const cluster = ref.kind === 'ClusterRole';
    const roleKind = cluster ? kinds.clusterRole : kinds.role;
    const role = store.listShared(roleKind, cluster ? { fieldSelector: `metadata.name=${ref.name}` } : { namespace: bindingNamespace, fieldSelector: `metadata.name=${ref.name}` }).items[0];
    if (!role) return { binding, bindingNamespace, subject, ref, error: `${cluster ? 'clusterrole' : 'role'}.rbac.authorization.k8s.io "${ref.name}" not found` };
    return { binding, bindingNamespace, subject, ref, rules: (role.rules as Rule[] | undefined) ?? [] };
  };
  for (const b of store.listShared(kinds.clusterRoleBinding).items) {
    const applied = visit(b, '');
    if (applied) yield applied;
  }
  if (namespace) {
    for (const b of store.listShared(kinds.roleBinding, { namespace }).items) {
      const applied = visit(b, namespace);
      if (applied) yield applied;
    }
  }
}

/**
 * The errors of missing roles as the RBAC authorizer aggregates them (apimachinery's utilerrors aggregate:
 * `a`, or `[a, b]` for several, each distinct message once).
 */
function aggregate(errors: string[]): string {
  const distinct = [...new Set(errors)];
  return distinct.length === 1 ? distinct[0] : `[${distinct.join(', ')}]`;
}

/** Decide one request against the RBAC objects in `store`. */
export function authorize(store: StoreReader, kinds: RbacKinds, a: RequestAttributes): Decision {
  const errors: string[] = [];
  for (const applied of appliedBindings(store, kinds, a, a.namespace)) {
    if (applied.error) {
      errors.push(applied.error);
      continue;
    }
    if (!applied.rules!.some((r) => ruleAllows(a, r))) continue;
    const { binding, bindingNamespace, ref, subject } = applied;
    const source = bindingNamespace ? `RoleBinding "${binding.metadata.name}/${bindingNamespace}"` : `ClusterRoleBinding "${binding.metadata.name}"`;
    return { allowed: true, reason: `RBAC: allowed by ${source} of ${ref.kind} "${ref.name}" to ${subjectLabel(subject, bindingNamespace)}` };
  }
  return { allowed: false, reason: errors.length > 0 ? `RBAC: ${aggregate(errors)}` : '' };
}

/** A SubjectRulesReview resource rule (authorization.k8s.io/v1 ResourceRule). */
export interface ResourceRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}

/** A SubjectRulesReview non-resource rule. */
export interface NonResourceRule {
  verbs: string[];
  nonResourceURLs?: string[];
}

/**
 * RBACAuthorizer.RulesFor: every rule of every role bound to the user (cluster-wide, then in `namespace`),
 * split into resource rules (those naming resources) and non-resource rules (those naming URLs), and the
 * missing roles as the evaluation error.
 */
export function rulesFor(store: StoreReader, kinds: RbacKinds, who: { user: string; groups: string[] }, namespace: string): { resourceRules: ResourceRule[]; nonResourceRules: NonResourceRule[]; evaluationError?: string } {
  const resourceRules: ResourceRule[] = [];
  const nonResourceRules: NonResourceRule[] = [];
  const errors: string[] = [];
  for (const applied of appliedBindings(store, kinds, who, namespace)) {
    if (applied.error) {
      errors.push(applied.error);
      continue;
    }
    for (const r of applied.rules!) {
      if ((r.resources ?? []).length > 0) {
        const rule: ResourceRule = { verbs: r.verbs ?? [] };
        if (r.apiGroups && r.apiGroups.length > 0) rule.apiGroups = r.apiGroups;
        rule.resources = r.resources;
        if (r.resourceNames && r.resourceNames.length > 0) rule.resourceNames = r.resourceNames;
        resourceRules.push(rule);
      }
      if ((r.nonResourceURLs ?? []).length > 0) nonResourceRules.push({ verbs: r.verbs ?? [], nonResourceURLs: r.nonResourceURLs });
    }
  }
  return errors.length > 0 ? { resourceRules, nonResourceRules, evaluationError: aggregate(errors) } : { resourceRules, nonResourceRules };
}

/** kube-apiserver's 403 for a denied request (responsewriters.Forbidden + apierrors.NewForbidden). */
export function forbiddenStatus(a: RequestAttributes, reason: string): StatusError {
  let detail: string;
  if (a.resource === undefined) {
    detail = `User "${a.user}" cannot ${a.verb} path "${a.path}"`;
  } else {
    const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
    const scope = a.namespace ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
    detail = `User "${a.user}" cannot ${a.verb} resource "${resource}" in API group "${a.apiGroup ?? ''}" ${scope}`;
  }
  if (reason) detail += `: ${reason}`;
  let message: string;
  const details: Record<string, unknown> = {};
  if (a.resource === undefined || a.resource === '') {
    message = `forbidden: ${detail}`;
  } else {
    const qualified = a.apiGroup ? `${a.resource}.${a.apiGroup}` : a.resource;
    message = a.name ? `${qualified} "${a.name}" is forbidden: ${detail}` : `${qualified} is forbidden: ${detail}`;
    if (a.name) details.name = a.name;
    if (a.apiGroup) details.group = a.apiGroup;
    details.kind = a.resource;
  }
  return new StatusError(403, 'Forbidden', message, details);
}
