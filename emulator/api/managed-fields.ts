/**
 * Field ownership for server-side apply: sets of field paths and their `fieldsV1` form
 * (`{"f:spec":{"f:ipam":{}}}`), as exposed in `metadata.managedFields`.
 *
 * A path ends at a scalar, a list (lists are atomic), or an empty map; maps recurse, so labels and
 * annotations are owned key by key. A map a write added as a whole is a member too (`"."` in fieldsV1), as
 * structured-merge-diff's comparison records it. How managers gain and lose paths: field-manager.ts.
 */
import { JsonObject, isPlainObject } from './store-json';
import { ManagedFieldsEntry } from './types';

/** A field path as map keys from the object root. */
export type FieldPath = readonly string[];

/**
 * Fields no manager owns: identity and server-set metadata (structured-merge-diff's stripped set), so they
 * never conflict and are never removed by an apply.
 */
export const UNOWNED_FIELDS: readonly FieldPath[] = [
  ['apiVersion'],
  ['kind'],
  ['metadata', 'name'],
  ['metadata', 'namespace'],
  ['metadata', 'uid'],
  ['metadata', 'resourceVersion'],
  ['metadata', 'generation'],
  ['metadata', 'creationTimestamp'],
  ['metadata', 'deletionTimestamp'],
  ['metadata', 'deletionGracePeriodSeconds'],
  ['metadata', 'managedFields'],
  ['metadata', 'selfLink'],
];

/** True when `prefix` is `path` or one of its ancestors. */
export function isPrefix(prefix: FieldPath, path: FieldPath): boolean {
  if (prefix.length > path.length) return false;
  for (let i = 0; i < prefix.length; i++) if (prefix[i] !== path[i]) return false;
  return true;
}

/** Two paths overlap when one contains the other (setting either changes the other). */
export function overlaps(a: FieldPath, b: FieldPath): boolean {
  return isPrefix(a, b) || isPrefix(b, a);
}

/** How the apiserver prints a path in conflict messages: `.spec.ipam`, `.metadata.labels.app`. */
export function formatPath(path: FieldPath): string {
  return `.${path.join('.')}`;
}

/** A path's key in a FieldSet: its segments joined by U+0001, which sorts before any character a name holds. */
const keyOf = (path: FieldPath): string => path.join('\u0001');

/** A set of field paths. */
export class FieldSet {
  private readonly paths = new Map<string, FieldPath>();

  /** A set holding `paths`. */
  constructor(paths: Iterable<FieldPath> = []) {
    for (const p of paths) this.add(p);
  }

  /** Add one path. */
  add(path: FieldPath): void {
    this.paths.set(keyOf(path), [...path]);
  }

  /** Remove one path (exact match). */
  delete(path: FieldPath): void {
    this.paths.delete(keyOf(path));
  }

  /** Exact membership. */
  has(path: FieldPath): boolean {
    return this.paths.has(keyOf(path));
  }

  /** Whether some member overlaps `path` (equal, ancestor or descendant). */
  overlapping(path: FieldPath): FieldPath[] {
    return this.toArray().filter((p) => overlaps(p, path));
  }

  /** Members in insertion order. */
  toArray(): FieldPath[] {
    return [...this.paths.values()];
  }

  get size(): number {
    return this.paths.size;
  }

  /** A copy. */
  copy(): FieldSet {
    return new FieldSet(this.paths.values());
  }

  /** Members of this set or `other`: this very set when `other` adds nothing (sets are not changed in place). */
  union(other: FieldSet): FieldSet {
    if (other.size === 0) return this;
    if (this.size === 0) return other;
    let adds = false;
    for (const k of other.paths.keys()) if (!this.paths.has(k)) adds = true;
    if (!adds) return this;
    const out = this.copy();
    for (const p of other.paths.values()) out.add(p);
    return out;
  }

  /** Members of this set not in `other`: this very set when nothing is taken away. */
  difference(other: FieldSet): FieldSet {
    if (other.size === 0 || this.size === 0) return this;
    let takes = false;
    for (const k of other.paths.keys()) if (this.paths.has(k)) takes = true;
    if (!takes) return this;
    return new FieldSet([...this.paths.entries()].filter(([k]) => !other.paths.has(k)).map(([, p]) => p));
  }

