/**
 * The store's in-memory tables: objects per kind keyed by namespace+name, with a cached sorted key list for
 * lists and continue tokens, plus two indexes the garbage collector needs (uid → object, owner uid →
 * dependents), and per kind a label index for label-selected lists. Stored objects are frozen; replacing one
 * swaps the reference.
 */
import { KindInfo, KubeObject } from './types';

/** The storage key of a kind: `group/plural` (versions of one resource share storage). */
export function kindKeyOf(kind: Pick<KindInfo, 'group' | 'plural'>): string {
  return `${kind.group}/${kind.plural}`;
}

/** The key of an object inside its kind: namespace NUL name, which sorts by namespace then name. */
export function objectKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}\u0000${name}`;
}

/** Split an object key back into namespace ('' for cluster-scoped) and name. */
export function splitObjectKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf('\u0000');
  return { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

/** A reference from one of the indexes to a stored object. */
export interface ObjectRef {
  kindKey: string;
  key: string;
}

function byKey(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Objects of one kind, with a label index (key → value → object keys) for label-selected lists. */
export class KindTable {
  readonly objects = new Map<string, KubeObject>();
  private sorted: string[] | undefined;
  private readonly byLabel = new Map<string, Map<string, Set<string>>>();

  /** Keys in (namespace, name) order; cached until the key set changes. */
  sortedKeys(): string[] {
    if (!this.sorted) this.sorted = [...this.objects.keys()].sort(byKey);
    return this.sorted;
  }

  /**
   * Keys, in (namespace, name) order, of the objects whose label `label` has one of `values`: a superset
   * of what a selector requiring that label selects (the caller still matches the whole selector).
   */
  keysWithLabel(label: string, values: readonly string[]): string[] {
    const byValue = this.byLabel.get(label);
    if (!byValue) return [];
    const keys: string[] = [];
    for (const v of new Set(values)) for (const k of byValue.get(v) ?? []) keys.push(k);
    return keys.sort(byKey);
  }

  /** How many objects carry label `label` with one of `values` (to pick the narrowest requirement). */
  countWithLabel(label: string, values: readonly string[]): number {
    const byValue = this.byLabel.get(label);
    let n = 0;
    for (const v of new Set(values)) n += byValue?.get(v)?.size ?? 0;
    return n;
  }

  set(key: string, obj: KubeObject): void {
    const old = this.objects.get(key);
    if (!old) this.sorted = undefined;
    else this.indexLabels(key, old, false);
    this.objects.set(key, obj);
    this.indexLabels(key, obj, true);
  }

  delete(key: string): void {
    const old = this.objects.get(key);
    if (!old) return;
    this.indexLabels(key, old, false);
    this.objects.delete(key);
    this.sorted = undefined;
  }

  private indexLabels(key: string, obj: KubeObject, add: boolean): void {
    for (const [label, value] of Object.entries(obj.metadata.labels ?? {})) {
      let byValue = this.byLabel.get(label);
      if (add) {
        if (!byValue) this.byLabel.set(label, (byValue = new Map()));
        let keys = byValue.get(value);
        if (!keys) byValue.set(value, (keys = new Set()));
        keys.add(key);
      } else if (byValue) {
        const keys = byValue.get(value);
        keys?.delete(key);
        if (keys?.size === 0) byValue.delete(value);
        if (byValue.size === 0) this.byLabel.delete(label);
      }
    }
  }
}

/** All tables and indexes. */
export class ObjectIndex {
  private readonly tables = new Map<string, KindTable>();
  /** Every kind seen by a write, so the GC and namespace cleanup can reach objects of any kind. */
  readonly kinds = new Map<string, KindInfo>();
  private readonly byUid = new Map<string, ObjectRef>();
  private readonly dependents = new Map<string, Set<string>>();

  /** The table of a kind (created empty on first use). */
  table(kindKey: string): KindTable {
    let t = this.tables.get(kindKey);
    if (!t) {
      t = new KindTable();
      this.tables.set(kindKey, t);
    }
    return t;
  }

  get(kindKey: string, key: string): KubeObject | undefined {
    return this.tables.get(kindKey)?.objects.get(key);
  }

  /** Store or replace an object, keeping the uid and owner indexes in step. */
  put(kind: KindInfo, obj: KubeObject): void {
    const kindKey = kindKeyOf(kind);
    this.kinds.set(kindKey, kind);
    const key = objectKey(obj.metadata.namespace, obj.metadata.name!);
    const old = this.get(kindKey, key);
    if (old) this.unindex(kindKey, key, old);
    this.table(kindKey).set(key, obj);
    const ref = `${kindKey}\u0001${key}`;
    if (obj.metadata.uid) this.byUid.set(obj.metadata.uid, { kindKey, key });
    for (const o of obj.metadata.ownerReferences ?? []) {
      let set = this.dependents.get(o.uid);
      if (!set) this.dependents.set(o.uid, (set = new Set()));
      set.add(ref);
    }
  }

  /** Remove an object (no-op when absent). */
  remove(kindKey: string, key: string): void {
    const old = this.get(kindKey, key);
    if (!old) return;
    this.unindex(kindKey, key, old);
    this.tables.get(kindKey)!.delete(key);
  }

  private unindex(kindKey: string, key: string, obj: KubeObject): void {
    const ref = `${kindKey}\u0001${key}`;
    if (obj.metadata.uid) this.byUid.delete(obj.metadata.uid);
    for (const o of obj.metadata.ownerReferences ?? []) {
      const set = this.dependents.get(o.uid);
      set?.delete(ref);
      if (set && set.size === 0) this.dependents.delete(o.uid);
    }
  }

  /** The object with this uid, if stored. */
  getByUid(uid: string): { kind: KindInfo; object: KubeObject } | undefined {
    const ref = this.byUid.get(uid);
    if (!ref) return undefined;
    const object = this.get(ref.kindKey, ref.key);
    return object ? { kind: this.kinds.get(ref.kindKey)!, object } : undefined;
  }

  /** Objects whose ownerReferences name `uid`. */
  dependentsOf(uid: string): { kind: KindInfo; object: KubeObject }[] {
    const out: { kind: KindInfo; object: KubeObject }[] = [];
    for (const ref of this.dependents.get(uid) ?? []) {
      const i = ref.indexOf('\u0001');
      const kindKey = ref.slice(0, i);
      const object = this.get(kindKey, ref.slice(i + 1));
      if (object) out.push({ kind: this.kinds.get(kindKey)!, object });
    }
    return out;
  }

  /** Every stored object in a namespace, across kinds. */
  inNamespace(namespace: string): { kind: KindInfo; object: KubeObject }[] {
    const out: { kind: KindInfo; object: KubeObject }[] = [];
    for (const [kindKey, kind] of this.kinds) {
      if (!kind.namespaced) continue;
      for (const object of this.table(kindKey).objects.values()) {
        if (object.metadata.namespace === namespace) out.push({ kind, object });
      }
    }
    return out;
  }
}
