/**
 * rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding, ClusterRoleBinding (k8s.io/api rbac/v1 types.go).
 * Built-in kinds: strategic merge patch, unconditional update, no generation, no status. Table columns come from
 * api/builtin-printers.ts, as the apiserver's printers compute them (roles: CREATED AT; bindings: ROLE, AGE).
 */
import { JsonSchema, KindInfo } from '../../api/types';
import { arr, kubeObject, obj, str, stringMap } from '../schema/builders';

const GROUP = 'rbac.authorization.k8s.io';

/** PolicyRule: verbs are required; apiGroups/resources/resourceNames or nonResourceURLs say what they apply to. */
const policyRule = obj(
  {
    verbs: arr(str()),
    apiGroups: arr(str()),
    resources: arr(str()),
    resourceNames: arr(str()),
    nonResourceURLs: arr(str()),
  },
  ['verbs'],
);

/** metav1.LabelSelector (matchLabels, matchExpressions). */
const labelSelector = obj({
  matchLabels: stringMap(),
  matchExpressions: arr(obj({ key: str(), operator: str(), values: arr(str()) }, ['key', 'operator'])),
});

const subject = obj({ kind: str(), apiGroup: str(), name: str(), namespace: str() }, ['kind', 'name']);
const roleRef = obj({ apiGroup: str(), kind: str(), name: str() }, ['apiGroup', 'kind', 'name']);

function rbacKind(kind: string, plural: string, namespaced: boolean, properties: Record<string, JsonSchema>, required: string[] = []): KindInfo {
  return {
    group: GROUP,
    version: 'v1',
    kind,
    listKind: `${kind}List`,
    plural,
    singular: kind.toLowerCase(),
    shortNames: [],
    namespaced,
    statusSubresource: false,
    hasGeneration: false,
    builtIn: true,
    allowUnconditionalUpdate: true,
    schema: kubeObject(properties, required),
    smpMergeKeys: { 'metadata.ownerReferences': 'uid' },
  };
}

export const roleKind = rbacKind('Role', 'roles', true, { rules: arr(policyRule) });
export const clusterRoleKind = rbacKind('ClusterRole', 'clusterroles', false, {
  rules: arr(policyRule),
  aggregationRule: obj({ clusterRoleSelectors: arr(labelSelector) }),
});
export const roleBindingKind = rbacKind('RoleBinding', 'rolebindings', true, { subjects: arr(subject), roleRef }, ['roleRef']);
export const clusterRoleBindingKind = rbacKind('ClusterRoleBinding', 'clusterrolebindings', false, { subjects: arr(subject), roleRef }, ['roleRef']);

