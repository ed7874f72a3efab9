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

function subjectApplies(a: RequestAttributes, s: Subject, bindingNamespace: string): boolean {
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

/** Decide one request against the RBAC objects in `store`. */
export function authorize(store: StoreReader, kinds: RbacKinds, a: RequestAttributes): Decision {
  const errors: string[] = [];
  const visit = (binding: KubeObject, bindingNamespace: string): string | undefined => {
    const subjects = (binding.subjects as Subject[] | undefined) ?? [];
    const subject = subjects.find((s) => subjectApplies(a, s, bindingNamespace));
    if (!subject) return undefined;
    const ref = (binding.roleRef ?? {}) as { kind?: string; name?: string };
    const cluster = ref.kind === 'ClusterRole';
    const roleKind = cluster ? kinds.clusterRole : kinds.role;
    const role = store.listShared(roleKind, cluster ? { fieldSelector: `metadata.name=${ref.name}` } : { namespace: bindingNamespace, fieldSelector: `metadata.name=${ref.name}` }).items[0];
    if (!role) {
      errors.push(`${cluster ? 'clusterrole' : 'role'}.rbac.authorization.k8s.io "${ref.name}" not found`);
      return undefined;
    }
    if (!((role.rules as Rule[] | undefined) ?? []).some((r) => ruleAllows(a, r))) return undefined;
    const source = bindingNamespace ? `RoleBinding "${binding.metadata.name}/${bindingNamespace}"` : `ClusterRoleBinding "${binding.metadata.name}"`;
    return `RBAC: allowed by ${source} of ${ref.kind} "${ref.name}" to ${subjectLabel(subject, bindingNamespace)}`;
  };
  for (const b of store.listShared(kinds.clusterRoleBinding).items) {
    const allowed = visit(b, '');
    if (allowed) return { allowed: true, reason: allowed };
  }
  if (a.namespace) {
    for (const b of store.listShared(kinds.roleBinding, { namespace: a.namespace }).items) {
      const allowed = visit(b, a.namespace);
      if (allowed) return { allowed: true, reason: allowed };
    }
  }
  return { allowed: false, reason: errors.length > 0 ? `RBAC: ${errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`}` : '' };
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
