/**
 * The emulator's object store: the in-memory equivalent of the apiserver's generic registry over etcd
 * (docs/design/kube-api.md §11–§13). Every write — HTTP or simulated controller — comes through here.
 *
 * - One global resourceVersion counter; every stored write bumps it and is logged (event-log.ts) for watch
 *   resume and consistent list paging.
 * - Writes: create / update (PUT) / patch (json, merge, strategic, apply) / delete share one pipeline:
 *   shape checks → server-owned fields → field manager (field-manager.ts, apply.ts) → mutating admission →
 *   strategy, metadata + schema validation → validating admission → no-op check → generation → store + event. `dryRun` runs it all and stores nothing.
 * - Watch events are delivered asynchronously in write order (see store-watch.ts for the guarantee);
 *   `settle()` waits until delivery and garbage collection have caught up.
 * - Objects passed in are never retained; objects returned are copies (getShared/listShared: the frozen
 *   stored objects themselves, for readers that do not mutate: the HTTP layer and hot controller reads).
 *
 * Watch bookmarks: `watch()` returns a StoreWatchHandle whose `bookmark()` queues a BOOKMARK with the
 * current resourceVersion (when the watch asked for bookmarks); the HTTP layer decides when to call it.
 */
import { randomUUID } from 'node:crypto';
import { Clock } from '../clock';
import { decodeApplyBody, fieldManagerRequired, forceNotAllowed, serverSideApply } from './apply';
import { alreadyExists, badRequest, conflict, deleteSuccess, methodNotAllowed, notFound, pathNotFound } from './errors';
import { EventLog, LoggedEvent } from './event-log';
import { GENERATE_NAME_ATTEMPTS, ObjectStoreOptions, START_RV, defaultOnError } from './store-options';
import { managedFieldsAfterUpdate, patchesManagedFields } from './field-manager';
import { NamespaceHost, checkNamespaceAccepts, finalizeNamespace } from './namespace-lifecycle';
import { IMMORTAL_NAMESPACES, defaultNamespace, immortalNamespace, namespaceFinalizers } from './namespace-strategy';
import { GarbageCollector } from './garbage-collector';
import { applyNonApplyPatch, checkPatchTypeAllowed } from './patch';
import { AdmissionChain, validateForStorage } from './store-admission';
import {
  assertTargetMatches,
  checkBodyType,
  checkNamespaceScope,
  preconditionFailed,
  resourceVersionOnCreate,
  resourceVersionRequired,
} from './store-checks';
import { ObjectIndex, kindKeyOf, objectKey } from './store-index';
import { clone, copyJson, deepFreeze, present, rfc3339 } from './store-json';
import { listTable } from './store-list';
import { shared } from './served-json';
import { generateName, isNamespaceKind, validateObjectMeta } from './store-meta';
import { bumpsGeneration, finalizersForDelete, isNoop, normalizeMeta, prepareUpdate, sameList } from './store-update';
import { DeliveryQueue, StoreWatchHandle, WatchHub, openWatch } from './store-watch';
import {
  AdmissionHook,
  DeleteOptions,
  KindInfo,
  KindRegistry,
  KubeObject,
  ListOptions,
  ListResult,
  ManagedFieldsEntry,
  PatchType,
  Store,
  WatchEvent,
  WatchOptions,
  WriteOptions,
  apiVersionOf,
} from './types';

export type { StoreWatchHandle } from './store-watch';
export type { ObjectStoreOptions } from './store-options';
export { assertTargetMatches } from './store-checks';

/** The in-memory apiserver registry; see the file comment for the semantics. */
export class ObjectStore implements Store {
  private rv = START_RV;
  private readonly log: EventLog;
  private readonly index = new ObjectIndex();
  private readonly queue: DeliveryQueue;
  private readonly hub: WatchHub;
  private readonly admission = new AdmissionChain();
  private readonly gc: GarbageCollector;
  private readonly random: () => number;
  /** The namespace lifecycle's view of this store (namespace-lifecycle.ts). */
  private readonly namespaces: NamespaceHost = {
    namespaceKind: () => this.registry.byKind('v1', 'Namespace'),
    storedNamespace: (name) => {
      const kind = this.registry.byKind('v1', 'Namespace');
      return kind && this.index.get(kindKeyOf(kind), objectKey(undefined, name));
    },
    contentCount: (name) => this.index.inNamespace(name).length,
    update: (kind, object, options) => this.update(kind, object, options),
    removeNow: (kind, stored) => void this.removeNow(kind, stored),
  };

