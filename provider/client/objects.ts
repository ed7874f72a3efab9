/**
 * Light object types for what the provider reads and writes. Only the fields we use are typed; everything else
 * passes through untouched (the index signatures), so a read-modify-write never loses a field we do not know.
 */

/** Kubernetes object metadata (the subset we read or write, plus pass-through). */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean; blockOwnerDeletion?: boolean }[];
  [field: string]: unknown;
}

/** Any Kubernetes object as JSON. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/** A condition as KubeVirt, Harvester and core kinds report them. */
export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

/** kubevirt.io/v1 VirtualMachine. */
export interface VirtualMachine extends KubeObject {
  spec?: {
    runStrategy?: string;
    running?: boolean;
    template?: { metadata?: ObjectMeta; spec?: Record<string, unknown> };
    [field: string]: unknown;
  };
  status?: { printableStatus?: string; ready?: boolean; created?: boolean; conditions?: Condition[]; [field: string]: unknown };
}

/** kubevirt.io/v1 VirtualMachineInstance. */
export interface VirtualMachineInstance extends KubeObject {
  spec?: Record<string, unknown>;
  status?: {
    phase?: string;
    nodeName?: string;
    interfaces?: { name?: string; ipAddress?: string; ipAddresses?: string[]; mac?: string; [field: string]: unknown }[];
    conditions?: Condition[];
    [field: string]: unknown;
  };
}

/** harvesterhci.io/v1beta1 VirtualMachineImage. */
export interface VirtualMachineImage extends KubeObject {
  spec?: { displayName?: string; url?: string; sourceType?: string; storageClassParameters?: Record<string, string>; [field: string]: unknown };
  status?: { progress?: number; size?: number; storageClassName?: string; conditions?: Condition[]; [field: string]: unknown };
}

/** harvesterhci.io/v1beta1 KeyPair. */
export interface KeyPair extends KubeObject {
  spec?: { publicKey?: string; [field: string]: unknown };
  status?: { fingerPrint?: string; conditions?: Condition[]; [field: string]: unknown };
}

/** k8s.cni.cncf.io/v1 NetworkAttachmentDefinition (a Harvester VM network). */
export interface NetworkAttachmentDefinition extends KubeObject {
  spec?: { config?: string; [field: string]: unknown };
}

/** network.harvesterhci.io/v1beta1 ClusterNetwork: the hosts' uplink a VM network rides on (`mgmt` always exists). */
export interface ClusterNetwork extends KubeObject {
  status?: { conditions?: { type?: string; status?: string; message?: string }[] };
}

/** network.harvesterhci.io/v1beta1 VlanConfig: attaches the hosts it selects to a ClusterNetwork. */
export interface VlanConfig extends KubeObject {
  spec?: { clusterNetwork?: string; nodeSelector?: Record<string, string>; uplink?: Record<string, unknown>; [field: string]: unknown };
}

/** loadbalancer.harvesterhci.io/v1beta1 LoadBalancer. */
export interface LoadBalancer extends KubeObject {
  spec?: {
    ipam?: 'pool' | 'dhcp' | string;
    ipPool?: string;
    workloadType?: 'vm' | 'cluster' | string;
    listeners?: { name?: string; port: number; protocol?: string; backendPort: number }[];
    backendServerSelector?: Record<string, string[]>;
    healthCheck?: Record<string, unknown>;
    [field: string]: unknown;
  };
  status?: {
    address?: string;
    allocatedAddress?: { ipPool?: string; ip?: string; mask?: string; gateway?: string };
    conditions?: Condition[];
    [field: string]: unknown;
  };
}

/** loadbalancer.harvesterhci.io/v1beta1 IPPool (cluster-scoped; its status is the IPAM record and has no subresource). */
export interface IPPool extends KubeObject {
  spec?: {
    ranges?: { subnet: string; rangeStart?: string; rangeEnd?: string; gateway?: string; type?: string }[];
    selector?: { priority?: number; network?: string; scope?: { project?: string; namespace?: string; guestCluster?: string }[] };
    description?: string;
    [field: string]: unknown;
  };
  status?: {
    allocated?: Record<string, string>;
    available?: number;
    total?: number;
    lastAllocated?: string;
    conditions?: Condition[];
    [field: string]: unknown;
  };
}

/** v1 Node. */
export interface Node extends KubeObject {
  spec?: { unschedulable?: boolean; [field: string]: unknown };
  status?: { conditions?: Condition[]; addresses?: { type: string; address: string }[]; [field: string]: unknown };
}

