/**
 * The kinds the provider manages or reads, with the REST coordinates client-node needs. CRDs go through
 * CustomObjectsApi (group/version/plural, no discovery call); core kinds through CoreV1Api (`coreName` picks
 * the generated method family, e.g. `readNamespacedService`).
 */

/** REST coordinates and traits of one kind. */
export interface KindSpec {
  /** '' for the core group. */
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  /** True where writes to `.status` need the /status subresource (so a PUT of the main resource ignores status). */
  statusSubresource: boolean;
  /** CoreV1Api method suffix (`Service` → `readNamespacedService`); set only for core kinds. */
  coreName?: string;
}

/** `v1` or `group/version`. */
export function apiVersionOf(kind: KindSpec): string {
  return kind.group ? `${kind.group}/${kind.version}` : kind.version;
}

/** The collection path, as used for watches: `/api/v1/namespaces/ns/services`, `/apis/g/v/plural`. */
export function collectionPath(kind: KindSpec, namespace?: string): string {
  const root = kind.group ? `/apis/${kind.group}/${kind.version}` : `/api/${kind.version}`;
  const ns = kind.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${root}${ns}/${kind.plural}`;
}

/** Every kind the client exposes as a typed accessor. */
export const KINDS = {
  VirtualMachine: { group: 'kubevirt.io', version: 'v1', kind: 'VirtualMachine', plural: 'virtualmachines', namespaced: true, statusSubresource: true },
  VirtualMachineInstance: {
    group: 'kubevirt.io',
    version: 'v1',
    kind: 'VirtualMachineInstance',
    plural: 'virtualmachineinstances',
    namespaced: true,
    statusSubresource: true,
  },
  VirtualMachineImage: {
    group: 'harvesterhci.io',
    version: 'v1beta1',
    kind: 'VirtualMachineImage',
    plural: 'virtualmachineimages',
    namespaced: true,
    statusSubresource: false,
  },
  KeyPair: { group: 'harvesterhci.io', version: 'v1beta1', kind: 'KeyPair', plural: 'keypairs', namespaced: true, statusSubresource: false },
  NetworkAttachmentDefinition: {
    group: 'k8s.cni.cncf.io',
    version: 'v1',
    kind: 'NetworkAttachmentDefinition',
    plural: 'network-attachment-definitions',
    namespaced: true,
    statusSubresource: false,
  },
  LoadBalancer: {
    group: 'loadbalancer.harvesterhci.io',
    version: 'v1beta1',
    kind: 'LoadBalancer',
    plural: 'loadbalancers',
    namespaced: true,
    statusSubresource: false,
  },
  ClusterNetwork: { group: 'network.harvesterhci.io', version: 'v1beta1', kind: 'ClusterNetwork', plural: 'clusternetworks', namespaced: false, statusSubresource: false },
  VlanConfig: { group: 'network.harvesterhci.io', version: 'v1beta1', kind: 'VlanConfig', plural: 'vlanconfigs', namespaced: false, statusSubresource: false },
  IPPool: { group: 'loadbalancer.harvesterhci.io', version: 'v1beta1', kind: 'IPPool', plural: 'ippools', namespaced: false, statusSubresource: false },
  Setting: { group: 'harvesterhci.io', version: 'v1beta1', kind: 'Setting', plural: 'settings', namespaced: false, statusSubresource: false },
  Node: { group: '', version: 'v1', kind: 'Node', plural: 'nodes', namespaced: false, statusSubresource: true, coreName: 'Node' },
  Namespace: { group: '', version: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false, statusSubresource: true, coreName: 'Namespace' },
  Service: { group: '', version: 'v1', kind: 'Service', plural: 'services', namespaced: true, statusSubresource: true, coreName: 'Service' },
  Secret: { group: '', version: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true, statusSubresource: false, coreName: 'Secret' },
  PersistentVolumeClaim: {
    group: '',
    version: 'v1',
    kind: 'PersistentVolumeClaim',
    plural: 'persistentvolumeclaims',
    namespaced: true,
    statusSubresource: true,
    coreName: 'PersistentVolumeClaim',
  },
  Pod: { group: '', version: 'v1', kind: 'Pod', plural: 'pods', namespaced: true, statusSubresource: true, coreName: 'Pod' },
  ResourceQuota: { group: '', version: 'v1', kind: 'ResourceQuota', plural: 'resourcequotas', namespaced: true, statusSubresource: true, coreName: 'ResourceQuota' },
  Event: { group: '', version: 'v1', kind: 'Event', plural: 'events', namespaced: true, statusSubresource: false, coreName: 'Event' },
  // Longhorn's own view of each host's disks, and its settings (read only, for the storage part of capacity).
  LonghornNode: { group: 'longhorn.io', version: 'v1beta2', kind: 'Node', plural: 'nodes', namespaced: true, statusSubresource: true },
  LonghornSetting: { group: 'longhorn.io', version: 'v1beta2', kind: 'Setting', plural: 'settings', namespaced: true, statusSubresource: true },
  ServiceAccount: { group: '', version: 'v1', kind: 'ServiceAccount', plural: 'serviceaccounts', namespaced: true, statusSubresource: false, coreName: 'ServiceAccount' },
  // RBAC is a built-in group, but its REST paths have the custom-object shape (/apis/<group>/<version>/…).
  ClusterRole: { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole', plural: 'clusterroles', namespaced: false, statusSubresource: false },
  ClusterRoleBinding: { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRoleBinding', plural: 'clusterrolebindings', namespaced: false, statusSubresource: false },
  RoleBinding: { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'RoleBinding', plural: 'rolebindings', namespaced: true, statusSubresource: false },
} as const satisfies Record<string, KindSpec>;

/** Name of a kind in KINDS. */
export type KindName = keyof typeof KINDS;
