/**
 * load-balancer-harvester's LoadBalancer webhooks (pkg/webhook/loadbalancer/mutator.go, validator.go).
 *
 * Mutator (create/update, not while deleting):
 * - health check with a port: zero thresholds/timings become successThreshold 2, failureThreshold 2,
 *   periodSeconds 1, timeoutSeconds 1 (getHealthyCheckPatch);
 * - vm/"" type: annotation `loadbalancer.harvesterhci.io/namespace` = the LB namespace;
 * - cluster type: annotations namespace (LB namespace), project (namespace annotation field.cattle.io/projectId,
 *   `:` → `/`) and network: the explicit annotation, else `cloudprovider.harvesterhci.io/managementNetwork`,
 *   else the first Multus network of a VMI labelled `guestcluster.harvesterhci.io/name=<cluster>`, else of a
 *   node-driver VMI whose name starts with the cluster name (legacy).
 * Validator: listeners (not for cluster type) ≥ 1, unique names, unique protocol:port and
 * protocol:backendPort, ports 1–65535; health check port must be a TCP listener's backend port and every
 * threshold > 0; on update ipam may not move to/from dhcp and workloadType may not change; on create of a
 * cluster-type LB, refused while the guest cluster's VMs carry `harvesterhci.io/removeAllPersistentVolumeClaims`.
 */
import { AdmissionHook, AdmissionRequest, KubeObject, StoreReader } from '../api/types';
import { HarvesterKinds } from '../controllers/kinds';
import {
  ANN_LB_CLUSTER,
  ANN_LB_NAMESPACE,
  ANN_LB_NETWORK,
  ANN_LB_PROJECT,
  ANN_MANAGEMENT_NETWORK,
  ANN_PROJECT_ID,
  ANN_REMOVE_ALL_PVCS,
  CREATOR_NODE_DRIVER,
  LABEL_CREATOR,
  LABEL_GUEST_CLUSTER,
  LABEL_LB_CLUSTER,
} from '../util/names';
import { annotationsOf, field, isDeleting, specOf } from '../util/objects';
import { objectKey } from '../controllers/runtime';
import { LB_MUTATOR, LB_VALIDATOR, denyInternalError } from './admission';

interface Listener {
  name?: string;
  port?: number;
  protocol?: string;
  backendPort?: number;
}

interface HealthCheck {
  port?: number;
  successThreshold?: number;
  failureThreshold?: number;
  periodSeconds?: number;
  timeoutSeconds?: number;
}

const MAX_PORT = 65535;

function isCluster(lb: KubeObject): boolean {
  return specOf(lb).workloadType === 'cluster';
}

function firstMultusNetwork(vmi: KubeObject): string | undefined {
  const networks = field<Record<string, unknown>[]>(vmi, 'spec', 'networks') ?? [];
  return networks.map((n) => field<string>(n, 'multus', 'networkName')).find((n): n is string => Boolean(n));
}

function findNetwork(store: StoreReader, kinds: HarvesterKinds, lb: KubeObject, cluster: string): string {
  const annotations = lb.metadata.annotations ?? {};
  if (annotations[ANN_LB_NETWORK]) return annotations[ANN_LB_NETWORK];
  if (annotations[ANN_MANAGEMENT_NETWORK]) return annotations[ANN_MANAGEMENT_NETWORK];
  if (!cluster) return '';
  const vmis = store.list(kinds.vmi, { namespace: lb.metadata.namespace }).items;
  for (const vmi of vmis) {
    if (vmi.metadata.labels?.[LABEL_GUEST_CLUSTER] === cluster) {
      const n = firstMultusNetwork(vmi);
      if (n) return n;
    }
  }
  for (const vmi of vmis) {
    if (vmi.metadata.labels?.[LABEL_CREATOR] === CREATOR_NODE_DRIVER && String(vmi.metadata.name).startsWith(cluster)) {
      const n = firstMultusNetwork(vmi);
      if (n) return n;
    }
  }
  return '';
}

function mutate(req: AdmissionRequest, kinds: HarvesterKinds): void {
  const lb = req.object;
  if (!lb || req.operation === 'DELETE' || isDeleting(lb)) return;
  const s = specOf(lb);
  const hc = s.healthCheck as HealthCheck | undefined;
  if (hc && hc.port) {
    hc.successThreshold ||= 2;
    hc.failureThreshold ||= 2;
    hc.periodSeconds ||= 1;
    hc.timeoutSeconds ||= 1;
  }
  const annotations = annotationsOf(lb, true);
  const ns = String(lb.metadata.namespace);
  annotations[ANN_LB_NAMESPACE] = ns;
  if (!isCluster(lb)) return;
  const namespace = req.store.get(kinds.namespace, undefined, ns);
  annotations[ANN_LB_PROJECT] = (namespace?.metadata.annotations?.[ANN_PROJECT_ID] ?? '').replace(':', '/');
  annotations[ANN_LB_NETWORK] = findNetwork(req.store, kinds, lb, annotations[ANN_LB_CLUSTER] ?? '');
}

