/**
 * Drift helpers in the style of pulumi-kubernetes `pruneLiveState`: the live object is trimmed to the
 * shape of what we sent, so fields the server adds (defaults, mutating webhooks, controllers) never show
 * as drift, while out-of-band edits to fields we own do. Then `diffPaths` lists what still differs.
 */

/** One difference between desired and (pruned) live state. */
export interface PathDifference {
  /** Dotted path with list indexes, e.g. `spec.template.spec.domain.cpu.cores`. */
  path: string;
  desired: unknown;
  live: unknown;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * pruneLive returns a copy of `live` keeping only the keys that exist in `shape`, recursively. Lists are
 * pruned element by element against the element at the same position (extra live elements are kept, so
 * an added element still differs). Where the types differ, the live value is kept as is.
 */
export function pruneLive(live: unknown, shape: unknown): unknown {
  if (isPlainObject(shape) && isPlainObject(live)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(shape)) {
      if (key in live) out[key] = pruneLive(live[key], shape[key]);
    }
    return out;
  }
  if (Array.isArray(shape) && Array.isArray(live)) {
    return live.map((item, i) => (i < shape.length ? pruneLive(item, shape[i]) : item));
  }
  return live;
}

function join(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  // A key that is not a plain name (a label key such as `harvester-iac.io/pool-index`) is quoted.
  if (!/^[A-Za-z_$][\w$]*$/.test(key)) return `${base}[${JSON.stringify(key)}]`;
  return base ? `${base}.${key}` : key;
}

/**
 * diffPaths lists the leaf paths where `desired` and `live` differ (undefined and missing are the same).
 * Lists of different lengths differ as a whole at the list's path.
 */
export function diffPaths(desired: unknown, live: unknown, base = ''): PathDifference[] {
  if (isPlainObject(desired) && isPlainObject(live)) {
    const keys = Object.keys(desired);
    for (const k of Object.keys(live)) if (!Object.prototype.hasOwnProperty.call(desired, k)) keys.push(k);
    keys.sort();
    return keys.flatMap((k) => diffPaths(desired[k], live[k], join(base, k)));
  }
  if (Array.isArray(desired) && Array.isArray(live)) {
    if (desired.length !== live.length) return [{ path: base, desired, live }];
    return desired.flatMap((d, i) => diffPaths(d, live[i], join(base, i)));
  }
  if (desired === live) return [];
  if (desired === undefined || live === undefined) {
    // An empty object or list on one side and nothing on the other is not a difference.
    const other = desired === undefined ? live : desired;
    if (isPlainObject(other) && Object.keys(other).length === 0) return [];
    if (Array.isArray(other) && other.length === 0) return [];
  }
  return [{ path: base, desired, live }];
}
