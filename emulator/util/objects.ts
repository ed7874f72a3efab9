/**
 * Small helpers the simulated controllers share: copying, comparing, conditions, and "write only what
 * changed" through the store (spec/metadata through the main resource, status through /status where the kind
 * has that subresource), so no-op reconciles never produce watch events.
 */
import { StatusError } from '../api/errors';
import { copyJson, deepEqual, rfc3339 } from '../api/store-json';
import { KindInfo, KubeObject, Store, WriteOptions } from '../api/types';
import { LABEL_HOSTNAME } from './names';

/** Structural equality of JSON values (absent and `undefined` keys alike, as after a store round trip). */
export { deepEqual };

/** A deep copy (objects from the store are plain JSON); never frozen, even when the source is. */
export function clone<T>(value: T): T {
  return copyJson(value);
}

/** `true` once the object carries a deletionTimestamp. */
export function isDeleting(object: KubeObject): boolean {
  return Boolean(object.metadata.deletionTimestamp);
}

/** The object's labels (never undefined; a live view when `create` is set). */
export function labelsOf(object: KubeObject, create = false): Record<string, string> {
  if (!object.metadata.labels && create) object.metadata.labels = {};
  return object.metadata.labels ?? {};
}

/** The object's annotations (never undefined; a live view when `create` is set). */
export function annotationsOf(object: KubeObject, create = false): Record<string, string> {
  if (!object.metadata.annotations && create) object.metadata.annotations = {};
  return object.metadata.annotations ?? {};
}

/** Reads a nested field by path segments; undefined when any step is missing. */
export function field<T = unknown>(object: unknown, ...path: (string | number)[]): T | undefined {
  let current: unknown = object;
  for (const step of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[step];
  }
  return current as T | undefined;
}

/** The object's `status` as a mutable record (created when missing). */
export function statusOf(object: KubeObject): Record<string, unknown> {
  if (!object.status || typeof object.status !== 'object') object.status = {};
  return object.status as Record<string, unknown>;
}

/** KubeVirt-style phase change: `status.phase` plus an entry in `status.phaseTransitionTimestamps`. */
export function enterPhase<T extends KubeObject>(object: T, phase: string, now: string): T {
  const status = statusOf(object);
  status.phase = phase;
  const stamps = (status.phaseTransitionTimestamps as Record<string, unknown>[] | undefined) ?? [];
  status.phaseTransitionTimestamps = [...stamps, { phase, phaseTransitionTimestamp: now }];
  return object;
}

/** The object's `spec` as a record ({} when missing; attached, i.e. a live view, when `create` is set). */
export function specOf(object: KubeObject, create = false): Record<string, unknown> {
  if ((!object.spec || typeof object.spec !== 'object') && create) object.spec = {};
  return (object.spec && typeof object.spec === 'object' ? object.spec : {}) as Record<string, unknown>;
}

export function hasFinalizer(object: KubeObject, finalizer: string): boolean {
  return (object.metadata.finalizers ?? []).includes(finalizer);
}

export function addFinalizer(object: KubeObject, finalizer: string): void {
  const list = object.metadata.finalizers ?? [];
  if (!list.includes(finalizer)) object.metadata.finalizers = [...list, finalizer];
}

export function removeFinalizer(object: KubeObject, finalizer: string): void {
  const list = object.metadata.finalizers ?? [];
  if (list.includes(finalizer)) object.metadata.finalizers = list.filter((f) => f !== finalizer);
}

/** A status condition as both KubeVirt and wrangler-style CRDs carry it. */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastUpdateTime?: string;
  lastProbeTime?: string;
}

/**
 * Sets (or adds) condition `type` in `conditions`. `lastTransitionTime` only moves when the status flips;
 * with `stampUpdate` (wrangler's genericcondition style) `lastUpdateTime` moves whenever anything changes.
 * Returns the new list; the input is not modified.
 */
