/**
 * The garbage collector and namespace cleanup, run as follow-up work on the store's delivery queue (so a
 * DELETE answers first, as with the real controllers, and `store.settle()` waits for the cascade).
 *
 * 1. Owner gone (Background): each dependent (ownerReferences[].uid = owner) that still has another existing
 *    owner only loses the dangling reference; otherwise it is deleted.
 * 2. Foreground: an owner marked for deletion with the `foregroundDeletion` finalizer has its dependents
 *    deleted first (dependents with their own dependents in foreground too); once no dependent with
 *    `blockOwnerDeletion: true` remains, the finalizer is removed and the owner goes.
 * 3. Orphan: an owner with the `orphan` finalizer has its uid removed from every dependent's
 *    ownerReferences, then loses the finalizer.
 * 4. Namespace: a Namespace marked for deletion (status.phase Terminating) has everything in it deleted; once
 *    empty, and once its metadata.finalizers are gone, it is removed.
 *
 * Every write goes through the public store API (admission included), as the real controllers' do. Failures
 * are reported through `onError` and leave the object as it is.
 */
import { StatusError } from './errors';
import { ObjectIndex } from './store-index';
import { isNamespaceKind } from './store-meta';
import { DeliveryQueue } from './store-watch';
import { KindInfo, KubeObject, Store } from './types';

/** The user the collector writes as (for admission hooks and messages). */
export const GC_USER = 'system:serviceaccount:kube-system:generic-garbage-collector';

/** What the collector needs from the store. */
export interface GarbageCollectorDeps {
  store: Store;
  index: ObjectIndex;
  queue: DeliveryQueue;
  /** Remove a Terminating namespace that is empty and has no finalizers left. */
  finalizeNamespace(name: string): void;
  /** Report a failed follow-up write. */
  onError(err: unknown): void;
}

function deleting(obj: KubeObject): boolean {
  return obj.metadata.deletionTimestamp !== undefined;
}

/** Reacts to the store's writes with the follow-up work above. */
export class GarbageCollector {
  private readonly pending = new Set<string>();

  constructor(private readonly deps: GarbageCollectorDeps) {}

  /** Called after every stored write (not removals). */
  afterWrite(kind: KindInfo, obj: KubeObject): void {
    if (!deleting(obj)) return;
    const fins = obj.metadata.finalizers ?? [];
    const uid = obj.metadata.uid!;
    if (fins.includes('foregroundDeletion')) this.schedule(`fg:${uid}`, () => this.foreground(uid));
    if (fins.includes('orphan')) this.schedule(`orphan:${uid}`, () => this.orphan(uid));
    if (isNamespaceKind(kind)) this.schedule(`ns:${obj.metadata.name}`, () => this.namespace(obj.metadata.name!));
  }

  /** Called after an object is finally removed. */
  afterRemove(kind: KindInfo, obj: KubeObject): void {
    const uid = obj.metadata.uid!;
    this.schedule(`gone:${uid}`, () => this.ownerGone(uid));
    for (const ref of obj.metadata.ownerReferences ?? []) {
      const owner = this.deps.index.getByUid(ref.uid);
      if (owner && deleting(owner.object) && (owner.object.metadata.finalizers ?? []).includes('foregroundDeletion')) {
        this.schedule(`fg:${ref.uid}`, () => this.foreground(ref.uid));
      }
    }
    const ns = obj.metadata.namespace;
    if (kind.namespaced && ns) this.schedule(`ns:${ns}`, () => this.namespace(ns));
  }

  private schedule(key: string, fn: () => void): void {
    if (this.pending.has(key)) return;
    this.pending.add(key);
    this.deps.queue.enqueue(() => {
      this.pending.delete(key);
      fn();
    });
  }

