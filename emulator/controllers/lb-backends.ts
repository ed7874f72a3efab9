/**
 * Backend servers of a vm-type LoadBalancer (load-balancer-harvester pkg/lb/servicelb/manager.go
 * EnsureBackendServers): VMIs in the LB's namespace whose labels satisfy `spec.backendServerSelector`
 * (map key → allowed values, i.e. `key In values`; every key must match), that are Running and report an
 * IPv4 address. Health probes are not simulated: every running backend counts as healthy.
 */
import { KubeObject, StoreReader } from '../api/types';
import { HarvesterKinds } from './kinds';
import { parseIPv4 } from './ipv4';
import { field } from './object-util';

/** The VMIs an LB selects. */
export function selectedVmis(store: StoreReader, kinds: HarvesterKinds, lb: KubeObject): KubeObject[] {
  const selector = field<Record<string, string[]>>(lb, 'spec', 'backendServerSelector') ?? {};
  const keys = Object.keys(selector);
  if (keys.length === 0) return [];
  return store.list(kinds.vmi, { namespace: lb.metadata.namespace }).items.filter((vmi) => {
    const labels = vmi.metadata.labels ?? {};
    return keys.every((k) => labels[k] !== undefined && (selector[k] ?? []).includes(labels[k]));
  });
}

/** IPv4 addresses of the running selected VMIs (first IPv4 of each). */
export function backendAddresses(store: StoreReader, kinds: HarvesterKinds, lb: KubeObject): { running: number; addresses: string[] } {
  let running = 0;
  const addresses: string[] = [];
  for (const vmi of selectedVmis(store, kinds, lb)) {
    if (field(vmi, 'status', 'phase') !== 'Running') continue;
    running++;
    const ifaces = field<Record<string, unknown>[]>(vmi, 'status', 'interfaces') ?? [];
    const ip = ifaces.map((i) => i.ipAddress).find((a) => parseIPv4(a) !== undefined);
    if (typeof ip === 'string') addresses.push(ip);
  }
  return { running, addresses };
}