  constructor(
    readonly registry: KindRegistry,
    private readonly clock: Clock,
    private readonly options: ObjectStoreOptions = {},
  ) {
    this.log = new EventLog(options.historySize ?? 10000, START_RV);
    this.random = options.random ?? Math.random;
    const onError = options.onCallbackError ?? defaultOnError;
    this.queue = new DeliveryQueue(onError);
    this.hub = new WatchHub(this.queue);
    this.gc = new GarbageCollector({
      store: this,
      index: this.index,
      queue: this.queue,
      finalizeNamespace: (name) => finalizeNamespace(this.namespaces, name),
      onError,
    });
  }

  /** The current global resourceVersion. */
  resourceVersion(): string {
    return String(this.rv);
  }

  /** Resolves once every queued watch event and garbage-collector step has run. */
  settle(): Promise<void> {
    return this.queue.settle();
  }

  /** Number of open watches (for leak checks in tests and the HTTP layer's status). */
  watcherCount(): number {
    return this.hub.size;
  }

  get(kind: KindInfo, namespace: string | undefined, name: string): KubeObject | undefined {
    const obj = this.index.get(kindKeyOf(kind), objectKey(kind.namespaced ? namespace : undefined, name));
    return obj ? present(kind, obj) : undefined;
  }

  list(kind: KindInfo, options: ListOptions = {}): ListResult {
    return this.listWith(kind, options, present);
  }

  /** get() without the copy: the frozen stored object (see served-json.ts); callers must not mutate it. */
  getShared(kind: KindInfo, namespace: string | undefined, name: string): KubeObject | undefined {
    const obj = this.index.get(kindKeyOf(kind), objectKey(kind.namespaced ? namespace : undefined, name));
    return obj ? shared(kind, obj) : undefined;
  }

  /** list() without the copies: frozen stored objects (see served-json.ts); callers must not mutate them. */
  listShared(kind: KindInfo, options: ListOptions = {}): ListResult {
    return this.listWith(kind, options, shared);
  }

  private listWith(kind: KindInfo, options: ListOptions, serve: (kind: KindInfo, obj: KubeObject) => KubeObject): ListResult {
    const kindKey = kindKeyOf(kind);
    const page = listTable(kind, kindKey, this.index.table(kindKey), this.log, this.rv, options);
    const result: ListResult = { items: page.items.map((o) => serve(kind, o)), resourceVersion: page.resourceVersion };
    if (page.continue !== undefined) result.continue = page.continue;
    if (page.remainingItemCount !== undefined) result.remainingItemCount = page.remainingItemCount;
    return result;
  }

  addAdmissionHook(hook: AdmissionHook): void {
    this.admission.add(hook);
  }

  compact(): void {
    this.log.compact(this.rv);
  }

  // ---------------------------------------------------------------- create

  create(kind: KindInfo, object: KubeObject, options: WriteOptions = {}): KubeObject {
    return this.createCore(kind, checkBodyType(kind, clone(object)), options);
  }

