/**
 * check's pure rules for a load balancer, mirroring the LoadBalancer webhook (load-balancer-harvester
 * pkg/webhook/loadbalancer/validator.go; docs/design/harvester-load-balancer.md §"The LoadBalancer webhook") so a
 * bad one is refused at preview, on its field: unique listener names, protocol:port and protocol:backendPort; a
 * health-check port that is a TCP listener's backendPort; an ipPool only with ipam "pool".
 */
import { formatPath } from '../../core/input-errors';
import type { CheckFailure } from '../../core/types';
import { isUnknown } from '../../core/unknowns';
import { validateWithModel } from '../../core/validate-model';
import { inputVariants } from '../../core/input-flags';
import { SECRET_INPUTS, loadBalancerSchema } from './model';

/** The inputs of each workload type, from the model. */
const VARIANTS = inputVariants(loadBalancerSchema)!;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

export function crossFieldFailures(user: Obj): CheckFailure[] {
  const out: CheckFailure[] = [];
  const fail = (property: string, reason: string) => out.push({ property, reason });
  const listeners = Array.isArray(user.listeners) ? user.listeners.filter(isObj) : [];
  const seen = new Map<string, number>();
  listeners.forEach((l, i) => {
    const protocol = typeof l.protocol === 'string' ? l.protocol : 'TCP';
    const keys: [string, unknown, string][] = [
      ['name', l.name, `name ${JSON.stringify(l.name)}`],
      ['port', l.port, `${protocol} port ${l.port}`],
      ['backendPort', l.backendPort, `${protocol} backendPort ${l.backendPort}`],
    ];
    for (const [field, value, label] of keys) {
      if (value === undefined || isUnknown(value) || isUnknown(l.protocol)) continue;
      const key = field === 'name' ? `name:${value}` : `${field}:${protocol}:${value}`;
      const first = seen.get(key);
      if (first !== undefined) fail(formatPath(['listeners', i, field]), `${label} is already used by listeners[${first}] (the webhook refuses duplicates): choose another`);
      else seen.set(key, i);
    }
  });
  const hc = isObj(user.healthCheck) ? user.healthCheck : undefined;
  if (user.workloadType !== 'cluster' && hc && typeof hc.port === 'number' && !listeners.some((l) => isUnknown(l.backendPort) || isUnknown(l.protocol))) {
    const tcpBackends = listeners.filter((l) => (l.protocol ?? 'TCP') === 'TCP').map((l) => l.backendPort);
    if (!tcpBackends.includes(hc.port)) {
      const udp = listeners.some((l) => l.protocol === 'UDP' && l.backendPort === hc.port);
      fail('healthCheck.port', udp
        ? `${hc.port} is the backendPort of a UDP listener; health checks are TCP only: probe a TCP listener's backendPort (${tcpBackends.join(', ') || 'none'})`
        : `${hc.port} is not the backendPort of any TCP listener: use one of ${tcpBackends.join(', ') || '(no TCP listener)'}`);
    }
  }
  if (user.ipam === 'dhcp' && user.ipPool !== undefined && !isUnknown(user.ipPool)) {
    fail('ipPool', 'is set but ipam is "dhcp", which takes no pool: remove ipPool, or set ipam to "pool"');
  }
  const cluster = user.workloadType === 'cluster';
  if (!isUnknown(user.workloadType)) {
    // Which inputs each workload type takes and needs: the model's variant marks (the SDK's Args union reads them too).
    const type = cluster ? 'cluster' : 'vm';
    const own = VARIANTS.variants[type];
    const foreign = Object.entries(VARIANTS.variants).filter(([t]) => t !== type).flatMap(([, v]) => v.only);
    for (const key of own.required) if (user[key] === undefined) fail(key, `is required with workloadType "${type}"${cluster ? '' : ' (the default)'}`);
    for (const key of foreign) {
      if (user[key] === undefined) continue;
      fail(key, cluster
        ? `is not used with workloadType "cluster": the guest's Harvester cloud provider makes the load balancer from the Service (ports, podSelector) and Harvester chooses the pool; remove ${key}`
        : `belongs to workloadType "cluster" (a guest-cluster Service): remove it, or set workloadType to "cluster"`);
    }
  }
  if (cluster && hc && typeof hc.port === 'number' && Array.isArray(user.ports) && !user.ports.some((p) => isObj(p) && (p.port === hc.port || isUnknown(p.port)))) {
    fail('healthCheck.port', `${hc.port} is not a port of the Service: the cloud provider maps the health-check port to a Service port's nodePort; use one of ${user.ports.filter(isObj).map((p) => p.port).join(', ')}`);
  }
  if (isObj(user.backendServerSelector) && Object.keys(user.backendServerSelector).length === 0) {
    fail('backendServerSelector', 'is empty, so it would select no VM: give labels of the backends, e.g. a HarvesterMachinePool\'s backendSelector output');
  }
  return out;
}

export function validateInputs(raw: Record<string, unknown>) {
  return validateWithModel(loadBalancerSchema, raw, { secretInputs: SECRET_INPUTS, crossField: crossFieldFailures });
}