export function setCondition(
  conditions: Condition[] | undefined,
  next: Pick<Condition, 'type' | 'status' | 'reason' | 'message'>,
  now: string,
  style: { stampUpdate?: boolean; stampTransition?: boolean } = { stampTransition: true },
): Condition[] {
  const list = (conditions ?? []).map((c) => ({ ...c }));
  const index = list.findIndex((c) => c.type === next.type);
  const previous = index >= 0 ? list[index] : undefined;
  const merged: Condition = { ...(previous ?? {}), type: next.type, status: next.status };
  if (next.reason) merged.reason = next.reason;
  else delete merged.reason;
  if (next.message) merged.message = next.message;
  else delete merged.message;
  const changed = !previous || !deepEqual({ ...previous }, merged);
  if (style.stampTransition && (!previous || previous.status !== next.status || !previous.lastTransitionTime)) {
    merged.lastTransitionTime = now;
  }
  if (style.stampUpdate && changed) merged.lastUpdateTime = now;
  if (index >= 0) list[index] = merged;
  else list.push(merged);
  return list;
}

/** Removes condition `type`; returns the new list. */
export function dropCondition(conditions: Condition[] | undefined, type: string): Condition[] {
  return (conditions ?? []).filter((c) => c.type !== type);
}

/** Finds a condition by type. */
export function findCondition(object: KubeObject, type: string): Condition | undefined {
  const list = field<Condition[]>(object, 'status', 'conditions');
  return Array.isArray(list) ? list.find((c) => c.type === type) : undefined;
}

function withoutStatus(object: KubeObject): KubeObject {
  const { status: _status, ...rest } = object;
  const metadata = { ...rest.metadata };
  delete metadata.resourceVersion;
  delete metadata.managedFields;
  delete metadata.generation;
  return { ...rest, metadata } as KubeObject;
}

/**
 * Writes `desired` (a modified copy of `current`) if and only if it differs. For kinds with a status
 * subresource, spec/metadata and status go in separate writes, as a real controller does. Returns the stored
 * object (or `current` when nothing changed). Throws the store's StatusError (409 on a stale read).
 */
export function writeChanges(
  store: Store,
  kind: KindInfo,
  current: KubeObject,
  desired: KubeObject,
  options: WriteOptions,
): KubeObject {
  let stored = current;
  const mainChanged = !deepEqual(withoutStatus(current), withoutStatus(desired));
  const statusChanged = !deepEqual(current.status ?? {}, desired.status ?? {});
  if (!mainChanged && !statusChanged) return current;
  if (!kind.statusSubresource) {
    const body = clone(desired);
    body.metadata.resourceVersion = current.metadata.resourceVersion;
    return store.update(kind, body, options);
  }
  if (mainChanged) {
    const body = clone(desired);
    body.metadata.resourceVersion = current.metadata.resourceVersion;
    stored = store.update(kind, body, options);
  }
  if (statusChanged) {
    const body = clone(stored);
    body.status = clone(desired.status);
    stored = store.update(kind, body, { ...options, subresource: 'status' });
  }
  return stored;
}

/** Deletes an object, treating "already gone" as success. */
export function deleteIfPresent(store: Store, kind: KindInfo, namespace: string | undefined, name: string): void {
  try {
    store.delete(kind, namespace, name, { propagationPolicy: 'Background' });
  } catch (err) {
    if (err instanceof StatusError && err.code === 404) return;
    throw err;
  }
}

/** The clock's time as an RFC 3339 timestamp with second precision, as Kubernetes prints it. */
export function timestamp(date: Date): string {
  return rfc3339(date);
}

/** The labels a kubelet puts on the Node it registers (host or guest; amd64 Linux). */
export function kubeletNodeLabels(name: string): Record<string, string> {
  return {
    'beta.kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    'kubernetes.io/os': 'linux',
    [LABEL_HOSTNAME]: name,
  };
}

/** The conditions a healthy kubelet reports on its Node (host or guest), stamped `now`. */
export function healthyNodeConditions(now: string): Record<string, string>[] {
  const condition = (type: string, status: string, reason: string) => ({ type, status, reason, lastHeartbeatTime: now, lastTransitionTime: now });
  return [
    condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory'),
    condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure'),
    condition('PIDPressure', 'False', 'KubeletHasSufficientPID'),
    condition('Ready', 'True', 'KubeletReady'),
  ];
}
