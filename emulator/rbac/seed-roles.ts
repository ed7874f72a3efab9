/**
 * The ClusterRoles and ClusterRoleBindings a fresh Harvester cluster holds that matter to service-account
 * clients: Kubernetes' bootstrap policy (cluster-admin, bound to the group system:masters; system:discovery,
 * system:public-info-viewer and
 * system:basic-user bound to every authenticated user, so kubectl can discover and ask `auth can-i`), and
 * Harvester's two guest-cluster roles, with the rules of harvester/harvester
 * deploy/charts/harvester/templates/rbac.yaml (at 3d63c2a).
 */
import { KubeObject } from '../api/types';

interface Rule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

const HARVESTER_LABELS = { 'app.kubernetes.io/name': 'harvester', 'app.kubernetes.io/component': 'apiserver' };
const BOOTSTRAP_LABELS = { 'kubernetes.io/bootstrapping': 'rbac-defaults' };
const BOOTSTRAP_ANNOTATIONS = { 'rbac.authorization.kubernetes.io/autoupdate': 'true' };
const READ = ['get', 'list', 'watch'];

/** ClusterRole the Harvester cloud provider of a guest cluster is bound to (by a RoleBinding in the VMs' namespace). */
export const CLOUD_PROVIDER_ROLE = 'harvesterhci.io:cloudprovider';
/** ClusterRole the Harvester CSI driver of a guest cluster is bound to (cluster-wide). */
export const CSI_DRIVER_ROLE = 'harvesterhci.io:csi-driver';

const CLOUD_PROVIDER_RULES: Rule[] = [
  { apiGroups: ['loadbalancer.harvesterhci.io'], resources: ['loadbalancers'], verbs: ['get', 'list', 'watch', 'update', 'create', 'delete'] },
  {
    apiGroups: ['subresources.kubevirt.io'],
    resources: [
      'virtualmachines/addvolume',
      'virtualmachines/removevolume',
      'virtualmachineinstances/addvolume',
      'virtualmachineinstances/removevolume',
      'virtualmachineinstances/guestosinfo',
    ],
    verbs: ['get', 'update'],
  },
  { apiGroups: ['kubevirt.io'], resources: ['virtualmachines', 'virtualmachineinstances'], verbs: READ },
  { apiGroups: [''], resources: ['pods'], verbs: READ },
  { apiGroups: [''], resources: ['persistentvolumeclaims', 'persistentvolumeclaims/status'], verbs: ['*'] },
];

const CSI_DRIVER_RULES: Rule[] = [
  { apiGroups: ['storage.k8s.io'], resources: ['storageclasses', 'volumeattachments'], verbs: READ },
  { apiGroups: ['harvesterhci.io'], resources: ['networkfilesystems', 'networkfilesystems/status', 'volumeremotebackups', 'volumeremoterestores'], verbs: ['*'] },
  { apiGroups: ['harvesterhci.io'], resources: ['settings'], verbs: ['get', 'list'], resourceNames: ['csi-online-expand-validation', 'csi-driver-config'] },
  { apiGroups: ['longhorn.io'], resources: ['volumes', 'volumes/status'], verbs: ['get', 'list'] },
  {
    apiGroups: ['snapshot.storage.k8s.io'],
    resources: ['volumesnapshots', 'volumesnapshotcontents', 'volumesnapshotclasses', 'volumesnapshots/status', 'volumesnapshotcontents/status'],
    verbs: ['*'],
  },
  { apiGroups: ['kubevirt.io'], resources: ['virtualmachines'], verbs: ['patch'] },
];

function clusterRole(name: string, rules: Rule[], labels: Record<string, string>, annotations?: Record<string, string>): KubeObject {
  const metadata: KubeObject['metadata'] = { name, labels };
  if (annotations) metadata.annotations = annotations;
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata, rules };
}

function groupBinding(role: string, groups: string[]): KubeObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: role, labels: BOOTSTRAP_LABELS, annotations: BOOTSTRAP_ANNOTATIONS },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: groups.map((name) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name })),
  };
}

/** The seeded ClusterRoles (bootstrap policy first, then Harvester's). */
export function seedClusterRoles(): KubeObject[] {
  return [
    clusterRole('cluster-admin', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }, { nonResourceURLs: ['*'], verbs: ['*'] }], BOOTSTRAP_LABELS, BOOTSTRAP_ANNOTATIONS),
    clusterRole(
      'system:discovery',
      [{ nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'], verbs: ['get'] }],
      BOOTSTRAP_LABELS,
      BOOTSTRAP_ANNOTATIONS,
    ),
    clusterRole('system:public-info-viewer', [{ nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'], verbs: ['get'] }], BOOTSTRAP_LABELS, BOOTSTRAP_ANNOTATIONS),
    clusterRole(
      'system:basic-user',
      [{ apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'], verbs: ['create'] }],
      BOOTSTRAP_LABELS,
      BOOTSTRAP_ANNOTATIONS,
    ),
    clusterRole(CLOUD_PROVIDER_ROLE, CLOUD_PROVIDER_RULES, HARVESTER_LABELS),
    clusterRole(CSI_DRIVER_ROLE, CSI_DRIVER_RULES, HARVESTER_LABELS),
  ];
}

/** The seeded ClusterRoleBindings of the bootstrap policy. */
export function seedClusterRoleBindings(): KubeObject[] {
  return [
    groupBinding('cluster-admin', ['system:masters']),
    groupBinding('system:discovery', ['system:authenticated']),
    groupBinding('system:public-info-viewer', ['system:authenticated', 'system:unauthenticated']),
    groupBinding('system:basic-user', ['system:authenticated']),
  ];
}