/** v1 Service. */
export interface Service extends KubeObject {
  spec?: {
    type?: string;
    ports?: { name?: string; port: number; protocol?: string; targetPort?: number | string; nodePort?: number }[];
    selector?: Record<string, string>;
    [field: string]: unknown;
  };
  status?: { loadBalancer?: { ingress?: { ip?: string; hostname?: string }[] }; [field: string]: unknown };
}

/** v1 Secret. Values in `data` are base64; never log them (see redact.ts). */
export interface Secret extends KubeObject {
  type?: string;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

/** v1 ServiceAccount. */
export type ServiceAccount = KubeObject;

/** A subject of an RBAC binding. */
export interface RbacSubject {
  kind: string;
  name: string;
  namespace?: string;
  apiGroup?: string;
}

/** rbac.authorization.k8s.io/v1 RoleBinding or ClusterRoleBinding (roleRef is immutable). */
export interface RoleBinding extends KubeObject {
  subjects?: RbacSubject[];
  roleRef: { apiGroup: string; kind: string; name: string };
}

/** rbac.authorization.k8s.io/v1 ClusterRole (the rules are read, never written, by the provider). */
export interface ClusterRole extends KubeObject {
  rules?: Record<string, unknown>[];
}

/** v1 PersistentVolumeClaim. */
export interface PersistentVolumeClaim extends KubeObject {
  spec?: {
    accessModes?: string[];
    volumeMode?: string;
    storageClassName?: string;
    resources?: { requests?: Record<string, string> };
    [field: string]: unknown;
  };
  status?: { phase?: string; capacity?: Record<string, string>; [field: string]: unknown };
}

/** v1 Namespace. */
export interface Namespace extends KubeObject {
  status?: { phase?: string; [field: string]: unknown };
}

/** harvesterhci.io/v1beta1 Setting (cluster-scoped; `value` overrides `default`). */
export interface Setting extends KubeObject {
  default?: string;
  value?: string;
  status?: Record<string, unknown>;
}

/** A `Status` object as the API returns it for errors and some deletes. */
export interface StatusObject {
  kind: 'Status';
  apiVersion?: string;
  status?: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  code?: number;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    uid?: string;
    causes?: { reason?: string; message?: string; field?: string }[];
    retryAfterSeconds?: number;
  };
}

/** A container's resources, as a Pod spec carries them. */
export interface ContainerResources {
  requests?: Record<string, string>;
  limits?: Record<string, string>;
}

/** v1 Pod (read for what it requests on its host). */
export interface Pod extends KubeObject {
  spec?: {
    nodeName?: string;
    containers?: { name: string; resources?: ContainerResources; [field: string]: unknown }[];
    initContainers?: { name: string; resources?: ContainerResources; [field: string]: unknown }[];
    overhead?: Record<string, string>;
    [field: string]: unknown;
  };
  status?: { phase?: string; conditions?: Condition[]; [field: string]: unknown };
}

/** v1 ResourceQuota. */
export interface ResourceQuota extends KubeObject {
  spec?: { hard?: Record<string, string>; [field: string]: unknown };
  status?: { hard?: Record<string, string>; used?: Record<string, string> };
}

/** v1 Event (core view). */
export interface KubeEvent extends KubeObject {
  involvedObject?: { kind?: string; name?: string; namespace?: string; uid?: string };
  reason?: string;
  message?: string;
  type?: string;
  count?: number;
  series?: { count?: number; lastObservedTime?: string };
  firstTimestamp?: string | null;
  lastTimestamp?: string | null;
  eventTime?: string | null;
}

/** longhorn.io/v1beta2 Node: a host's disks as Longhorn schedules replicas on them. */
export interface LonghornNode extends KubeObject {
  spec?: { allowScheduling?: boolean; disks?: Record<string, { path?: string; allowScheduling?: boolean; storageReserved?: number; tags?: string[]; [field: string]: unknown }> };
  status?: {
    diskStatus?: Record<string, { storageAvailable?: number; storageMaximum?: number; storageScheduled?: number; conditions?: Condition[]; [field: string]: unknown }>;
    conditions?: Condition[];
    [field: string]: unknown;
  };
}

/** longhorn.io/v1beta2 Setting. */
export interface LonghornSetting extends KubeObject {
  value?: string;
}
