/**
 * Typed access to one kind. Every call is retried on transient failures (retry.ts) and every failure
 * surfaces as a HarvesterError (from-api-exception.ts). The rules this class enforces:
 *
 *  1. Reads: `get` answers undefined for a missing object; `list` (by label selector, the normal way to read
 *     many objects) pages through `continue` tokens and restarts if one expires.
 *  2. Creates are not repeated blindly: after an ambiguous failure (5xx, reset) the object is read back first,
 *     since the first POST may have landed. AlreadyExists returns the live object only if it is ours and
 *     contains everything we asked for (server additions, including entries appended to lists, are fine).
 *  3. Writes touch only what we own: merge patches carry only the caller's fields; server-side apply uses
 *     field manager `harvester-iac`; `update` is read-modify-write on the latest version, re-applied on 409,
 *     and always sends back the live `status` (IPPool keeps its allocations there, with no subresource).
 *     No write ever sends a status of ours.
 *  4. With `owner` set, nothing is changed or deleted unless its ownership labels match (ownership.ts).
 */
import { AlreadyExistsError, ConflictError, HarvesterError, NotFoundError, isHarvesterError } from './errors';
import { RequestTarget, Verb, describeObject, fromApiException } from './from-api-exception';
import { KindSpec, apiVersionOf, collectionPath } from './kinds';
import { clone, comparable, deepEqual, firstDifference, show, writableCopy } from './object-utils';
import { KubeObject } from './objects';
import { OwnerIdentity, assertOwned, isOwnedBy, notOwnedError, ownerOf, stampOwnership } from './ownership';
import { withRetry } from './retry';
import { Transport } from './transport';
import {
  ApplyOptions,
  FIELD_MANAGER,
  ClientContext,
  CreateOptions,
  DeleteOptions,
  DeleteResult,
  ListOptions,
  ListResult,
  MergePatchOptions,
  UpdateOptions,
  WatchEventType,
  WatchHandle,
  WatchOptions,
} from './resource-types';
import { openWatch } from './watch-stream';

