/**
 * ResourceQuota, as kube-apiserver's admission plugin and kube-controller-manager's quota controller enforce it
 * for the two kinds the simulated Harvester creates under a quota: pods and PersistentVolumeClaims
 * (k8s.io/kubernetes pkg/quota/v1/evaluator/core pods.go, persistent_volume_claims.go;
 * plugin/pkg/admission/resourcequota; design notes in docs/design/capacity.md §quota).
 *
 * - A pod's usage: `pods` and `count/pods` 1; `cpu`/`requests.cpu`, `memory`/`requests.memory`,
 *   `ephemeral-storage`/`requests.ephemeral-storage` from its effective requests (containers summed, init
 *   containers maxed); `limits.*` from its limits; `requests.<extended>` for extended resources. Pods that have
 *   finished count nothing. A PVC's usage: `persistentvolumeclaims`, `count/persistentvolumeclaims`,
 *   `requests.storage` (and `<class>.storageclass.storage.k8s.io/…` by its class).
 * - Admission (create): a quota tracking cpu or memory requires every container to state it (`failed quota:
 *   <quota>: must specify limits.cpu for: <containers>`); usage + the new object's usage must stay within
 *   `spec.hard` for every resource the object uses, else 403 Forbidden `<resource> "<name>" is forbidden:
 *   exceeded quota: <quota>, requested: <r>=<q>,…, used: …, limited: …` (only the exceeded resources, sorted).
 * - The controller keeps `status.hard` = spec.hard and `status.used` for every hard resource.
 * Quota scopes, priority-class selectors and the `status unknown for quota` refusal are not modelled.
 */
import { StatusError } from '../api/errors';
import { AdmissionHook, KindInfo, KubeObject, Store, StoreReader } from '../api/types';
import { Clock } from '../clock';
import { clone, field, writeChanges } from '../util/objects';
import { addAmounts, Amounts, amountOf, amountsOf, formatAmount } from '../util/resources';
import { HarvesterKinds } from './kinds';
import { podActive, podLimits, podRequests } from './launcher-pod';
import { Controller, ErrorSink, objectKey } from './runtime';

const STANDARD = new Set(['cpu', 'memory', 'ephemeral-storage', 'pods', 'storage']);

function prefixed(prefix: string, amounts: Amounts, names: string[]): Amounts {
  const out: Amounts = {};
  for (const n of names) if (amounts[n] !== undefined) out[`${prefix}${n}`] = amounts[n];
  return out;
}

/** What a pod counts against quotas. */
export function podQuotaUsage(pod: KubeObject): Amounts {
  if (!podActive(pod)) return {};
  const { pods: _count, ...requests } = podRequests(pod);
  const limits = podLimits(pod);
  const usage: Amounts = { pods: 1, 'count/pods': 1 };
  for (const r of ['cpu', 'memory', 'ephemeral-storage']) {
    if (requests[r] !== undefined) {
      usage[r] = requests[r];
      usage[`requests.${r}`] = requests[r];
    }
  }
  Object.assign(usage, prefixed('limits.', limits, ['cpu', 'memory', 'ephemeral-storage']));
  for (const [r, v] of Object.entries(requests)) if (!STANDARD.has(r) && r.includes('/')) usage[`requests.${r}`] = v;
  return usage;
}

/** What a PVC counts against quotas. */
export function pvcQuotaUsage(pvc: KubeObject): Amounts {
  const storage = amountOf('storage', field(pvc, 'spec', 'resources', 'requests', 'storage')) ?? 0;
  const usage: Amounts = { persistentvolumeclaims: 1, 'count/persistentvolumeclaims': 1, 'requests.storage': storage };
  const cls = field<string>(pvc, 'spec', 'storageClassName');
  if (cls) {
    usage[`${cls}.storageclass.storage.k8s.io/requests.storage`] = storage;
    usage[`${cls}.storageclass.storage.k8s.io/persistentvolumeclaims`] = 1;
  }
  return usage;
}

function usageOf(kinds: HarvesterKinds, kind: KindInfo, object: KubeObject): Amounts {
  return kind === kinds.pod ? podQuotaUsage(object) : pvcQuotaUsage(object);
}

/** The namespace's usage (active pods and PVCs), `except` one object. */
export function namespaceUsage(store: StoreReader, kinds: HarvesterKinds, namespace: string, except?: KubeObject): Amounts {
  const all = [
    ...store.listShared(kinds.pod, { namespace }).items.map((p) => (p.metadata.uid === except?.metadata.uid ? {} : podQuotaUsage(p))),
    ...store.listShared(kinds.pvc, { namespace }).items.map((p) => (p.metadata.uid === except?.metadata.uid ? {} : pvcQuotaUsage(p))),
  ];
  return addAmounts(...all);
}

function print(amounts: Amounts, names: string[]): string {
  return names.map((n) => `${n}=${formatAmount(n, amounts[n] ?? 0)}`).join(',');
}