  private createCore(kind: KindInfo, obj: KubeObject, options: WriteOptions, managedFields?: ManagedFieldsEntry[]): KubeObject {
    const dryRun = options.dryRun === true;
    checkNamespaceScope(kind, obj);
    // Defaulting happens as the request is decoded, before the field manager sees it.
    if (isNamespaceKind(kind)) defaultNamespace(obj);
    const meta = obj.metadata;
    const clientRv = meta.resourceVersion;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    if (kind.statusSubresource) delete obj.status;
    // The field manager records the writer before admission and the strategy change the object (apply
    // computed its own entries already). Internal writes without a manager are not tracked.
    const requested = meta.managedFields;
    const tracked =
      managedFields ??
      (options.fieldManager !== undefined ? managedFieldsAfterUpdate({ kind, scope: undefined, next: obj, requested, manager: options.fieldManager, now: rfc3339(this.clock.now()) }) : undefined);
    if (tracked && tracked.length > 0) meta.managedFields = clone(tracked);
    else delete meta.managedFields;
    if (kind.hasGeneration) meta.generation = 1;
    else delete meta.generation;
    meta.uid = randomUUID();
    meta.creationTimestamp = rfc3339(this.clock.now());
    delete meta.resourceVersion;
    normalizeMeta(obj);

    const kindKey = kindKeyOf(kind);
    if (!meta.name && meta.generateName) {
      for (let i = 0; i < GENERATE_NAME_ATTEMPTS; i++) {
        meta.name = generateName(meta.generateName, this.random);
        if (!this.index.get(kindKey, objectKey(meta.namespace, meta.name))) break;
      }
    }

    if (kind.namespaced) checkNamespaceAccepts(this.namespaces, kind, meta.name ?? '', meta.namespace!);

    const req = { operation: 'CREATE' as const, kind, object: obj, dryRun, user: options.user };
    this.admission.mutate(req, this);
    const final = validateForStorage(kind, obj, validateObjectMeta(kind, obj), this.options.validate, options, { siblings: () => this.list(kind).items });
    this.admission.validate({ ...req, object: final }, this);

    if (this.index.get(kindKey, objectKey(final.metadata.namespace, final.metadata.name!))) {
      throw alreadyExists(kind, final.metadata.name!);
    }
    if (clientRv) throw resourceVersionOnCreate();
    if (dryRun) return present(kind, final);
    return present(kind, this.persist(kind, 'ADDED', final));
  }

  // ---------------------------------------------------------------- update

  update(kind: KindInfo, object: KubeObject, options: WriteOptions = {}): KubeObject {
    return this.updateCore(kind, checkBodyType(kind, clone(object)), options, 'put');
  }

  private updateCore(kind: KindInfo, body: KubeObject, options: WriteOptions, how: 'put' | 'patch', managedFields?: ManagedFieldsEntry[]): KubeObject {
    const sub = options.subresource;
    if (sub === 'status' && !kind.statusSubresource) throw pathNotFound();
    if (sub === 'finalize' && !isNamespaceKind(kind)) throw pathNotFound();
    if (isNamespaceKind(kind)) defaultNamespace(body);
    checkNamespaceScope(kind, body);
    const name = body.metadata.name;
    if (!name) throw badRequest(`the ${kind.kind} to update has no metadata.name; set it to the name of the object`);
    const existing = this.index.get(kindKeyOf(kind), objectKey(body.metadata.namespace, name));
    if (!existing) throw notFound(kind, name);

    const rv = body.metadata.resourceVersion;
    if (!rv) {
      if (how === 'put' && !kind.allowUnconditionalUpdate) throw resourceVersionRequired(kind, name);
    } else if (rv !== existing.metadata.resourceVersion) {
      throw conflict(kind, name);
    }
    const uid = body.metadata.uid;
    if (uid && uid !== existing.metadata.uid) throw preconditionFailed(kind, name, 'UID', uid, existing.metadata.uid);

    const requested = body.metadata.managedFields;
    const next = prepareUpdate(kind, existing, body, sub, managedFields);
    if (managedFields === undefined && options.fieldManager !== undefined) {
      const tracked = managedFieldsAfterUpdate({ kind, scope: sub, live: existing, next, requested, manager: options.fieldManager, now: rfc3339(this.clock.now()) });
      if (tracked.length > 0) next.metadata.managedFields = tracked;
      else delete next.metadata.managedFields;
    }
    const req = { operation: 'UPDATE' as const, kind, object: next, oldObject: present(kind, existing), subresource: sub, dryRun: options.dryRun === true, user: options.user };
    this.admission.mutate(req, this);
    const final = validateForStorage(kind, next, validateObjectMeta(kind, next, existing), this.options.validate, options, {
      old: existing,
      siblings: () => this.list(kind).items,
      subresource: sub,
    });
    this.admission.validate({ ...req, object: final }, this);
    return this.commitUpdate(kind, existing, final, options.dryRun === true);
  }

