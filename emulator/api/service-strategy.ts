/**
 * What the apiserver does to every core v1 Service, whichever cluster it runs in (RKE2 defaults):
 *
 * 1. defaulting (k8s.io/kubernetes pkg/apis/core/v1 SetDefaults_Service): type ClusterIP, sessionAffinity None,
 *    port protocol TCP and targetPort = port, internalTrafficPolicy Cluster, and for NodePort/LoadBalancer
 *    externalTrafficPolicy Cluster (LoadBalancer also allocateLoadBalancerNodePorts true);
 * 2. allocation (registry/core/service/storage): a cluster IP from the service CIDR 10.43.0.0/16 with
 *    ipFamilies [IPv4] / SingleStack (not for ExternalName; `clusterIP: None` stays headless), and a node port
 *    in 30000–32767 for every port of a NodePort or LoadBalancer Service that lacks one.
 *
 * Updates keep what was allocated (a body without clusterIP or nodePort gets the stored values back), as the
 * Service REST storage's patchAllocatedValues does. Allocation is deterministic: a hash of the Service (and
 * port) picks the first candidate, then the next free one.
 */
import { createHash } from 'node:crypto';
import { formatIPv4 } from '../util/ipv4';
import type { KubeObject } from './types';

const NODE_PORT_MIN = 30000;
const NODE_PORT_MAX = 32767;
/** 10.43.0.0/16, RKE2's default service CIDR. */
const SERVICE_CIDR_BASE = (10 << 24) + (43 << 16);
const SERVICE_CIDR_SIZE = 2 ** 16;

interface Port {
  name?: string;
  port?: number;
  protocol?: string;
  targetPort?: number | string;
  nodePort?: number;
}

/** Where a Service's neighbours and previous state come from. */
export interface ServiceStrategyContext {
  /** The stored Service before this write (updates). */
  old?: KubeObject;
  /** Every stored Service (for free cluster IPs and node ports). */
  siblings: () => KubeObject[];
}

function spread(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0);
}

function specOf(svc: KubeObject | undefined): Record<string, unknown> {
  return (svc?.spec && typeof svc.spec === 'object' ? svc.spec : {}) as Record<string, unknown>;
}

function portsOf(svc: KubeObject | undefined): Port[] {
  const ports = specOf(svc).ports;
  return Array.isArray(ports) ? (ports as Port[]) : [];
}

function setDefaults(spec: Record<string, unknown>): void {
  spec.sessionAffinity ??= 'None';
  spec.type ??= 'ClusterIP';
  for (const p of portsOf({ spec } as unknown as KubeObject)) {
    if (!p || typeof p !== 'object') continue;
    p.protocol ??= 'TCP';
    if (p.targetPort === undefined || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
  }
  const type = spec.type;
  if (type === 'NodePort' || type === 'LoadBalancer') spec.externalTrafficPolicy ??= 'Cluster';
  if (type === 'NodePort' || type === 'LoadBalancer' || type === 'ClusterIP') spec.internalTrafficPolicy ??= 'Cluster';
  if (type === 'LoadBalancer') spec.allocateLoadBalancerNodePorts ??= true;
}

function allocateClusterIp(spec: Record<string, unknown>, id: string, ctx: ServiceStrategyContext, taken: Set<string>): void {
  if (spec.type === 'ExternalName') return;
  const previous = specOf(ctx.old).clusterIP;
  if (!spec.clusterIP && typeof previous === 'string' && previous) spec.clusterIP = previous;
  if (!spec.clusterIP) {
    const start = spread(id);
    for (let i = 0; i < SERVICE_CIDR_SIZE - 2; i++) {
      const candidate = formatIPv4(SERVICE_CIDR_BASE + 1 + ((start + i) % (SERVICE_CIDR_SIZE - 2)));
      if (!taken.has(candidate)) {
        spec.clusterIP = candidate;
        break;
      }
    }
  }
  if (typeof spec.clusterIP === 'string' && spec.clusterIP) spec.clusterIPs ??= [spec.clusterIP];
  spec.ipFamilies ??= ['IPv4'];
  spec.ipFamilyPolicy ??= 'SingleStack';
}

function allocateNodePorts(spec: Record<string, unknown>, id: string, ctx: ServiceStrategyContext, taken: Set<number>): void {
  const wants = spec.type === 'NodePort' || (spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts !== false);
  if (!wants) return;
  const oldPorts = portsOf(ctx.old);
  const span = NODE_PORT_MAX - NODE_PORT_MIN + 1;
  for (const p of portsOf({ spec } as unknown as KubeObject)) {
    if (!p || typeof p !== 'object') continue;
    if (!p.nodePort) {
      p.nodePort = oldPorts.find((o) => o.port === p.port && (o.protocol ?? 'TCP') === (p.protocol ?? 'TCP'))?.nodePort;
    }
    if (!p.nodePort) {
      const start = spread(`${id}/${p.port}/${p.protocol ?? 'TCP'}`);
      for (let i = 0; i < span; i++) {
        const candidate = NODE_PORT_MIN + ((start + i) % span);
        if (!taken.has(candidate)) {
          p.nodePort = candidate;
          break;
        }
      }
    }
    if (p.nodePort) taken.add(p.nodePort);
  }
}

/** Default and allocate a Service in place (create and main-resource update). */
export function prepareService(svc: KubeObject, ctx: ServiceStrategyContext): void {
  if (!svc.spec || typeof svc.spec !== 'object' || Array.isArray(svc.spec)) svc.spec = {};
  const spec = svc.spec as Record<string, unknown>;
  setDefaults(spec);
  const id = `${svc.metadata.namespace}/${svc.metadata.name}`;
  const ips = new Set<string>();
  const nodePorts = new Set<number>();
  for (const other of ctx.siblings()) {
    if (`${other.metadata.namespace}/${other.metadata.name}` === id) continue;
    const ip = specOf(other).clusterIP;
    if (typeof ip === 'string') ips.add(ip);
    for (const p of portsOf(other)) if (p.nodePort) nodePorts.add(p.nodePort);
  }
  allocateClusterIp(spec, id, ctx, ips);
  allocateNodePorts(spec, id, ctx, nodePorts);
}
