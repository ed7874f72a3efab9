/**
 * Pure load-balancer planning: the desired object, the live object read back in the inputs' own shape (defaults
 * included, Harvester's additions ignored), drift lines, outputs and the diff (ipam, name and namespace replace).
 */
import type { LoadBalancer } from '../../client/objects';
import { stampOwnership, type OwnerIdentity } from '../../client/ownership';
import { driftValue, stableStringify } from '../../core/hash';
import { changedKeys } from '../../core/imported';
import { qualify, spellLike } from '../../core/object-ref';
import { HEALTH_CHECK_DEFAULTS, REPLACE_INPUTS, type LoadBalancerInputs, type LoadBalancerOutputs } from './model';

export const RESOURCE_TYPE = 'load-balancer';
export const API_VERSION = 'loadbalancer.harvesterhci.io/v1beta1';
/** Annotation Harvester's pool selection matches against an IPPool's selector.network. */
export const NETWORK_ANNOTATION = 'loadbalancer.harvesterhci.io/network';

export function lbOwner(name: string): OwnerIdentity {
  return { resourceType: RESOURCE_TYPE, resourceName: name };
}

type Spec = NonNullable<LoadBalancer['spec']>;
type SpecInputs = Pick<LoadBalancerInputs, 'description' | 'ipam' | 'ipPool' | 'listeners' | 'backendServerSelector' | 'healthCheck' | 'network'>;
const SPEC_FIELDS = ['description', 'ipam', 'ipPool', 'listeners', 'backendServerSelector', 'healthCheck', 'network'] as const;
/** Inputs of a guest-cluster Service (workloadType "cluster"), compared by diff. */
const CLUSTER_FIELDS = ['workloadType', 'guestClusterName', 'ports', 'podSelector', 'guestCloudProviderVersion', 'cloudProviderNamespace'] as const;

export function desiredSpec(inputs: SpecInputs): Spec {
  const spec: Spec = {
    workloadType: 'vm',
    ipam: inputs.ipam,
    listeners: (inputs.listeners ?? []).map((l) => ({ name: l.name, port: l.port, protocol: l.protocol, backendPort: l.backendPort })),
    backendServerSelector: Object.fromEntries(Object.entries(inputs.backendServerSelector ?? {}).map(([k, v]) => [k, [...v]])),
  };
  if (inputs.description !== undefined) spec.description = inputs.description;
  if (inputs.ipPool !== undefined) spec.ipPool = inputs.ipPool;
  if (inputs.healthCheck) spec.healthCheck = { ...inputs.healthCheck };
  return spec;
}

export function desiredLoadBalancer(inputs: LoadBalancerInputs): LoadBalancer {
  const annotations: Record<string, string> = {};
  // Harvester matches this annotation against IP pools' selector.network: always "namespace/name".
  if (inputs.network) annotations[NETWORK_ANNOTATION] = qualify(inputs.network, inputs.namespace);
  return stampOwnership(
    { apiVersion: API_VERSION, kind: 'LoadBalancer', metadata: { name: inputs.name, namespace: inputs.namespace, annotations }, spec: desiredSpec(inputs) },
    lbOwner(inputs.name),
  );
}

/** The live object as inputs; Harvester's mutator defaults on the health check read back as the model's defaults. */
export function liveInputs(lb: LoadBalancer, recorded?: Pick<SpecInputs, 'network'>): SpecInputs {
  const spec = lb.spec ?? {};
  const out: SpecInputs = {
    ipam: spec.ipam === 'dhcp' ? 'dhcp' : 'pool',
    listeners: (spec.listeners ?? []).map((l) => ({ name: l.name ?? '', port: l.port, protocol: l.protocol === 'UDP' ? 'UDP' : 'TCP', backendPort: l.backendPort })),
    backendServerSelector: Object.fromEntries(Object.entries(spec.backendServerSelector ?? {}).map(([k, v]) => [k, [...v]])),
  };
  if (spec.description) out.description = spec.description as string;
  if (spec.ipPool) out.ipPool = spec.ipPool;
  const hc = spec.healthCheck as Record<string, number> | undefined;
  if (hc && hc.port) {
    out.healthCheck = {
      port: hc.port,
      successThreshold: hc.successThreshold || HEALTH_CHECK_DEFAULTS.successThreshold,
      failureThreshold: hc.failureThreshold || HEALTH_CHECK_DEFAULTS.failureThreshold,
      periodSeconds: hc.periodSeconds || HEALTH_CHECK_DEFAULTS.periodSeconds,
      timeoutSeconds: hc.timeoutSeconds || HEALTH_CHECK_DEFAULTS.timeoutSeconds,
    };
  }
  const network = lb.metadata.annotations?.[NETWORK_ANNOTATION];
  if (network) out.network = spellLike(network, recorded?.network, lb.metadata.namespace);
  return out;
}

export function driftOf(recorded: SpecInputs, live: LoadBalancer): string[] {
  const now = liveInputs(live);
  const annotations: Record<string, string> = recorded.network ? { [NETWORK_ANNOTATION]: qualify(recorded.network, live.metadata.namespace) } : {};
  const was = liveInputs({ ...live, metadata: { ...live.metadata, annotations }, spec: desiredSpec(recorded) });
  const id = `LoadBalancer ${live.metadata.namespace}/${live.metadata.name}`;
  return SPEC_FIELDS.filter((f) => stableStringify(now[f]) !== stableStringify(was[f])).map(
    (f) => `${id}: ${f} is ${driftValue(now[f])}, this resource set ${driftValue(was[f])}`,
  );
}

export function readyOf(lb: LoadBalancer | undefined): { ready: boolean; message: string } {
  const c = lb?.status?.conditions?.find((x) => x.type === 'Ready');
  return { ready: c?.status === 'True', message: c?.status === 'True' ? '' : (c?.message ?? 'not reconciled yet') };
}

export function toOutputs(inputs: LoadBalancerInputs, live: LoadBalancer, drift: string[] = []): LoadBalancerOutputs {
  const allocated = live.status?.allocatedAddress ?? {};
  const address = live.status?.address ?? '';
  return {
    ...inputs,
    address,
    allocatedPool: allocated.ipPool ?? '',
    mask: allocated.mask ?? '',
    gateway: allocated.gateway ?? '',
    backendServers: [...((live.status?.backendServers as string[] | undefined) ?? [])],
    ...readyOf(live),
    drift,
    harvesterLoadBalancer: `${live.metadata.namespace}/${live.metadata.name}`,
  };
}

export function diffInputs(olds: Partial<LoadBalancerOutputs>, news: Partial<LoadBalancerInputs>): { changes: boolean; replaces: string[] } {
  const keys = ['name', 'namespace', ...SPEC_FIELDS, ...CLUSTER_FIELDS, 'timeouts'] as const;
  const changed = changedKeys(olds, news, keys);
  return { changes: changed.length > 0 || (olds.drift ?? []).length > 0, replaces: changed.filter((k) => REPLACE_INPUTS.includes(k)) };
}
