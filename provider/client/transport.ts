/**
 * One kind's REST calls through client-node, returning plain JSON. CRDs use CustomObjectsApi (raw JSON in and
 * out, no discovery). Core kinds use CoreV1Api, whose generated models would drop unknown fields, turn
 * timestamps into Date objects and crash when serialising a timestamp that is still a string; so for them a
 * middleware sends our JSON body as-is and keeps the raw response text, and the typed result is ignored.
 * URL building, auth, TLS and the HTTP exchange all stay client-node's.
 *
 * Errors are thrown as client-node raised them; resource-client.ts maps them with fromApiException.
 */
import {
  CoreV1Api,
  CustomObjectsApi,
  Observable,
  PatchStrategy,
  RequestContext,
  ResponseContext,
  setHeaderOptions,
  type ConfigurationOptions,
} from '@kubernetes/client-node';
import { KindSpec } from './kinds';
import { KubeObject } from './objects';

/** A list response, reduced to what we use. */
export interface RawList {
  items: KubeObject[];
  metadata?: { resourceVersion?: string; continue?: string };
}

/** Query options of a list. */
export interface RawListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
}

/** Options of writes. */
export interface RawWriteOptions {
  dryRun?: boolean;
  fieldManager?: string;
  force?: boolean;
}

/** Options of a delete. */
export interface RawDeleteOptions {
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
}

/** REST calls for one kind. `namespace` is ignored for cluster-scoped kinds; unset on list = all namespaces. */
export interface Transport {
  get(namespace: string | undefined, name: string): Promise<KubeObject>;
  list(namespace: string | undefined, options: RawListOptions): Promise<RawList>;
  create(namespace: string | undefined, body: KubeObject, options: RawWriteOptions): Promise<KubeObject>;
  replace(namespace: string | undefined, name: string, body: KubeObject, options: RawWriteOptions): Promise<KubeObject>;
  patch(namespace: string | undefined, name: string, body: unknown, type: 'merge' | 'apply', options: RawWriteOptions): Promise<KubeObject>;
  /** Returns the object (still there, being deleted) or a `Status` once it is gone. */
  delete(namespace: string | undefined, name: string, options: RawDeleteOptions): Promise<Record<string, unknown>>;
}

const DRY_RUN = (d?: boolean) => (d ? 'All' : undefined);
const CONTENT_TYPE = { merge: PatchStrategy.MergePatch, apply: PatchStrategy.ServerSideApply } as const;

/** The Transport for `kind`. */
export function makeTransport(kind: KindSpec, apis: { custom: CustomObjectsApi; core: CoreV1Api }): Transport {
  return kind.coreName ? coreTransport(kind, apis.core) : customTransport(kind, apis.custom);
}

function customTransport(kind: KindSpec, api: CustomObjectsApi): Transport {
  const gvp = { group: kind.group, version: kind.version, plural: kind.plural };
  const nsOf = (namespace: string | undefined) => (kind.namespaced ? namespace : undefined);
  const ns = (namespace: string | undefined): string => {
    if (!namespace) throw new TypeError(`${kind.kind} is namespaced: a namespace is required`);
    return namespace;
  };
  return {
    get: async (namespace, name) =>
      kind.namespaced ? api.getNamespacedCustomObject({ ...gvp, namespace: ns(namespace), name }) : api.getClusterCustomObject({ ...gvp, name }),
    list: async (namespace, o) => {
      const q = { labelSelector: o.labelSelector, fieldSelector: o.fieldSelector, limit: o.limit, _continue: o.continue };
      return nsOf(namespace) ? api.listNamespacedCustomObject({ ...gvp, namespace: namespace!, ...q }) : api.listClusterCustomObject({ ...gvp, ...q });
    },
    create: async (namespace, body, o) => {
      const q = { body, dryRun: DRY_RUN(o.dryRun), fieldManager: o.fieldManager };
      return kind.namespaced ? api.createNamespacedCustomObject({ ...gvp, namespace: ns(namespace), ...q }) : api.createClusterCustomObject({ ...gvp, ...q });
    },
    replace: async (namespace, name, body, o) => {
      const q = { name, body, dryRun: DRY_RUN(o.dryRun), fieldManager: o.fieldManager };
      return kind.namespaced ? api.replaceNamespacedCustomObject({ ...gvp, namespace: ns(namespace), ...q }) : api.replaceClusterCustomObject({ ...gvp, ...q });
    },
    patch: async (namespace, name, body, type, o) => {
      const q = { name, body, dryRun: DRY_RUN(o.dryRun), fieldManager: o.fieldManager, force: type === 'apply' ? o.force : undefined };
      const opts = setHeaderOptions('Content-Type', CONTENT_TYPE[type]);
      return kind.namespaced
        ? api.patchNamespacedCustomObject({ ...gvp, namespace: ns(namespace), ...q }, opts)
        : api.patchClusterCustomObject({ ...gvp, ...q }, opts);
    },
    delete: async (namespace, name, o) => {
      const q = { name, propagationPolicy: o.propagationPolicy, dryRun: DRY_RUN(o.dryRun), body: o.preconditions ? { preconditions: o.preconditions } : undefined };
      return kind.namespaced ? api.deleteNamespacedCustomObject({ ...gvp, namespace: ns(namespace), ...q }) : api.deleteClusterCustomObject({ ...gvp, ...q });
    },
  };
}

