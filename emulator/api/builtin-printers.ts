/**
 * The apiserver's own table columns for built-in kinds whose cells are computed, not read by a JSONPath
 * (k8s.io/kubernetes pkg/printers/internalversion/printers.go): Node STATUS/ROLES, Service EXTERNAL-IP and
 * PORT(S), ConfigMap/Secret DATA. `kubectl get nodes` then reads `Ready,SchedulingDisabled` after a cordon,
 * and `kubectl get svc -w` shows `<pending>` until a load balancer address arrives, as on a real cluster.
 * Kinds not listed here print their registry printer columns (table.ts).
 */
import type { ComputedColumn, KindInfo, KubeObject } from './types';
import { EVENT_COLUMNS, POD_COLUMNS, RESOURCE_QUOTA_COLUMNS } from './pod-event-printers';



type Rec = Record<string, unknown>;

function rec(value: unknown): Rec {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Rec) : {};
}

function list(value: unknown): Rec[] {
  return Array.isArray(value) ? value.map(rec) : [];
}

const AGE: ComputedColumn = { name: 'Age', type: 'date', value: (o) => o.metadata.creationTimestamp };

function nodeStatus(node: KubeObject): string {
  const ready = list(rec(node.status).conditions).find((c) => c.type === 'Ready');
  const parts = [ready?.status === 'True' ? 'Ready' : ready?.status === 'False' ? 'NotReady' : 'Unknown'];
  if (rec(node.spec).unschedulable === true) parts.push('SchedulingDisabled');
  return parts.join(',');
}

function nodeRoles(node: KubeObject): string {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(node.metadata.labels ?? {})) {
    if (key.startsWith('node-role.kubernetes.io/') && key.length > 'node-role.kubernetes.io/'.length) roles.add(key.slice('node-role.kubernetes.io/'.length));
    else if (key === 'kubernetes.io/role' && value) roles.add(value);
  }
  return roles.size > 0 ? [...roles].sort().join(',') : '<none>';
}

function nodeAddress(node: KubeObject, type: string): string {
  return String(list(rec(node.status).addresses).find((a) => a.type === type)?.address ?? '<none>');
}

function nodeInfo(node: KubeObject, key: string): unknown {
  return rec(rec(node.status).nodeInfo)[key] ?? null;
}

function serviceExternalIp(svc: KubeObject): string {
  const spec = rec(svc.spec);
  const external = Array.isArray(spec.externalIPs) ? (spec.externalIPs as string[]) : [];
  switch (spec.type ?? 'ClusterIP') {
    case 'LoadBalancer': {
      const ingress = list(rec(rec(svc.status).loadBalancer).ingress).map((i) => String(i.ip ?? i.hostname ?? ''));
      const all = [...ingress.filter((i) => i), ...external];
      return all.length > 0 ? all.join(',') : '<pending>';
    }
    case 'ExternalName':
      return String(spec.externalName ?? '<none>');
    default:
      return external.length > 0 ? external.join(',') : '<none>';
  }
}

function servicePorts(svc: KubeObject): string {
  const ports = list(rec(svc.spec).ports);
  if (ports.length === 0) return '<none>';
  return ports.map((p) => `${p.port}${p.nodePort ? `:${p.nodePort}` : ''}/${p.protocol ?? 'TCP'}`).join(',');
}

function selector(svc: KubeObject): string {
  const entries = Object.entries(rec(rec(svc.spec).selector));
  return entries.length > 0 ? entries.map(([k, v]) => `${k}=${v}`).join(',') : '<none>';
}

function countKeys(...maps: unknown[]): number {
  return maps.reduce<number>((n, m) => n + Object.keys(rec(m)).length, 0);
}

/** The apiserver prints a role's creation as an RFC 3339 string, not as an age. */
const CREATED_AT: ComputedColumn = { name: 'Created At', type: 'string', value: (o) => o.metadata.creationTimestamp };

function roleRefCell(binding: KubeObject): string {
  const ref = rec(binding.roleRef);
  return `${String(ref.kind ?? '')}/${String(ref.name ?? '')}`;
}

/** A binding's subjects of one kind (`-o wide` USERS, GROUPS, SERVICEACCOUNTS), as the apiserver joins them. */
function subjectsCell(binding: KubeObject, kind: string): string {
  return list(binding.subjects)
    .filter((s) => s.kind === kind)
    .map((s) => (kind === 'ServiceAccount' ? `${String(s.namespace ?? '')}/${String(s.name)}` : String(s.name)))
    .join(', ');
}

const BINDING_COLUMNS: ComputedColumn[] = [
  { name: 'Role', type: 'string', value: roleRefCell },
  AGE,
  { name: 'Users', type: 'string', priority: 1, value: (o) => subjectsCell(o, 'User') },
  { name: 'Groups', type: 'string', priority: 1, value: (o) => subjectsCell(o, 'Group') },
  { name: 'ServiceAccounts', type: 'string', priority: 1, value: (o) => subjectsCell(o, 'ServiceAccount') },
];

const BUILTIN: Record<string, ComputedColumn[]> = {
  Node: [
    { name: 'Status', type: 'string', value: nodeStatus },
    { name: 'Roles', type: 'string', value: nodeRoles },
    AGE,
    { name: 'Version', type: 'string', value: (o) => nodeInfo(o, 'kubeletVersion') },
    { name: 'Internal-IP', type: 'string', priority: 1, value: (o) => nodeAddress(o, 'InternalIP') },
    { name: 'External-IP', type: 'string', priority: 1, value: (o) => nodeAddress(o, 'ExternalIP') },
    { name: 'OS-Image', type: 'string', priority: 1, value: (o) => nodeInfo(o, 'osImage') },
    { name: 'Kernel-Version', type: 'string', priority: 1, value: (o) => nodeInfo(o, 'kernelVersion') },
    { name: 'Container-Runtime', type: 'string', priority: 1, value: (o) => nodeInfo(o, 'containerRuntimeVersion') },
  ],
  Service: [
    { name: 'Type', type: 'string', value: (o) => rec(o.spec).type ?? 'ClusterIP' },
    { name: 'Cluster-IP', type: 'string', value: (o) => rec(o.spec).clusterIP || '<none>' },
    { name: 'External-IP', type: 'string', value: serviceExternalIp },
    { name: 'Port(s)', type: 'string', value: servicePorts },
    AGE,
    { name: 'Selector', type: 'string', priority: 1, value: selector },
  ],
  ConfigMap: [{ name: 'Data', type: 'integer', value: (o) => countKeys(o.data, o.binaryData) }, AGE],
  ServiceAccount: [{ name: 'Secrets', type: 'integer', value: (o) => (Array.isArray(o.secrets) ? o.secrets.length : 0) }, AGE],
  Role: [CREATED_AT],
  ClusterRole: [CREATED_AT],
  RoleBinding: BINDING_COLUMNS,
  ClusterRoleBinding: BINDING_COLUMNS,
  Pod: POD_COLUMNS,
  Event: EVENT_COLUMNS,
  ResourceQuota: RESOURCE_QUOTA_COLUMNS,
  Secret: [{ name: 'Type', type: 'string', value: (o) => o.type ?? null }, { name: 'Data', type: 'integer', value: (o) => countKeys(o.data) }, AGE],
};

/** The computed columns of a built-in kind, or undefined when it prints its registry printer columns. */
export function builtinColumns(kind: KindInfo): ComputedColumn[] | undefined {
  return (kind.group === '' || kind.group === 'rbac.authorization.k8s.io') && kind.builtIn ? BUILTIN[kind.kind] : undefined;
}