  /** Store a prepared update: no-op check, generation, deletion by emptied finalizers. */
  private commitUpdate(kind: KindInfo, existing: KubeObject, next: KubeObject, dryRun: boolean): KubeObject {
    normalizeMeta(next);
    if (isNoop(existing, next)) return present(kind, existing);
    if (bumpsGeneration(kind, existing, next)) next.metadata.generation = (existing.metadata.generation ?? 0) + 1;
    if (next.metadata.deletionTimestamp && !next.metadata.finalizers && this.canRemove(kind, next)) {
      if (dryRun) return present(kind, next);
      return present(kind, this.removeNow(kind, existing));
    }
    if (dryRun) return present(kind, next);
    return present(kind, this.persist(kind, 'MODIFIED', next, existing));
  }

  /** A namespace goes only once empty and finalized (spec.finalizers); everything else once its finalizers are gone. */
  private canRemove(kind: KindInfo, obj: KubeObject): boolean {
    return !isNamespaceKind(kind) || (this.index.inNamespace(obj.metadata.name!).length === 0 && namespaceFinalizers(obj).length === 0);
  }

  // ---------------------------------------------------------------- patch

  patch(
    kind: KindInfo,
    namespace: string | undefined,
    name: string,
    type: PatchType,
    body: unknown,
    options: WriteOptions = {},
  ): { object: KubeObject; created: boolean } {
    checkPatchTypeAllowed(kind, type);
    if (options.force && type !== 'apply') throw forceNotAllowed();
    if (type === 'apply' && !options.fieldManager) throw fieldManagerRequired();
    if (options.subresource === 'status' && !kind.statusSubresource) throw pathNotFound();
    // The Namespace's finalize subresource serves PUT only.
    if (options.subresource === 'finalize') throw methodNotAllowed();
    const ns = kind.namespaced ? namespace : undefined;
    const existing = this.index.get(kindKeyOf(kind), objectKey(ns, name));

    if (type === 'apply') {
      const applied = decodeApplyBody(body);
      if (applied.apiVersion === undefined || applied.kind === undefined) {
        throw badRequest(`the apply patch for ${kind.kind} "${name}" has no apiVersion or kind; send the full manifest (apiVersion: ${apiVersionOf(kind)}, kind: ${kind.kind})`);
      }
      const obj = checkBodyType(kind, applied);
      assertTargetMatches(kind, ns, name, obj);
      const now = rfc3339(this.clock.now());
      const input = { kind, applied: obj, manager: options.fieldManager!, force: options.force === true, subresource: options.subresource === 'status' ? ('status' as const) : undefined, now };
      if (!existing) {
        if (options.subresource === 'status') throw notFound(kind, name);
        const merged = serverSideApply(input);
        return { object: this.createCore(kind, merged, options, merged.metadata.managedFields), created: true };
      }
      const merged = serverSideApply({ ...input, existing });
      return { object: this.updateCore(kind, merged, options, 'patch', merged.metadata.managedFields ?? []), created: false };
    }

    if (!existing) throw notFound(kind, name);
    const patched = checkBodyType(kind, applyNonApplyPatch(kind, copyJson(existing), type, body));
    // A patch that cannot have touched managedFields hands the field manager the stored list itself.
    if (!patchesManagedFields(type, body)) patched.metadata.managedFields = existing.metadata.managedFields;
    assertTargetMatches(kind, ns, name, patched);
    return { object: this.updateCore(kind, patched, options, 'patch'), created: false };
  }

  // ---------------------------------------------------------------- delete