  /** Members of both (a new set). */
  intersection(other: FieldSet): FieldSet {
    return new FieldSet([...this.paths.entries()].filter(([k]) => other.paths.has(k)).map(([, p]) => p));
  }

  /** Whether some member is `path` or lies under it. */
  hasAtOrBelow(path: FieldPath): boolean {
    for (const p of this.paths.values()) if (isPrefix(path, p)) return true;
    return false;
  }

  /** Members sorted element by element (structured-merge-diff's Set iteration order). */
  sorted(): FieldPath[] {
    return this.toArray().sort(comparePaths);
  }

  /** The leaf paths of a (decoded) object, leaving out `exclude` and everything under them. */
  static fromObject(obj: JsonObject, exclude: readonly FieldPath[] = UNOWNED_FIELDS): FieldSet {
    const set = new FieldSet();
    const walk = (value: unknown, path: string[]): void => {
      if (exclude.some((e) => isPrefix(e, path))) return;
      if (isPlainObject(value) && Object.keys(value).length > 0) {
        for (const [k, v] of Object.entries(value)) if (v !== undefined) walk(v, [...path, k]);
      } else if (path.length > 0) {
        set.add(path);
      }
    };
    walk(obj, []);
    return set;
  }

  /** Parse a `fieldsV1` tree. Keys other than `f:<name>` (list item keys, `.`) end the path at their parent. */
  static fromFieldsV1(tree: Record<string, unknown> | undefined): FieldSet {
    const set = new FieldSet();
    const walk = (node: unknown, path: string[]): void => {
      const entries = isPlainObject(node) ? Object.entries(node) : [];
      const fields = entries.filter(([k]) => k.startsWith('f:'));
      if (path.length > 0 && (fields.length === 0 || fields.length !== entries.length)) set.add(path);
      for (const [k, v] of fields) walk(v, [...path, k.slice(2)]);
    };
    walk(tree ?? {}, []);
    return set;
  }

  /** The `fieldsV1` tree of this set. */
  toFieldsV1(): Record<string, unknown> {
    const root: Record<string, unknown> = {};
    // Sorted keys order paths element by element, a parent before its children.
    const sorted = [...this.paths.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const members: Record<string, unknown>[] = [];
    for (const [, path] of sorted) {
      let node = root;
      for (const seg of path) {
        const key = `f:${seg}`;
        let child = node[key] as Record<string, unknown> | undefined;
        if (child === undefined) node[key] = child = {};
        node = child;
      }
      members.push(node);
    }
    // A member that is also an ancestor of another member is marked with "." as the apiserver does.
    for (const node of members) {
      if (Object.keys(node).length > 0 && !('.' in node)) {
        const children = { ...node };
        for (const k of Object.keys(node)) delete node[k];
        node['.'] = {};
        Object.assign(node, children);
      }
    }
    return root;
  }
}

/** Order paths element by element, a prefix first. */
export function comparePaths(a: FieldPath, b: FieldPath): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return a.length - b.length;
}

/** Identity of a managed-fields entry: manager, operation and subresource. */
export function sameEntry(e: ManagedFieldsEntry, manager: string, operation: 'Apply' | 'Update', subresource?: string): boolean {
  return e.manager === manager && e.operation === operation && (e.subresource ?? '') === (subresource ?? '');
}

/** Read the value at `path`, or undefined when any step is missing. */
export function valueAt(obj: unknown, path: FieldPath): unknown {
  let cur: unknown = obj;
  for (const seg of path) {
    if (!isPlainObject(cur)) return undefined;
    cur = cur[seg];
  }
  return cur;
}

/** Delete the value at `path` (mutates `obj`); returns whether something was removed. */
export function deleteAt(obj: JsonObject, path: FieldPath): boolean {
  let cur: unknown = obj;
  for (const seg of path.slice(0, -1)) {
    if (!isPlainObject(cur)) return false;
    cur = cur[seg];
  }
  const last = path[path.length - 1];
  if (!isPlainObject(cur) || !(last in cur)) return false;
  delete cur[last];
  return true;
}
