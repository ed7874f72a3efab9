/**
 * Pure helpers on JSON objects: deep copy and equality, "is the desired object contained in the live one"
 * (server defaults add fields, so containment — not equality — is what "equivalent" means), and stripping
 * the fields a client must never send back (server-set metadata, `status`).
 */
import { KubeObject } from './objects';

/** metadata fields the server owns; a write never sends them (resourceVersion is set explicitly when wanted). */
export const SERVER_METADATA = ['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'managedFields', 'selfLink'] as const;

/** A deep copy of JSON data. */
export function clone<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/** Structural equality of JSON data (key order ignored). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => deepEqual(v, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  return ak.length === bk.length && ak.every((k) => deepEqual(ao[k], bo[k]));
}

/** Where `desired` is not contained in `live`: the path and both values. */
export interface Difference {
  path: string;
  desired: unknown;
  live: unknown;
}

/**
 * The first place where `desired` is not contained in `live`, or undefined. Objects: every key of desired
 * must be contained in live's value (live may have more keys). Arrays: each element contained in live's
 * element at the same position; live may be longer, because mutating webhooks append (Harvester ANDs its
 * cluster-network expression into every node selector term of a VM). Scalars: equal.
 */
export function firstDifference(desired: unknown, live: unknown, path = ''): Difference | undefined {
  if (desired === undefined) return undefined;
  if (desired !== null && typeof desired === 'object') {
    if (Array.isArray(desired)) {
      if (!Array.isArray(live) || live.length < desired.length) return { path: path || '.', desired, live };
      for (let i = 0; i < desired.length; i++) {
        const d = firstDifference(desired[i], live[i], `${path}[${i}]`);
        if (d) return d;
      }
      return undefined;
    }
    if (live === null || typeof live !== 'object' || Array.isArray(live)) return { path: path || '.', desired, live };
    for (const [k, v] of Object.entries(desired as Record<string, unknown>)) {
      const d = firstDifference(v, (live as Record<string, unknown>)[k], path ? `${path}.${k}` : k);
      if (d) return d;
    }
    return undefined;
  }
  return desired === live ? undefined : { path: path || '.', desired, live };
}

/** A copy of `obj` fit to send as a create or apply body: no status, no server-set metadata. */
export function writableCopy<T extends KubeObject>(obj: T): T {
  const copy = clone(obj);
  delete (copy as Record<string, unknown>).status;
  copy.metadata = { ...(copy.metadata ?? {}) };
  for (const f of SERVER_METADATA) delete copy.metadata[f];
  return copy;
}

/** The part of a create body that must match a live object for the two to count as the same object. */
export function comparable(obj: KubeObject): Record<string, unknown> {
  const copy = writableCopy(obj) as Record<string, unknown>;
  const meta = obj.metadata ?? {};
  copy.metadata = { name: meta.name, namespace: meta.namespace, labels: meta.labels, annotations: meta.annotations };
  delete copy.apiVersion; // the server may answer in another served version
  return copy;
}

/** Short, single-line rendering of a value for an error message. */
export function show(value: unknown): string {
  const s = value === undefined ? 'unset' : JSON.stringify(value);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}