const SECRET_PATH = /(^|\.)(data|stringData)(\.|\[|$)|user-?data|network-?data|password|token/i;
const LIST_PAGE = 500;

/** Typed access to one kind; see the file header for the rules. */
export class ResourceClient<T extends KubeObject = KubeObject> {
  constructor(
    /** The kind this client reads and writes. */
    readonly kind: KindSpec,
    private readonly transport: Transport,
    private readonly ctx: ClientContext,
  ) {}

  /** The object, or undefined if it does not exist. */
  async get(name: string, namespace?: string): Promise<T | undefined> {
    const ns = this.ns(namespace);
    try {
      return this.normalize(await this.run({ verb: 'get', kind: this.kind, namespace: ns, name }, () => this.transport.get(ns, name)));
    } catch (err) {
      if (err instanceof NotFoundError && err.httpStatus === 404 && !err.apiMissing) return undefined;
      throw err;
    }
  }

  /** Every object matching the options, and the list's resourceVersion. */
  async list(options: ListOptions = {}): Promise<ListResult<T>> {
    const ns = this.kind.namespaced ? options.namespace : undefined;
    const target: RequestTarget = { verb: 'list', kind: this.kind, namespace: ns, labelSelector: options.labelSelector };
    for (let restart = 0; ; restart++) {
      const items: T[] = [];
      let resourceVersion = '';
      let cont: string | undefined;
      try {
        do {
          const page = await this.run(target, () =>
            this.transport.list(ns, { labelSelector: options.labelSelector, fieldSelector: options.fieldSelector, limit: LIST_PAGE, continue: cont }),
          );
          if (!resourceVersion) resourceVersion = page.metadata?.resourceVersion ?? '';
          for (const item of page.items ?? []) items.push(this.normalize(item));
          cont = page.metadata?.continue || undefined;
        } while (cont);
        return { items, resourceVersion };
      } catch (err) {
        // A continue token expired mid-way: the pages no longer form one snapshot, so start over.
        if (cont && isHarvesterError(err, 'Expired') && restart < 2) continue;
        throw err;
      }
    }
  }

  /** Create `obj`; see rule 2 for what happens when it already exists or the outcome is unknown. */
  async create(obj: T, options: CreateOptions = {}): Promise<T> {
    const body = this.body(options.owner ? stampOwnership(obj, options.owner) : obj);
    const ns = this.kind.namespaced ? this.ns(body.metadata.namespace) : undefined;
    if (ns) body.metadata.namespace = ns;
    const name = body.metadata.name;
    const target: RequestTarget = { verb: 'create', kind: this.kind, namespace: ns, name };
    let ambiguous = false;
    return withRetry(async () => {
      if (ambiguous && name) {
        const live = await this.get(name, ns);
        if (live) return this.resolveExisting(live, body, options.owner);
      }
      try {
        return this.normalize(await this.transport.create(ns, body, { dryRun: options.dryRun, fieldManager: FIELD_MANAGER }));
      } catch (raw) {
        const err = this.map(raw, target);
        if (err.code === 'AlreadyExists' && name) {
          const live = await this.get(name, ns);
          if (live) return this.resolveExisting(live, body, options.owner);
        }
        // 429 is refused before any work; other transient failures may hide a create that happened.
        if (err.transient && err.httpStatus !== 429) {
          if (!name) throw err.notRetryable(); // generateName: nothing to read back, so never repeat
          ambiguous = true;
        }
        throw err;
      }
    }, this.retryOptions(target));
  }

  /** JSON merge patch of only the caller's fields (never `status`). */
  async mergePatch(name: string, patch: Record<string, unknown>, options: MergePatchOptions = {}): Promise<T> {
    if ('status' in patch) throw new TypeError(`mergePatch of ${this.describe(name, options.namespace)} must not touch status`);
    const ns = this.ns(options.namespace);
    const target: RequestTarget = { verb: 'patch', kind: this.kind, namespace: ns, name };
    const send = (rv: string | undefined) => {
      const body = clone(patch) as { metadata?: Record<string, unknown> };
      if (rv) body.metadata = { ...(body.metadata ?? {}), resourceVersion: rv };
      return this.run(target, () => this.transport.patch(ns, name, body, 'merge', { dryRun: options.dryRun, fieldManager: FIELD_MANAGER }));
    };
    if (!options.owner) return this.normalize(await send(options.resourceVersion));
    const owner = options.owner;
    // Check ownership, then patch at exactly the version checked; a 409 means re-check.
    return this.onConflict(target, 5, async () => {
      const live = await this.mustGet(name, ns, 'patch');
      assertOwned(live, owner, 'patch', this.kind.kind);
      return this.normalize(await send(options.resourceVersion ?? live.metadata.resourceVersion));
    }, options.resourceVersion !== undefined);
  }

  /** Server-side apply of `obj` as field manager harvester-iac (status and server metadata are left out). */
  async apply(obj: T, options: ApplyOptions = {}): Promise<T> {
    const body = this.body(options.owner ? stampOwnership(obj, options.owner) : obj);
    const name = body.metadata.name;
    if (!name) throw new TypeError(`apply of a ${this.kind.kind} needs metadata.name`);
    const ns = this.kind.namespaced ? this.ns(body.metadata.namespace) : undefined;
    if (ns) body.metadata.namespace = ns;
    if (options.owner) {
      const live = await this.get(name, ns);
      if (live) assertOwned(live, options.owner, 'apply to', this.kind.kind);
    }
    const target: RequestTarget = { verb: 'apply', kind: this.kind, namespace: ns, name };
    const result = await this.run(target, () =>
      this.transport.patch(ns, name, body, 'apply', { dryRun: options.dryRun, fieldManager: FIELD_MANAGER, force: options.force ?? false }),
    );
    return this.normalize(result);
  }

  /**
   * Read-modify-write: `mutate` gets a copy of the live object and returns the desired one (undefined = no
   * change). Re-read and re-applied on 409. The live status is always sent back unchanged.
   */
  async update(name: string, namespace: string | undefined, mutate: (live: T) => T | undefined, options: UpdateOptions = {}): Promise<T> {
    const ns = this.ns(namespace);
    const target: RequestTarget = { verb: 'update', kind: this.kind, namespace: ns, name };
    return this.onConflict(target, options.maxConflictRetries ?? 5, async () => {
      const live = await this.mustGet(name, ns, 'update');
      if (options.owner) assertOwned(live, options.owner, 'update', this.kind.kind);
      const desired = mutate(clone(live));
      if (desired === undefined) return live;
      const next = clone(desired) as T;
      const liveStatus = (live as KubeObject).status;
      if (liveStatus === undefined) delete (next as KubeObject).status;
      else (next as KubeObject).status = clone(liveStatus);
      next.metadata = { ...next.metadata, name, resourceVersion: live.metadata.resourceVersion };
      if (ns) next.metadata.namespace = ns;
      if (deepEqual(next, live)) return live;
      return this.normalize(
        await this.run(target, () => this.transport.replace(ns, name, next, { dryRun: options.dryRun, fieldManager: FIELD_MANAGER })),
      );
    });
  }

  /** Delete by name. With `owner`, only an object we own, and only the very object checked (uid precondition). */
  async delete(name: string, options: DeleteOptions = {}): Promise<DeleteResult> {
    const ns = this.ns(options.namespace);
    const target: RequestTarget = { verb: 'delete', kind: this.kind, namespace: ns, name };
    return this.onConflict(target, 3, async () => {
      let uid: string | undefined;
      if (options.owner) {
        const live = await this.get(name, ns);
        if (!live) return 'absent';
        assertOwned(live, options.owner, 'delete', this.kind.kind);
        if (live.metadata.deletionTimestamp) return 'deleting';
        uid = live.metadata.uid;
      }
      let res: Record<string, unknown>;
      try {
        res = await this.run(target, () =>
          this.transport.delete(ns, name, { propagationPolicy: options.propagationPolicy, dryRun: options.dryRun, preconditions: uid ? { uid } : undefined }),
        );
      } catch (err) {
        if (err instanceof NotFoundError && !err.apiMissing) return 'absent';
        throw err;
      }
      if (res?.kind === 'Status') return 'deleted';
      const meta = (res?.metadata ?? {}) as { deletionTimestamp?: string };
      return meta.deletionTimestamp ? 'deleting' : 'deleted';
    });
  }

  /**
   * A raw watch from `options.resourceVersion`. `onEvent` gets each object; `onClose` gets undefined when the
   * server ended the stream cleanly, or the error (an ERROR event becomes its HarvesterError, e.g. 410 →
   * ExpiredError). Prefer provider/await (list + watch, resume, re-list) over this.
   */
  watch(options: WatchOptions, onEvent: (type: WatchEventType, object: T) => void, onClose: (err?: HarvesterError) => void): WatchHandle {
    const ns = this.kind.namespaced ? options.namespace : undefined;
    const target: RequestTarget = { verb: 'watch', kind: this.kind, namespace: ns, labelSelector: options.labelSelector };
    return openWatch(this.ctx.kubeConfig, collectionPath(this.kind, ns), options, {
      onEvent: (type, object) => onEvent(type, this.normalize(object)),
      onClose,
      mapError: (err) => this.map(err, target),
    });
  }

  /** The namespace a single-object call uses: `namespace`, else the context's default (undefined if cluster-scoped). */
  namespaceFor(namespace?: string): string | undefined {
    return this.ns(namespace);
  }

  /** "Kind namespace/name" for messages. */
  describe(name?: string, namespace?: string): string {
    return describeObject(this.kind, this.kind.namespaced ? this.ns(namespace) : undefined, name);
  }

  // ---- internals ----

  private ns(namespace: string | undefined): string | undefined {
    return this.kind.namespaced ? namespace || this.ctx.defaultNamespace : undefined;
  }

  private map(err: unknown, target: RequestTarget): HarvesterError {
    return fromApiException(err, target, this.ctx.connection);
  }

  private retryOptions(target: RequestTarget) {
    return {
      policy: this.ctx.policy,
      sleep: this.ctx.sleep,
      random: this.ctx.random,
      logger: this.ctx.logger,
      describe: `${target.verb} ${describeObject(target.kind, target.namespace, target.name)}`,
    };
  }

  /** One idempotent request with retries, its failure mapped. */
  private run<R>(target: RequestTarget, op: () => Promise<R>): Promise<R> {
    return withRetry(async () => {
      try {
        return await op();
      } catch (err) {
        throw this.map(err, target);
      }
    }, this.retryOptions(target));
  }

  /** Repeat `op` on 409 Conflict (it re-reads), up to `retries` times; `never` disables the repeat. */
  private async onConflict<R>(target: RequestTarget, retries: number, op: () => Promise<R>, never = false): Promise<R> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await op();
      } catch (err) {
        if (!(err instanceof ConflictError) || err.causes.length > 0 || never) throw err;
        if (attempt > retries) throw err.withAttempts(attempt);
        this.ctx.logger.debug(`${target.verb} ${describeObject(target.kind, target.namespace, target.name)}: conflict, re-reading (attempt ${attempt})`);
      }
    }
  }

  private async mustGet(name: string, ns: string | undefined, verb: Verb): Promise<T> {
    const live = await this.get(name, ns);
    if (live) return live;
    return this.throwNotFound(name, ns, verb);
  }

  private throwNotFound(name: string, ns: string | undefined, verb: Verb): never {
    throw this.map({ code: 404, body: { kind: 'Status', reason: 'NotFound', details: { name, kind: this.kind.plural } } }, { verb, kind: this.kind, namespace: ns, name });
  }

  private body(obj: T): T {
    const body = writableCopy(obj);
    body.apiVersion = body.apiVersion ?? apiVersionOf(this.kind);
    body.kind = body.kind ?? this.kind.kind;
    return body;
  }

  /** Fill apiVersion/kind, which list items and some responses leave out. */
  private normalize(obj: unknown): T {
    const o = obj as KubeObject;
    if (o && typeof o === 'object' && o.metadata) {
      o.apiVersion = o.apiVersion ?? apiVersionOf(this.kind);
      o.kind = o.kind ?? this.kind.kind;
    }
    return o as T;
  }

  /** An existing object where we wanted to create `body`: ours and equivalent → return it; else explain. */
  private resolveExisting(live: T, body: T, owner?: OwnerIdentity): T {
    const name = this.describe(live.metadata.name, live.metadata.namespace);
    const identity = owner ?? identityOf(body);
    if (live.metadata.deletionTimestamp) {
      const fin = live.metadata.finalizers?.length ? ` (finalizers: ${live.metadata.finalizers.join(', ')})` : '';
      throw new AlreadyExistsError({
        code: 'AlreadyExists',
        object: name,
        httpStatus: 409,
        summary: `Cannot create ${name}: an object of that name is still being deleted${fin}`,
        fix: 'Wait for the deletion to finish, then retry',
      });
    }
    if (!identity) {
      throw new AlreadyExistsError({
        code: 'AlreadyExists',
        object: name,
        httpStatus: 409,
        summary: `Cannot create ${name}: an object with that name already exists (409 AlreadyExists)`,
        fix: 'Choose another name, or delete the existing object first',
      });
    }
    if (!isOwnedBy(live, identity)) throw notOwnedError(live, identity, 'create over', this.kind.kind);
    const diff = firstDifference(comparable(body), live);
    if (!diff) {
      this.ctx.logger.debug(`${name} already exists, is ours and matches: using it`);
      return live;
    }
    const values = this.kind.kind === 'Secret' || SECRET_PATH.test(diff.path) ? '' : ` (live ${show(diff.live)}, wanted ${show(diff.desired)})`;
    throw new AlreadyExistsError({
      code: 'AlreadyExists',
      object: name,
      httpStatus: 409,
      summary: `Cannot create ${name}: it already exists, owned by this resource, but differs at ${diff.path}${values}`,
      fix: 'Run `pulumi refresh` so the state records the existing object, then `pulumi up` to update it',
    });
  }
}

function identityOf(obj: KubeObject): OwnerIdentity | undefined {
  const o = ownerOf(obj);
  return o?.resourceType && o.resourceName ? { resourceType: o.resourceType, resourceName: o.resourceName } : undefined;
}
