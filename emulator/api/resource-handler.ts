/**
 * Resource requests: list/watch/get/create/update/patch/delete/deletecollection on a resolved kind, turned
 * into Store calls (docs/design/kube-api.md §10, §11, §15). The store owns the object semantics; this layer
 * owns HTTP: body decoding, option parsing, URL/body consistency, content negotiation (JSON or Table), status
 * codes (POST 201, apply-create 201) and Warning headers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { badRequest, methodNotAllowed, notFound, unsupportedMediaType } from './errors';
import type { DeleteOptions, KindInfo, KubeObject, ListResult, PatchType, WatchOptions, WriteOptions } from './types';
import { apiVersionOf } from './types';
import { parseJsonBody, readBody, send, sendJson, warningHeaderValues } from './http-io';
import { servedJson } from './served-json';
import { checkListQuery, intParam, parseDeleteOptions, parseWatchQuery, parseWriteOptions } from './request-options';
import type { ResourceRoute } from './router';
import type { ObjectStore } from './store';
import { assertTargetMatches } from './store-checks';
import { decodeProtobufObject, PROTOBUF_MEDIA_TYPE } from './protobuf';
import { buildTable, negotiateTable, parseIncludeObject, tableContentType } from './table';
import { serveWatch, WatchStream } from './watch-stream';
import { checkPatchTypeAllowed, patchTypeOf } from './patch';
import type { FaultDecision } from '../faults/rules';
import { faultConflict } from '../faults/responses';

/** One resource request after routing, authentication and fault evaluation. */
export interface ResourceRequest {
  req: IncomingMessage;
  res: ServerResponse;
  query: URLSearchParams;
  route: ResourceRoute;
  kind: KindInfo;
  verb: string;
  user: string;
  decision: FaultDecision;
}

/** What the handler needs from the server. */
export interface ResourceHandlerDeps {
  store: ObjectStore;
  now: () => Date;
  bookmarkIntervalMs?: number;
  /** Registers a running watch so server shutdown can end it. */
  trackWatch(stream: WatchStream): () => void;
}

/** Body media types the emulator decodes for create and update. */
const BODY_TYPES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

/**
 * The JSON text of a list: `JSON.stringify({apiVersion, kind, metadata, items})` written by concatenating each
 * item's cached text (served-json.ts), so a LIST serializes only what changed since it was last served.
 */
function listJson(kind: KindInfo, result: ListResult): string {
  const items = result.items.map((o) => servedJson(kind, o)).join(',');
  return `{"apiVersion":${JSON.stringify(apiVersionOf(kind))},"kind":${JSON.stringify(kind.listKind)},"metadata":${JSON.stringify(listMeta(result))},"items":[${items}]}`;
}

function listMeta(result: ListResult): Record<string, unknown> {
  const meta: Record<string, unknown> = { resourceVersion: result.resourceVersion };
  if (result.continue) meta.continue = result.continue;
  if (result.remainingItemCount !== undefined) meta.remainingItemCount = result.remainingItemCount;
  return meta;
}

function warningHeaders(options: WriteOptions): Record<string, string[]> {
  return options.warnings && options.warnings.length > 0 ? { Warning: warningHeaderValues(options.warnings) } : {};
}

/**
 * Decode a create/update body. Over HTTP `kind` and `apiVersion` are required (the store, which internal
 * callers use too, fills them in when absent and rejects mismatches).
 */
