/**
 * A small kind registry for the store's unit tests (the real one lives in emulator/kinds and is not used
 * here): a Harvester-like CRD without status subresource, a cluster-scoped CRD, a KubeVirt-like CRD with
 * one, core Namespace, and core Service (unconditional update, strategic merge by port).
 */
import { ManualClock } from '../../../../emulator/clock';
import { ObjectStore, ObjectStoreOptions } from '../../../../emulator/api/store';
import { KindInfo, KindRegistry, KubeObject, ObjectValidator, ValidationCause, apiVersionOf } from '../../../../emulator/api/types';

function kind(k: Partial<KindInfo> & Pick<KindInfo, 'group' | 'version' | 'kind' | 'plural'>): KindInfo {
  return {
    listKind: `${k.kind}List`,
    singular: k.kind.toLowerCase(),
    shortNames: [],
    namespaced: true,
    statusSubresource: false,
    hasGeneration: true,
    builtIn: false,
    allowUnconditionalUpdate: false,
    schema: {},
    ...k,
  };
}

/** CRD without status subresource (like loadbalancers.loadbalancer.harvesterhci.io). */
export const lbKind = kind({ group: 'loadbalancer.harvesterhci.io', version: 'v1beta1', kind: 'LoadBalancer', plural: 'loadbalancers' });

/** Cluster-scoped CRD without status subresource. */
export const poolKind = kind({ group: 'loadbalancer.harvesterhci.io', version: 'v1beta1', kind: 'IPPool', plural: 'ippools', namespaced: false });

/** KubeVirt-like CRD with a status subresource. */
export const vmKind = kind({ group: 'kubevirt.io', version: 'v1', kind: 'VirtualMachine', plural: 'virtualmachines', statusSubresource: true });

/** KubeVirt-like dependent kind (VMI) with a status subresource. */
export const vmiKind = kind({ group: 'kubevirt.io', version: 'v1', kind: 'VirtualMachineInstance', plural: 'virtualmachineinstances', statusSubresource: true });

/** Core Namespace. */
export const nsKind = kind({
  group: '',
  version: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  namespaced: false,
  statusSubresource: true,
  hasGeneration: false,
  builtIn: true,
  allowUnconditionalUpdate: true,
});

/** Core Service: unconditional update, status subresource, ports merged by port. */
export const svcKind = kind({
  group: '',
  version: 'v1',
  kind: 'Service',
  plural: 'services',
  statusSubresource: true,
  hasGeneration: false,
  builtIn: true,
  allowUnconditionalUpdate: true,
  smpMergeKeys: { 'spec.ports': 'port' },
});

/** Registry over the kinds above. */
export class TestRegistry implements KindRegistry {
  constructor(private readonly kinds: KindInfo[] = [lbKind, poolKind, vmKind, vmiKind, nsKind, svcKind]) {}
  all(): KindInfo[] {
    return this.kinds;
  }
  byKind(apiVersion: string, k: string): KindInfo | undefined {
    return this.kinds.find((x) => apiVersionOf(x) === apiVersion && x.kind === k);
  }
  byResource(group: string, version: string, plural: string): KindInfo | undefined {
    return this.kinds.find((x) => x.group === group && x.version === version && x.plural === plural);
  }
}

/**
 * A tiny schema validator for LoadBalancer: spec.ipam must be pool|dhcp, known spec fields are ipam,
 * ipPool, workloadType, listeners; anything else in spec is an unknown field (pruned).
 */
export const lbValidator: ObjectValidator = (k, object) => {
  const copy = JSON.parse(JSON.stringify(object)) as KubeObject;
  const causes: ValidationCause[] = [];
  const unknownFields: string[] = [];
  if (k.kind === 'LoadBalancer' && copy.spec && typeof copy.spec === 'object') {
    const spec = copy.spec as Record<string, unknown>;
    for (const key of Object.keys(spec)) {
      if (!['ipam', 'ipPool', 'workloadType', 'listeners'].includes(key)) {
        unknownFields.push(`spec.${key}`);
        delete spec[key];
      }
    }
    if (spec.ipam !== undefined && spec.ipam !== 'pool' && spec.ipam !== 'dhcp') {
      causes.push({
        reason: 'FieldValueNotSupported',
        field: 'spec.ipam',
        message: `Unsupported value: ${JSON.stringify(spec.ipam)}: supported values: "pool", "dhcp"`,
      });
    }
  }
  return { object: copy, causes, unknownFields };
};

/** A store on a ManualClock with namespace `default` created; errors from callbacks are collected. */
export function newStore(options: ObjectStoreOptions = {}): { store: ObjectStore; clock: ManualClock; errors: unknown[] } {
  const clock = new ManualClock();
  const errors: unknown[] = [];
  const store = new ObjectStore(new TestRegistry(), clock, { onCallbackError: (e) => errors.push(e), ...options });
  store.create(nsKind, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  return { store, clock, errors };
}

/** A LoadBalancer body. */
export function lb(name: string, spec: Record<string, unknown> = { ipam: 'dhcp' }, meta: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'LoadBalancer', metadata: { name, namespace: 'default', ...meta }, spec };
}

/** A VirtualMachine body. */
export function vm(name: string, spec: Record<string, unknown> = { running: false }, meta: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine', metadata: { name, namespace: 'default', ...meta }, spec };
}

/** A Service body. */
export function svc(name: string, spec: Record<string, unknown> = { ports: [{ port: 80 }] }, meta: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default', ...meta }, spec };
}

/** Assert that `fn` throws a StatusError with this code (and reason, when given); returns the error. */
export function expectStatus(fn: () => unknown, code: number, reason?: string): { code: number; status: Record<string, any>; message: string } {
  try {
    fn();
  } catch (err) {
    const e = err as { code?: number; status?: Record<string, any>; message: string };
    if (e.code !== code || (reason !== undefined && e.status?.reason !== reason)) {
      throw new Error(`expected ${code} ${reason ?? ''}, got ${e.code} ${e.status?.reason}: ${e.message}`);
    }
    return e as { code: number; status: Record<string, any>; message: string };
  }
  throw new Error(`expected a ${code} error, but the call succeeded`);
}