function checkListeners(lb: KubeObject): string | undefined {
  if (isCluster(lb)) return undefined;
  const listeners = (specOf(lb).listeners as Listener[] | undefined) ?? [];
  if (listeners.length === 0) return 'the loadbalancer needs to have at least one listener';
  const names = new Set<string>();
  const ports = new Map<string, string>();
  const backends = new Map<string, string>();
  for (const l of listeners) {
    const name = l.name ?? '';
    if (names.has(name)) return `listener has duplicate name ${name}`;
    names.add(name);
    const portKey = `${l.protocol ?? ''}:${l.port ?? 0}`;
    if (ports.has(portKey)) return `listener ${name} has duplicate port ${portKey} with listener ${ports.get(portKey)}`;
    ports.set(portKey, name);
    const backendKey = `${l.protocol ?? ''}:${l.backendPort ?? 0}`;
    if (backends.has(backendKey)) return `listener ${name} has duplicate backend port ${backendKey} with listener ${backends.get(backendKey)}`;
    backends.set(backendKey, name);
  }
  for (const l of listeners) {
    const port = l.port ?? 0;
    const backend = l.backendPort ?? 0;
    if (port > MAX_PORT) return `listener port ${port} must <= ${MAX_PORT}`;
    if (port < 1) return `listener port ${port} must >= 1`;
    if (backend > MAX_PORT) return `listener backend port ${backend} must <= ${MAX_PORT}`;
    if (backend < 1) return `listener backend port ${backend} must >= 1`;
  }
  return undefined;
}

function checkHealthCheck(lb: KubeObject): string | undefined {
  if (isCluster(lb)) return undefined;
  const hc = specOf(lb).healthCheck as HealthCheck | undefined;
  if (!hc || !hc.port) return undefined;
  let wrongProtocol = false;
  for (const l of (specOf(lb).listeners as Listener[] | undefined) ?? []) {
    if (l.backendPort !== hc.port) continue;
    if (l.protocol === 'TCP') {
      if (!hc.successThreshold) return 'healthcheck SuccessThreshold should > 0';
      if (!hc.failureThreshold) return 'healthcheck FailureThreshold should > 0';
      if (!hc.periodSeconds) return 'healthcheck PeriodSeconds should > 0';
      if (!hc.timeoutSeconds) return 'healthcheck TimeoutSeconds should > 0';
      return undefined;
    }
    wrongProtocol = true;
  }
  return wrongProtocol
    ? `healthcheck port ${hc.port} can only be a TCP backend port`
    : `healthcheck port ${hc.port} is not in listener backend port list`;
}

function checkGuestClusterOnRemove(req: AdmissionRequest, kinds: HarvesterKinds, lb: KubeObject): string | undefined {
  if (!isCluster(lb)) return undefined;
  const cluster = lb.metadata.labels?.[LABEL_LB_CLUSTER];
  if (!cluster || cluster === 'kubernetes') return undefined;
  const selector = `${LABEL_CREATOR}=${CREATOR_NODE_DRIVER},${LABEL_GUEST_CLUSTER}=${cluster}`;
  for (const kind of [kinds.vmi, kinds.vm]) {
    for (const o of req.store.list(kind, { namespace: lb.metadata.namespace, labelSelector: selector }).items) {
      if (o.metadata.annotations?.[ANN_REMOVE_ALL_PVCS] === 'true') {
        return `the vmi ${o.metadata.namespace}/${o.metadata.name} shows guest cluster is on remove`;
      }
    }
  }
  return undefined;
}

function validate(req: AdmissionRequest, kinds: HarvesterKinds): void {
  const lb = req.object;
  if (!lb || req.operation === 'DELETE' || isDeleting(lb)) return;
  const id = objectKey(lb);
  const verb = req.operation === 'CREATE' ? 'create' : 'update';
  const listeners = checkListeners(lb);
  if (listeners) throw denyInternalError(LB_VALIDATOR, `${verb} loadbalancer ${id} failed: ${listeners}`);
  const hc = checkHealthCheck(lb);
  if (hc) throw denyInternalError(LB_VALIDATOR, `${verb} loadbalancer ${id} failed with healthyCheck: ${hc}`);
  if (req.operation === 'CREATE') {
    const onRemove = checkGuestClusterOnRemove(req, kinds, lb);
    if (onRemove) throw denyInternalError(LB_VALIDATOR, `create loadbalancer ${id} failed with guest cluster check: ${onRemove}`);
    return;
  }
  const old = req.oldObject;
  if (!old) return;
  const oldIpam = String(specOf(old).ipam ?? '');
  const newIpam = String(specOf(lb).ipam ?? '');
  if ((oldIpam === 'dhcp') !== (newIpam === 'dhcp')) {
    throw denyInternalError(LB_VALIDATOR, `update loadbalancer ${id} failed: can't change the IPAM from ${oldIpam} to ${newIpam}`);
  }
  const oldType = String(specOf(old).workloadType ?? '');
  const newType = String(specOf(lb).workloadType ?? '');
  if ((oldType === 'cluster') !== (newType === 'cluster')) {
    throw denyInternalError(LB_VALIDATOR, `update loadbalancer ${id} failed: can't change the WorkloadType from ${oldType} to ${newType}`);
  }
}

/** The LoadBalancer mutating + validating webhooks. */
export function loadBalancerWebhooks(kinds: HarvesterKinds): AdmissionHook[] {
  const resources = ['loadbalancers.loadbalancer.harvesterhci.io'];
  return [
    { name: LB_MUTATOR, resources, mutate: (req) => mutate(req, kinds) },
    { name: LB_VALIDATOR, resources, validate: (req) => validate(req, kinds) },
  ];
}