function decodeObject(body: Buffer, contentType: string | undefined, kind: KindInfo): KubeObject {
  const media = (contentType ?? 'application/json').split(';')[0].trim().toLowerCase();
  if (media !== 'application/json' && media !== 'application/yaml' && media !== PROTOBUF_MEDIA_TYPE && media !== '') {
    throw unsupportedMediaType(BODY_TYPES);
  }
  if (body.length === 0) throw badRequest('the body of the request was empty; send the object as JSON');
  let value: unknown;
  if (media === PROTOBUF_MEDIA_TYPE) {
    value = decodeProtobufObject(body);
  } else if (media === 'application/yaml') {
    try {
      value = parseYaml(body.toString('utf8'));
    } catch (err) {
      throw badRequest(`couldn't get version/kind; yaml parse error: ${(err as Error).message}`);
    }
  } else {
    value = parseJsonBody(body, "couldn't get version/kind; json parse error");
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw badRequest(`the body of the request must be a JSON object (got ${Array.isArray(value) ? 'an array' : typeof value})`);
  }
  const obj = value as Record<string, unknown>;
  // Built-in kinds decode into typed objects whose kind defaults from the URL; CRDs decode as unstructured,
  // which needs both fields.
  if (!kind.builtIn) {
    if (typeof obj.kind !== 'string' || obj.kind === '') throw badRequest(`Object 'Kind' is missing in '${body.toString('utf8').slice(0, 200)}'`);
    if (typeof obj.apiVersion !== 'string' || obj.apiVersion === '') throw badRequest(`Object 'apiVersion' is missing in '${body.toString('utf8').slice(0, 200)}'`);
  }
  if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
  if (typeof obj.metadata !== 'object' || Array.isArray(obj.metadata)) throw badRequest('metadata must be a JSON object');
  return obj as KubeObject;
}

