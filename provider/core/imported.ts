/**
 * Import (`pulumi import`, the `import` option, `Resource.get`) reads a resource by id alone: what the cluster
 * does not record (how long to wait, …) cannot be read back. Those inputs are left out of an import's state,
 * and a diff against such a state takes the program's value for them instead of calling it a change, so the
 * import of a matching program plans nothing (no `ignoreChanges` needed).
 */
import { stableStringify } from './hash';

/** Inputs no Harvester object records, common to every resource. */
export const NOT_ON_CLUSTER = ['timeouts'] as const;

/** `values` without the inputs the cluster does not record (an import's state). */
export function withoutUnrecorded<T extends Record<string, unknown>>(values: T, unrecorded: readonly string[] = NOT_ON_CLUSTER): T {
  return Object.fromEntries(Object.entries(values).filter(([k]) => !unrecorded.includes(k))) as T;
}

/**
 * The keys whose value differs between the recorded state and the new inputs; a key the cluster does not record
 * and the state lacks (an import) takes the new value and is no change.
 */
export function changedKeys<K extends string>(olds: Partial<Record<K, unknown>>, news: Partial<Record<K, unknown>>, keys: readonly K[], unrecorded: readonly string[] = NOT_ON_CLUSTER): K[] {
  return keys.filter((k) => !(unrecorded.includes(k) && olds[k] === undefined) && stableStringify(olds[k]) !== stableStringify(news[k]));
}