/**
 * Options that make a typed CoreV1Api call carry `body` verbatim (and `contentType`) and remember the raw
 * response text, so the caller gets plain JSON.
 */
function rawExchange(body?: unknown, contentType?: string): { options: ConfigurationOptions; json: () => unknown } {
  let text: string | undefined;
  const middleware = {
    pre: (ctx: RequestContext) => {
      if (body !== undefined) ctx.setBody(JSON.stringify(body));
      if (contentType) ctx.setHeaderParam('Content-Type', contentType);
      return new Observable(Promise.resolve(ctx));
    },
    post: (rsp: ResponseContext) =>
      new Observable(
        rsp.body.text().then((t) => {
          text = t;
          return new ResponseContext(rsp.httpStatusCode, rsp.headers, { text: async () => t, binary: async () => Buffer.from(t) });
        }),
      ),
  };
  return {
    options: { middleware: [middleware], middlewareMergeStrategy: 'append' },
    json: () => (text ? JSON.parse(text) : undefined),
  };
}

type CoreMethod = (param: Record<string, unknown>, options?: ConfigurationOptions) => Promise<unknown>;

function coreTransport(kind: KindSpec, api: CoreV1Api): Transport {
  const name = kind.coreName!;
  const scoped = kind.namespaced ? 'Namespaced' : '';
  const method = (verb: string, suffix = `${scoped}${name}`): CoreMethod => {
    const fn = (api as unknown as Record<string, CoreMethod>)[`${verb}${suffix}`];
    if (typeof fn !== 'function') throw new TypeError(`CoreV1Api has no ${verb}${suffix}`);
    return fn.bind(api);
  };
  const nsParam = (namespace: string | undefined): Record<string, unknown> => {
    if (!kind.namespaced) return {};
    if (!namespace) throw new TypeError(`${kind.kind} is namespaced: a namespace is required`);
    return { namespace };
  };
  // Typed calls get a placeholder body ({}): the real one is sent by the middleware.
  const call = async <T>(fn: CoreMethod, param: Record<string, unknown>, body?: unknown, contentType?: string): Promise<T> => {
    const raw = rawExchange(body, contentType);
    await fn(body === undefined ? param : { ...param, body: {} }, raw.options);
    return raw.json() as T;
  };
  return {
    get: (namespace, n) => call(method('read'), { name: n, ...nsParam(namespace) }),
    list: (namespace, o) => {
      const q = { labelSelector: o.labelSelector, fieldSelector: o.fieldSelector, limit: o.limit, _continue: o.continue };
      if (kind.namespaced && !namespace) return call(method('list', `${name}ForAllNamespaces`), q);
      return call(method('list'), { ...q, ...nsParam(namespace) });
    },
    create: (namespace, body, o) => call(method('create'), { ...nsParam(namespace), dryRun: DRY_RUN(o.dryRun), fieldManager: o.fieldManager }, body),
    replace: (namespace, n, body, o) =>
      call(method('replace'), { name: n, ...nsParam(namespace), dryRun: DRY_RUN(o.dryRun), fieldManager: o.fieldManager }, body),
    patch: (namespace, n, body, type, o) =>
      call(
        method('patch'),
        { name: n, ...nsParam(namespace), dryRun: DRY_RUN(o.dryRun), fieldManager: o.fieldManager, force: type === 'apply' ? o.force : undefined },
        body,
        CONTENT_TYPE[type],
      ),
    delete: (namespace, n, o) =>
      call(
        method('delete'),
        { name: n, ...nsParam(namespace), propagationPolicy: o.propagationPolicy, dryRun: DRY_RUN(o.dryRun) },
        o.preconditions ? { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: o.preconditions } : undefined,
      ),
  };
}
