/**
 * Pure rules for turning a write body into the object to store (docs/design/kube-api.md §11): which fields the
 * server owns, the status-subresource split, generation, metadata normalisation, and no-op detection.
 */
import { JsonObject, clone, copyJson, deepEqual, isPlainObject } from './store-json';
import { KindInfo, KubeObject, ManagedFieldsEntry } from './types';

/** Drop empty lists/maps the apiserver would omit (Go `omitempty`), so `finalizers: []` equals no finalizers. */
export function normalizeMeta(obj: KubeObject): void {
  const m = obj.metadata;
  for (const k of ['finalizers', 'ownerReferences', 'managedFields'] as const) {
    if (Array.isArray(m[k]) && (m[k] as unknown[]).length === 0) delete m[k];
    if (m[k] === null) delete m[k];
  }
  for (const k of ['labels', 'annotations'] as const) {
    if (isPlainObject(m[k]) && Object.keys(m[k] as object).length === 0) delete m[k];
    if (m[k] === null) delete m[k];
  }
  if (m.generateName === '' || m.generateName === null) delete m.generateName;
}

/**
 * The object an update stores, before generation and admission: `body` for the main resource (keeping the
 * stored `.status` when the kind has a status subresource), or the stored object with only `.status` taken
 * from `body` for a `/status` write. Server-owned metadata always comes from `old`; `managedFields` from
 * `managedFields` when given (server-side apply), else from `old`.
 */
export function prepareUpdate(
  kind: KindInfo,
  old: KubeObject,
  body: KubeObject,
  subresource: 'status' | 'finalize' | undefined,
  managedFields?: ManagedFieldsEntry[],
): KubeObject {
  let next: KubeObject;
  if (subresource === 'status') {
    next = copyJson(old);
    if (body.status !== undefined) next.status = clone(body.status);
    else delete next.status;
  } else {
    next = body;
    if (kind.statusSubresource) {
      if (old.status !== undefined) next.status = clone(old.status);
      else delete next.status;
    }
  }
  const m = next.metadata;
  const o = old.metadata;
  m.name = o.name;
  if (o.namespace !== undefined) m.namespace = o.namespace;
  else delete m.namespace;
  m.uid = o.uid;
  m.creationTimestamp = o.creationTimestamp;
  m.resourceVersion = o.resourceVersion;
  for (const k of ['generation', 'deletionTimestamp', 'deletionGracePeriodSeconds'] as const) {
    if (o[k] !== undefined) (m as Record<string, unknown>)[k] = o[k];
    else delete m[k];
  }
  const mf = managedFields ?? o.managedFields;
  if (mf !== undefined && mf.length > 0) m.managedFields = clone(mf);
  else delete m.managedFields;
  normalizeMeta(next);
  return next;
}

function withoutMeta(obj: KubeObject, excludeStatus: boolean): JsonObject {
  const rest: JsonObject = { ...obj };
  delete rest.metadata;
  delete rest.apiVersion;
  delete rest.kind;
  if (excludeStatus) delete rest.status;
  return rest;
}

/**
 * Whether a write bumps metadata.generation: kinds with generation bump on any change outside metadata,
 * except `.status` when the kind has a status subresource.
 */
export function bumpsGeneration(kind: KindInfo, old: KubeObject, next: KubeObject): boolean {
  if (!kind.hasGeneration) return false;
  return !deepEqual(withoutMeta(old, kind.statusSubresource), withoutMeta(next, kind.statusSubresource));
}

function timeless(obj: KubeObject): KubeObject {
  const mf = obj.metadata.managedFields;
  if (!mf) return obj;
  return { ...obj, metadata: { ...obj.metadata, managedFields: mf.map((e) => ({ ...e, time: '' })) } };
}

/** A write that changes nothing (ignoring managedFields timestamps) stores nothing and emits nothing. */
export function isNoop(old: KubeObject, next: KubeObject): boolean {
  return deepEqual(timeless(old), timeless(next));
}

/**
 * Finalizers after a delete request (the generic registry's deletionFinalizersForGarbageCollection):
 * Orphan adds `orphan`, Foreground adds `foregroundDeletion` (each removes the other), Background removes
 * both, and no policy keeps whatever the object has.
 */
export function finalizersForDelete(existing: KubeObject, policy: 'Foreground' | 'Background' | 'Orphan' | undefined): string[] {
  let fins = [...(existing.metadata.finalizers ?? [])];
  const without = (f: string): void => {
    fins = fins.filter((x) => x !== f);
  };
  const add = (f: string): void => {
    if (!fins.includes(f)) fins.push(f);
  };
  if (policy === 'Orphan') {
    add('orphan');
    without('foregroundDeletion');
  } else if (policy === 'Foreground') {
    add('foregroundDeletion');
    without('orphan');
  } else if (policy === 'Background') {
    without('orphan');
    without('foregroundDeletion');
  }
  return fins;
}

/** Same strings in the same order. */
export function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