function missingConstraints(pod: KubeObject, tracked: string[]): string | undefined {
  const missing = new Map<string, string[]>();
  const containers = [...(field<Record<string, unknown>[]>(pod, 'spec', 'containers') ?? []), ...(field<Record<string, unknown>[]>(pod, 'spec', 'initContainers') ?? [])];
  for (const r of tracked.filter((t) => ['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory'].includes(t))) {
    const [which, name] = r.startsWith('limits.') ? ['limits', r.slice(7)] : ['requests', r.replace('requests.', '')];
    for (const c of containers) {
      const requests = field<Record<string, unknown>>(c, 'resources', 'requests') ?? {};
      const limits = field<Record<string, unknown>>(c, 'resources', 'limits') ?? {};
      // An unset request defaults to the limit (pod defaulting), so either states a request.
      const stated = which === 'limits' ? limits[name] !== undefined : requests[name] !== undefined || limits[name] !== undefined;
      if (!stated) missing.set(r, [...(missing.get(r) ?? []), String(c.name)]);
    }
  }
  if (missing.size === 0) return undefined;
  return `must specify ${[...missing.keys()].sort().map((r) => `${r} for: ${[...new Set(missing.get(r))].sort().join(',')}`).join('; ')}`;
}

/** The admission check; throws the apiserver's 403. */
function admit(store: StoreReader, kinds: HarvesterKinds, kind: KindInfo, object: KubeObject): void {
  const namespace = String(object.metadata.namespace);
  const quotas = store.listShared(kinds.resourceQuota, { namespace }).items;
  if (quotas.length === 0) return;
  const delta = usageOf(kinds, kind, object);
  const name = object.metadata.name ?? object.metadata.generateName ?? 'Unknown';
  const forbid = (why: string) => new StatusError(403, 'Forbidden', `${kind.plural} "${name}" is forbidden: ${why}`, { name, kind: kind.plural });
  let used: Amounts | undefined;
  for (const quota of [...quotas].sort((a, b) => String(a.metadata.name).localeCompare(String(b.metadata.name)))) {
    const hard = amountsOf(field(quota, 'spec', 'hard'));
    const tracked = Object.keys(hard).filter((r) => delta[r] !== undefined || (kind === kinds.pod && ['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory'].includes(r)));
    if (kind === kinds.pod) {
      const missing = missingConstraints(object, tracked);
      if (missing) throw forbid(`failed quota: ${quota.metadata.name}: ${missing}`);
    }
    const requested = tracked.filter((r) => (delta[r] ?? 0) !== 0);
    if (requested.length === 0) continue;
    used ??= namespaceUsage(store, kinds, namespace, object);
    const exceeded = requested.filter((r) => (used![r] ?? 0) + delta[r] > hard[r]).sort();
    if (exceeded.length > 0) {
      const limited = exceeded.map((r) => `${r}=${String(field<Record<string, unknown>>(quota, 'spec', 'hard')?.[r])}`).join(',');
      throw forbid(`exceeded quota: ${quota.metadata.name}, requested: ${print(delta, exceeded)}, used: ${print(used, exceeded)}, limited: ${limited}`);
    }
  }
}

/** The ResourceQuota admission for pods and PVCs (creates only: the emulated objects never grow in place). */
export function resourceQuotaAdmission(kinds: HarvesterKinds): AdmissionHook {
  return {
    name: 'ResourceQuota',
    resources: ['pods', 'persistentvolumeclaims'],
    validate: (req) => {
      if (req.operation !== 'CREATE' || !req.object || req.subresource) return;
      admit(req.store, kinds, req.kind, req.object);
    },
  };
}

/** kube-controller-manager's quota controller: status.hard and status.used of every ResourceQuota. */
export function createResourceQuotaController(ctx: { store: Store; kinds: HarvesterKinds; clock: Clock; errors?: ErrorSink }): Controller {
  const { store, kinds } = ctx;
  const quotaKeys = (namespace: string | undefined) => store.listShared(kinds.resourceQuota, { namespace }).items.map(objectKey);
  function reconcile(key: string): void {
    const [namespace, name] = key.split('/');
    const quota = store.get(kinds.resourceQuota, namespace, name);
    if (!quota) return;
    const hardText = (field<Record<string, string>>(quota, 'spec', 'hard') ?? {}) as Record<string, string>;
    const usage = namespaceUsage(store, kinds, namespace);
    const used: Record<string, string> = {};
    for (const r of Object.keys(hardText)) used[r] = formatAmount(r, usage[r] ?? 0);
    const desired = clone(quota);
    desired.status = { hard: { ...hardText }, used };
    writeChanges(store, kinds.resourceQuota, quota, desired, { fieldManager: 'resourcequota-controller' });
  }
  const controller = new Controller({ name: 'resourcequota-controller', clock: ctx.clock, errors: ctx.errors, reconcile });
  controller.watch(store, kinds.resourceQuota);
  controller.watch(store, kinds.pod, (pod) => quotaKeys(pod.metadata.namespace));
  controller.watch(store, kinds.pvc, (pvc) => quotaKeys(pvc.metadata.namespace));
  return controller;
}
