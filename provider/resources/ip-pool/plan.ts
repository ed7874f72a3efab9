/**
 * Pure IPPool planning: the desired object, the live spec read back in the inputs' own shape (so a refresh shows
 * an out-of-band edit per property), the drift lines and the wait's verdict.
 */
import type { CheckResult as WaitVerdict } from '../../await';
import type { IPPool } from '../../client/objects';
import { stampOwnership, type OwnerIdentity } from '../../client/ownership';
import { driftValue, stableStringify } from '../../core/hash';
import { qualify, spellLike } from '../../core/object-ref';
import type { IPPoolInputs, IPPoolOutputs } from './model';

export const RESOURCE_TYPE = 'ip-pool';
export const API_VERSION = 'loadbalancer.harvesterhci.io/v1beta1';

export function poolOwner(name: string): OwnerIdentity {
  return { resourceType: RESOURCE_TYPE, resourceName: name };
}

/** The spec we own: every other field of the object (status above all) is never written. */
export type PoolSpec = NonNullable<IPPool['spec']>;

export function desiredSpec(inputs: Pick<IPPoolInputs, 'ranges' | 'selector' | 'description'>): PoolSpec {
  const selector: PoolSpec['selector'] = { priority: inputs.selector.priority, scope: inputs.selector.scope.map((s) => ({ ...s })) };
  // Harvester matches a load balancer's network annotation to this text: always "namespace/name".
  if (inputs.selector.network) selector.network = qualify(inputs.selector.network);
  const spec: PoolSpec = { ranges: inputs.ranges.map((r) => ({ ...r })), selector };
  if (inputs.description !== undefined) spec.description = inputs.description;
  return spec;
}

export function desiredPool(inputs: IPPoolInputs): IPPool {
  return stampOwnership({ apiVersion: API_VERSION, kind: 'IPPool', metadata: { name: inputs.name }, spec: desiredSpec(inputs) }, poolOwner(inputs.name));
}

/**
 * The live spec as inputs (defaults of the model filled in where Harvester leaves fields out); the network spelt as
 * the recorded inputs spell it when both name the same network.
 */
export function liveInputs(pool: IPPool, recorded?: Partial<Pick<IPPoolInputs, 'selector'>>): Pick<IPPoolInputs, 'ranges' | 'selector' | 'description'> {
  const spec = pool.spec ?? {};
  const ranges = (spec.ranges ?? []).map((r) => {
    const out: IPPoolInputs['ranges'][number] = { subnet: r.subnet };
    if (r.rangeStart) out.rangeStart = r.rangeStart;
    if (r.rangeEnd) out.rangeEnd = r.rangeEnd;
    if (r.gateway) out.gateway = r.gateway;
    return out;
  });
  const selector: IPPoolInputs['selector'] = {
    priority: spec.selector?.priority ?? 0,
    scope: (spec.selector?.scope ?? []).map((s) => ({ project: s.project || '*', namespace: s.namespace || '*', guestCluster: s.guestCluster || '*' })),
  };
  if (spec.selector?.network) selector.network = spellLike(spec.selector.network, recorded?.selector?.network);
  const out: ReturnType<typeof liveInputs> = { ranges, selector };
  if (spec.description) out.description = spec.description;
  return out;
}

const SPEC_FIELDS = ['ranges', 'selector', 'description'] as const;

/** One line per spec field the live pool has changed since we wrote it. */
export function driftOf(recorded: Pick<IPPoolInputs, 'ranges' | 'selector' | 'description'>, live: IPPool): string[] {
  const now = liveInputs(live);
  const was = liveInputs({ ...live, spec: desiredSpec(recorded) });
  return SPEC_FIELDS.filter((f) => stableStringify(now[f]) !== stableStringify(was[f])).map(
    (f) => `IPPool ${live.metadata.name}: ${f} is ${driftValue(now[f])}, this resource set ${driftValue(was[f])}`,
  );
}

/** The wait's verdict on a pool: done once Ready=True; otherwise the condition's message, or that the controller has not reported yet. */
export function poolReadiness(name: string, pool: IPPool | undefined): WaitVerdict {
  const ready = pool?.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status === 'True') return { done: true, description: `IPPool ${name} is Ready` };
  return { done: false, description: `IPPool ${name}: ${ready?.message ?? 'waiting for the IPPool controller'}`, pending: [ready?.message ?? 'Ready condition'] };
}

/** Outputs from inputs and the live pool. */
export function toOutputs(inputs: IPPoolInputs, live: IPPool, drift: string[] = []): IPPoolOutputs {
  const ready = live.status?.conditions?.find((c) => c.type === 'Ready');
  return {
    ...inputs,
    total: live.status?.total ?? 0,
    available: live.status?.available ?? 0,
    allocated: { ...(live.status?.allocated ?? {}) },
    ready: ready?.status === 'True',
    message: ready?.status === 'True' ? '' : (ready?.message ?? 'not reconciled yet'),
    drift,
  };
}
