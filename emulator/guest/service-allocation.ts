/**
 * What the guest apiserver's Service REST storage does on create/update, simulated as a mutating hook on the
 * guest store: a `clusterIP` from the service CIDR (10.43.0.0/16, RKE2's default) and, for NodePort and
 * LoadBalancer Services, a `nodePort` (30000–32767) for every port that lacks one. Updates keep the ports'
 * previous node ports. Allocation is deterministic (hash of the Service and port, then the next free one).
 */
import { AdmissionHook, AdmissionRequest, KubeObject } from '../api/types';
import { fnv1a } from '../controllers/hashing';
import { formatIPv4, parseIPv4 } from '../controllers/ipv4';
import { field } from '../controllers/object-util';

const NODE_PORT_MIN = 30000;
const NODE_PORT_MAX = 32767;
const SERVICE_CIDR_BASE = parseIPv4('10.43.0.0')!;
const SERVICE_CIDR_SIZE = 2 ** 16;

interface Port {
  name?: string;
  port?: number;
  protocol?: string;
  nodePort?: number;
}

function usedBy(services: KubeObject[], self: KubeObject): { nodePorts: Set<number>; ips: Set<string> } {
  const nodePorts = new Set<number>();
  const ips = new Set<string>();
  for (const svc of services) {
    if (svc.metadata.namespace === self.metadata.namespace && svc.metadata.name === self.metadata.name) continue;
    for (const p of field<Port[]>(svc, 'spec', 'ports') ?? []) if (p.nodePort) nodePorts.add(p.nodePort);
    const ip = field<string>(svc, 'spec', 'clusterIP');
    if (ip) ips.add(ip);
  }
  return { nodePorts, ips };
}

function allocate(req: AdmissionRequest): void {
  const svc = req.object;
  if (!svc || req.operation === 'DELETE' || req.subresource) return;
  const spec = (svc.spec ?? {}) as Record<string, unknown>;
  svc.spec = spec;
  const type = (spec.type as string | undefined) ?? 'ClusterIP';
  const services = req.store.list(req.kind).items;
  const used = usedBy(services, svc);
  const id = `${svc.metadata.namespace}/${svc.metadata.name}`;
  if (type !== 'ExternalName' && !spec.clusterIP) {
    const previous = field<string>(req.oldObject, 'spec', 'clusterIP');
    let ip = previous;
    for (let i = 0; !ip && i < SERVICE_CIDR_SIZE; i++) {
      const candidate = formatIPv4(SERVICE_CIDR_BASE + 1 + ((fnv1a(id) + i) % (SERVICE_CIDR_SIZE - 2)));
      if (!used.ips.has(candidate)) ip = candidate;
    }
    if (ip) {
      spec.clusterIP = ip;
      spec.clusterIPs = [ip];
    }
  }
  if (type !== 'NodePort' && type !== 'LoadBalancer') return;
  const oldPorts = field<Port[]>(req.oldObject, 'spec', 'ports') ?? [];
  const ports = (spec.ports as Port[] | undefined) ?? [];
  const span = NODE_PORT_MAX - NODE_PORT_MIN + 1;
  for (const p of ports) {
    if (p.nodePort) {
      used.nodePorts.add(p.nodePort);
      continue;
    }
    const kept = oldPorts.find((o) => o.port === p.port && (o.protocol ?? 'TCP') === (p.protocol ?? 'TCP'))?.nodePort;
    if (kept) {
      p.nodePort = kept;
      used.nodePorts.add(kept);
      continue;
    }
    for (let i = 0; i < span; i++) {
      const candidate = NODE_PORT_MIN + ((fnv1a(`${id}/${p.port}/${p.protocol ?? 'TCP'}`) + i) % span);
      if (!used.nodePorts.has(candidate)) {
        p.nodePort = candidate;
        used.nodePorts.add(candidate);
        break;
      }
    }
  }
}

/** The allocation hook for the guest store's Services. */
export function serviceAllocationHook(): AdmissionHook {
  return { name: 'guest-apiserver.service-allocation', resources: ['services'], mutate: allocate };
}
