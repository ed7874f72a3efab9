/**
 * Backend servers of a vm-type LoadBalancer (load-balancer-harvester pkg/lb/servicelb/manager.go
 * EnsureBackendServers): VMIs in the LB's namespace whose labels satisfy `spec.backendServerSelector`
 * (map key → allowed values, i.e. `key In values`; every key must match), that are Running and report an
 * IPv4 address. Health probes are not simulated: every running backend counts as healthy.
 */
import { KubeObject, StoreReader } from '../api/types';
import { HarvesterKinds } from './kinds';
import { field } from '../util/objects';
import { firstIPv4 } from './vm-network';

/** The VMIs an LB selects. */
export function selectedVmis(store: StoreReader, kinds: HarvesterKinds, lb: KubeObject): KubeObject[] {
  const selector = field<Record<string, string[]>>(lb, 'spec', 'backendServerSelector') ?? {};
  const keys = Object.keys(selector);
  if (keys.length === 0) return [];
  return store.listShared(kinds.vmi, { namespace: lb.metadata.namespace }).items.filter((vmi) => {
    const labels = vmi.metadata.labels ?? {};
    return keys.every((k) => labels[k] !== undefined && (selector[k] ?? []).includes(labels[k]));
  });
}

/** IPv4 addresses of the running selected VMIs (first IPv4 of each). */
export function backendAddresses(store: StoreReader, kinds: HarvesterKinds, lb: KubeObject): string[] {
  return selectedVmis(store, kinds, lb)
    .filter((vmi) => field(vmi, 'status', 'phase') === 'Running')
    .map(firstIPv4)
    .filter((ip): ip is string => ip !== undefined);
}