  /** Run one write, ignoring "already gone" and reporting anything else. */
  private attempt(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return;
      this.deps.onError(err);
    }
  }

  private deleteObject(kind: KindInfo, obj: KubeObject, policy?: 'Foreground' | 'Background'): void {
    this.attempt(() => {
      this.deps.store.delete(kind, obj.metadata.namespace, obj.metadata.name!, {
        propagationPolicy: policy,
        preconditions: { uid: obj.metadata.uid },
        user: GC_USER,
      });
    });
  }

  private rewrite(kind: KindInfo, obj: KubeObject, change: (copy: KubeObject) => void): void {
    this.attempt(() => {
      const copy = this.deps.store.get(kind, obj.metadata.namespace, obj.metadata.name!);
      if (!copy || copy.metadata.uid !== obj.metadata.uid) return;
      change(copy);
      this.deps.store.update(kind, copy, { user: GC_USER, fieldManager: 'garbage-collector' });
    });
  }

  private removeFinalizer(kind: KindInfo, obj: KubeObject, finalizer: string): void {
    this.rewrite(kind, obj, (copy) => {
      copy.metadata.finalizers = (copy.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    });
  }

  private dropOwner(kind: KindInfo, obj: KubeObject, uids: Set<string>): void {
    this.rewrite(kind, obj, (copy) => {
      copy.metadata.ownerReferences = (copy.metadata.ownerReferences ?? []).filter((r) => !uids.has(r.uid));
    });
  }

  private ownerGone(uid: string): void {
    const { index } = this.deps;
    if (index.getByUid(uid)) return;
    for (const d of index.dependentsOf(uid)) {
      const refs = d.object.metadata.ownerReferences ?? [];
      const solid = refs.filter((r) => r.uid !== uid && index.getByUid(r.uid));
      if (solid.length > 0) {
        const dangling = new Set(refs.filter((r) => !index.getByUid(r.uid)).map((r) => r.uid));
        this.dropOwner(d.kind, d.object, dangling);
      } else if (!deleting(d.object)) {
        this.deleteObject(d.kind, d.object);
      }
    }
  }

  private foreground(uid: string): void {
    const { index } = this.deps;
    const owner = index.getByUid(uid);
    if (!owner || !deleting(owner.object) || !(owner.object.metadata.finalizers ?? []).includes('foregroundDeletion')) return;
    for (const d of index.dependentsOf(uid)) {
      if (deleting(d.object)) continue;
      const hasOwn = index.dependentsOf(d.object.metadata.uid!).length > 0;
      this.deleteObject(d.kind, d.object, hasOwn ? 'Foreground' : undefined);
    }
    const blocking = index
      .dependentsOf(uid)
      .filter((d) => (d.object.metadata.ownerReferences ?? []).some((r) => r.uid === uid && r.blockOwnerDeletion === true));
    if (blocking.length === 0) {
      const current = index.getByUid(uid);
      if (current) this.removeFinalizer(current.kind, current.object, 'foregroundDeletion');
    }
  }

  private orphan(uid: string): void {
    const { index } = this.deps;
    const owner = index.getByUid(uid);
    if (!owner || !deleting(owner.object) || !(owner.object.metadata.finalizers ?? []).includes('orphan')) return;
    for (const d of index.dependentsOf(uid)) this.dropOwner(d.kind, d.object, new Set([uid]));
    const current = index.getByUid(uid);
    if (current) this.removeFinalizer(current.kind, current.object, 'orphan');
  }

  private namespace(name: string): void {
    const { index } = this.deps;
    const content = index.inNamespace(name);
    if (content.length > 0) {
      // Only clean up when the namespace itself is being deleted.
      const nsKind = [...index.kinds.values()].find((k) => isNamespaceKind(k));
      const ns = nsKind && this.deps.store.get(nsKind, undefined, name);
      if (!ns || !deleting(ns)) return;
      for (const c of content) if (!deleting(c.object)) this.deleteObject(c.kind, c.object);
    }
    if (index.inNamespace(name).length === 0) this.deps.finalizeNamespace(name);
  }
}