/** Decode a PATCH body by patch type; 400 for undecodable bodies. */
function decodePatch(body: Buffer, type: PatchType): unknown {
  const text = body.toString('utf8');
  if (type === 'apply') {
    let value: unknown;
    try {
      value = parseYaml(text);
    } catch (err) {
      throw badRequest(`error decoding YAML: ${(err as Error).message}`);
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw badRequest('error decoding YAML: the apply configuration must be an object');
    return value;
  }
  const value = parseJsonBody(body, 'error decoding patch');
  if (type === 'json' && !Array.isArray(value)) {
    throw badRequest(`the server rejected our request due to an error in our request: json: cannot unmarshal ${typeof value} into Go value of type jsonpatch.Patch`);
  }
  if (type !== 'json' && (value === null || typeof value !== 'object' || Array.isArray(value))) {
    throw badRequest(`error decoding patch: a ${type} patch must be a JSON object (got ${Array.isArray(value) ? 'an array' : typeof value})`);
  }
  return value;
}

/** DeleteOptions of a DELETE: from its optional JSON body (kubectl) and the query string (client-node). */
async function readDeleteOptions(r: ResourceRequest): Promise<DeleteOptions> {
  const raw = await readBody(r.req);
  const body = raw.length > 0 ? parseJsonBody(raw, "couldn't get version/kind; json parse error") : undefined;
  return parseDeleteOptions(r.query, body, r.user);
}

/** Dispatch one resource request. */
export async function handleResource(r: ResourceRequest, deps: ResourceHandlerDeps): Promise<void> {
  const { store } = deps;
  const { route, kind, query } = r;
  const ns = route.namespace;
  const subresource = route.subresource === 'status' || route.subresource === 'finalize' ? route.subresource : undefined;
  const table = negotiateTable(r.req.headers.accept);
  const userAgent = r.req.headers['user-agent'];

  const conflictFault = (name: string): void => {
    if (r.decision.action?.type === 'conflict') throw faultConflict(r.decision.action, kind, name);
  };

  switch (r.verb) {
    case 'list': {
      checkListQuery(query);
      const result = store.listShared(kind, {
        namespace: ns,
        labelSelector: query.get('labelSelector') ?? undefined,
        fieldSelector: query.get('fieldSelector') ?? undefined,
        limit: intParam(query, 'limit') || undefined,
        continue: query.get('continue') || undefined,
      });
      if (table) {
        const body = buildTable(kind, result.items, { version: table, now: deps.now(), includeObject: parseIncludeObject(query.get('includeObject')), listMeta: listMeta(result) });
        sendJson(r.res, 200, body, tableContentType(table));
      } else {
        send(r.res, 200, listJson(kind, result), 'application/json');
      }
      return;
    }
    case 'watch': {
      const options: WatchOptions = {
        namespace: ns,
        labelSelector: query.get('labelSelector') ?? undefined,
        fieldSelector: query.get('fieldSelector') ?? undefined,
        ...parseWatchQuery(query),
      };
      if (route.name !== undefined) {
        // A watch on an item path is a collection watch narrowed to that name.
        options.fieldSelector = [`metadata.name=${route.name}`, options.fieldSelector].filter((s) => s).join(',');
      }
      let untrack = (): void => undefined;
      const stream = serveWatch({
        req: r.req,
        res: r.res,
        store,
        kind,
        watch: options,
        contentType: table ? tableContentType(table) : 'application/json',
        timeoutSeconds: intParam(query, 'timeoutSeconds'),
        table: table ? { version: table, includeObject: parseIncludeObject(query.get('includeObject')), now: deps.now } : undefined,
        drop: r.decision.action?.type === 'watchDrop' ? r.decision.action : undefined,
        bookmarkIntervalMs: deps.bookmarkIntervalMs,
        onEnd: () => untrack(),
      });
      untrack = deps.trackWatch(stream);
      return;
    }
    case 'get': {
      const object = store.getShared(kind, ns, route.name!);
      if (!object) throw notFound(kind, route.name!);
      if (table) {
        const body = buildTable(kind, [object], { version: table, now: deps.now(), includeObject: parseIncludeObject(query.get('includeObject')), listMeta: { resourceVersion: object.metadata.resourceVersion ?? '' } });
        sendJson(r.res, 200, body, tableContentType(table));
      } else {
        send(r.res, 200, servedJson(kind, object), 'application/json');
      }
      return;
    }
    case 'create': {
      const object = decodeObject(await readBody(r.req), r.req.headers['content-type'], kind);
      const options = parseWriteOptions(query, 'CreateOptions', userAgent, r.user);
      assertTargetMatches(kind, ns, undefined, object);
      conflictFault(object.metadata.name ?? object.metadata.generateName ?? '');
      const created = store.create(kind, object, options);
      sendJson(r.res, 201, created, 'application/json', warningHeaders(options));
      return;
    }
    case 'update': {
      const object = decodeObject(await readBody(r.req), r.req.headers['content-type'], kind);
      const options = parseWriteOptions(query, 'UpdateOptions', userAgent, r.user);
      if (subresource) options.subresource = subresource;
      // A body without a name is not filled from the URL on PUT: the apiserver compares the two.
      if ((object.metadata.name ?? '') !== route.name) {
        throw badRequest(`the name of the object (${object.metadata.name ?? ''}) does not match the name on the URL (${route.name})`);
      }
      assertTargetMatches(kind, ns, route.name, object);
      conflictFault(route.name!);
      const updated = store.update(kind, object, options);
      sendJson(r.res, 200, updated, 'application/json', warningHeaders(options));
      return;
    }
    case 'patch': {
      // 415 (with the kind's accepted list) before the body is read, as the apiserver's patch handler does.
      const type = patchTypeOf(r.req.headers['content-type']);
      checkPatchTypeAllowed(kind, type);
      const body = await readBody(r.req);
      const options = parseWriteOptions(query, 'PatchOptions', userAgent, r.user, type === 'apply');
      if (subresource) options.subresource = subresource;
      const patch = decodePatch(body, type);
      conflictFault(route.name!);
      const result = store.patch(kind, ns, route.name!, type, patch, options);
      sendJson(r.res, result.created ? 201 : 200, result.object, 'application/json', warningHeaders(options));
      return;
    }
    case 'delete': {
      const options = await readDeleteOptions(r);
      conflictFault(route.name!);
      const result = store.delete(kind, ns, route.name!, options);
      sendJson(r.res, 200, result.object ?? result.status);
      return;
    }
    case 'deletecollection': {
      const options = await readDeleteOptions(r);
      const listed = store.list(kind, { namespace: ns, labelSelector: query.get('labelSelector') ?? undefined, fieldSelector: query.get('fieldSelector') ?? undefined });
      conflictFault('');
      const items: KubeObject[] = [];
      for (const item of listed.items) {
        const result = store.delete(kind, item.metadata.namespace, item.metadata.name!, options);
        items.push(result.object ?? item);
      }
      sendJson(r.res, 200, { apiVersion: apiVersionOf(kind), kind: kind.listKind, metadata: { resourceVersion: store.resourceVersion() }, items });
      return;
    }
    default:
      throw methodNotAllowed();
  }
}