  delete(
    kind: KindInfo,
    namespace: string | undefined,
    name: string,
    options: DeleteOptions = {},
  ): { object?: KubeObject; status?: Record<string, unknown> } {
    const dryRun = options.dryRun === true;
    const existing = this.index.get(kindKeyOf(kind), objectKey(kind.namespaced ? namespace : undefined, name));
    if (!existing) throw notFound(kind, name);
    const pre = options.preconditions ?? {};
    if (pre.uid !== undefined && pre.uid !== existing.metadata.uid) {
      throw preconditionFailed(kind, name, 'UID', pre.uid, existing.metadata.uid);
    }
    if (pre.resourceVersion !== undefined && pre.resourceVersion !== existing.metadata.resourceVersion) {
      throw preconditionFailed(kind, name, 'ResourceVersion', pre.resourceVersion, existing.metadata.resourceVersion);
    }
    // NamespaceLifecycle admission.
    if (isNamespaceKind(kind) && IMMORTAL_NAMESPACES.has(name)) throw immortalNamespace(name);
    this.admission.validate({ operation: 'DELETE', kind, oldObject: present(kind, existing), dryRun, user: options.user }, this);

    const fins = finalizersForDelete(existing, options.propagationPolicy);
    const uid = existing.metadata.uid!;
    if (existing.metadata.deletionTimestamp) {
      if (sameList(fins, existing.metadata.finalizers ?? [])) return { object: present(kind, existing) };
      const next = copyJson(existing);
      next.metadata.finalizers = fins;
      return { object: this.commitUpdate(kind, existing, next, dryRun) };
    }
    if (fins.length === 0 && !isNamespaceKind(kind)) {
      if (!dryRun) this.removeNow(kind, existing);
      return { status: deleteSuccess(kind, name, uid) as unknown as Record<string, unknown> };
    }
    const next = copyJson(existing);
    next.metadata.deletionTimestamp = rfc3339(this.clock.now());
    next.metadata.deletionGracePeriodSeconds = 0;
    if ((existing.metadata.generation ?? 0) > 0) next.metadata.generation = existing.metadata.generation! + 1;
    next.metadata.finalizers = fins;
    if (isNamespaceKind(kind)) next.status = { ...((existing.status as object) ?? {}), phase: 'Terminating' };
    normalizeMeta(next);
    if (dryRun) return { object: present(kind, next) };
    return { object: present(kind, this.persist(kind, 'MODIFIED', next, existing)) };
  }

  // ---------------------------------------------------------------- storage

  /** Stamp the next resourceVersion, store, log and publish a write; returns the frozen stored object. */
  private persist(kind: KindInfo, type: 'ADDED' | 'MODIFIED', obj: KubeObject, prev?: KubeObject): KubeObject {
    this.rv++;
    obj.apiVersion = apiVersionOf(kind);
    obj.kind = kind.kind;
    obj.metadata.resourceVersion = String(this.rv);
    deepFreeze(obj);
    this.index.put(kind, obj);
    this.record({ rv: this.rv, kindKey: kindKeyOf(kind), type, object: obj, prev });
    this.gc.afterWrite(kind, obj);
    return obj;
  }

  /** Remove an object for good; the DELETED event carries its last state stamped with the new resourceVersion. */
  private removeNow(kind: KindInfo, stored: KubeObject): KubeObject {
    this.rv++;
    const stamped = deepFreeze({ ...stored, metadata: { ...stored.metadata, resourceVersion: String(this.rv) } });
    const kindKey = kindKeyOf(kind);
    this.index.remove(kindKey, objectKey(stored.metadata.namespace, stored.metadata.name!));
    this.record({ rv: this.rv, kindKey, type: 'DELETED', object: stamped, prev: stored });
    this.gc.afterRemove(kind, stored);
    return stamped;
  }

  private record(e: LoggedEvent): void {
    this.log.append(e);
    this.hub.publish(e);
  }

  // ---------------------------------------------------------------- watch

  watch(kind: KindInfo, options: WatchOptions, onEvent: (event: WatchEvent) => void): StoreWatchHandle {
    return this.openWatch(kind, options, onEvent, false);
  }

  /** watch() whose events carry the frozen stored objects, shared by every such watcher; never mutate them. */
  watchShared(kind: KindInfo, options: WatchOptions, onEvent: (event: WatchEvent) => void): StoreWatchHandle {
    return this.openWatch(kind, options, onEvent, true);
  }

  private openWatch(kind: KindInfo, options: WatchOptions, onEvent: (event: WatchEvent) => void, sharedObjects: boolean): StoreWatchHandle {
    const kindKey = kindKeyOf(kind);
    return openWatch({ hub: this.hub, log: this.log, table: this.index.table(kindKey), rv: () => this.rv }, kind, kindKey, options, onEvent, sharedObjects);
  }
}
