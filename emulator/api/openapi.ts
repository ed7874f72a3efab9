/**
 * OpenAPI v3 (docs/design/kube-api.md §9): `/openapi/v3` lists one document per group-version;
 * each document has, per kind, the collection and item paths with operations tagged
 * `x-kubernetes-group-version-kind`, and PATCH/POST/PUT operations carrying a `fieldValidation` query
 * parameter. That parameter is what makes kubectl (cli-runtime queryParamVerifierV3) use server-side
 * validation; without it `kubectl apply`/`create` need `/openapi/v2` protobuf, which we answer with 404.
 *
 * The PATCH requestBody never lists strategic-merge-patch: kubectl would take that as a cue to compute
 * strategic patches from our schemas (which carry no patch-merge keys) instead of its compiled-in types.
 */
import { createHash } from 'node:crypto';
import type { JsonSchema, KindInfo, KindRegistry } from './types';
import { groupsOf } from './discovery';
import { openApiComponentName, openApiSchemaFor } from './validation';
import { DEFAULT_VERSION_INFO } from './version';

/** One served document with its cache validators. */
export interface OpenApiDocument {
  body: string;
  /** Upper-case hex SHA-512 of the body, as the real server uses in `?hash=`. */
  hash: string;
}

function gvPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

function camel(s: string): string {
  return s
    .split(/[.\-]/)
    .filter((p) => p !== '')
    .map((p) => p[0].toUpperCase() + p.slice(1))
    .join('');
}

const WRITE_PARAMS = [
  { name: 'dryRun', in: 'query', description: 'When present, indicates that modifications should not be persisted.', schema: { type: 'string', uniqueItems: true } },
  { name: 'fieldManager', in: 'query', description: 'fieldManager is a name associated with the actor or entity that is making these changes.', schema: { type: 'string', uniqueItems: true } },
  { name: 'fieldValidation', in: 'query', description: 'fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields. Valid values are: Ignore, Warn (default), Strict.', schema: { type: 'string', uniqueItems: true } },
];
const FORCE_PARAM = { name: 'force', in: 'query', description: 'Force is going to "force" Apply requests.', schema: { type: 'boolean', uniqueItems: true } };
const LIST_PARAMS = ['allowWatchBookmarks', 'continue', 'fieldSelector', 'labelSelector', 'limit', 'resourceVersion', 'resourceVersionMatch', 'timeoutSeconds', 'watch'].map((name) => ({
  name,
  in: 'query',
  schema: { type: ['limit', 'timeoutSeconds'].includes(name) ? 'integer' : ['allowWatchBookmarks', 'watch'].includes(name) ? 'boolean' : 'string', uniqueItems: true },
}));
const PATCH_BODY = {
  content: {
    'application/apply-patch+yaml': { schema: { type: 'object' } },
    'application/json-patch+json': { schema: { type: 'object' } },
    'application/merge-patch+json': { schema: { type: 'object' } },
  },
  required: true,
};

function pathParam(name: string): Record<string, unknown> {
  return { name, in: 'path', required: true, schema: { type: 'string', uniqueItems: true } };
}

function operation(verb: string, action: string, kind: KindInfo, scopeWord: string, params: unknown[], withBody: boolean): Record<string, unknown> {
  const ref = { $ref: `#/components/schemas/${openApiComponentName(kind)}` };
  const op: Record<string, unknown> = {
    tags: [camel(kind.group || 'core') + camel(kind.version)],
    description: `${action} ${scopeWord}${kind.kind}`,
    operationId: `${verb}${camel(kind.group || 'core')}${camel(kind.version)}${scopeWord}${kind.kind}`,
    parameters: params,
    responses: { '200': { description: 'OK', content: { 'application/json': { schema: ref } } }, '401': { description: 'Unauthorized' } },
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': { group: kind.group, version: kind.version, kind: kind.kind },
  };
  if (withBody) op.requestBody = verb === 'patch' ? PATCH_BODY : { content: { '*/*': { schema: ref } }, required: true };
  return op;
}

function kindPaths(kind: KindInfo): Record<string, Record<string, unknown>> {
  const base = `/${gvPath(kind.group, kind.version)}`;
  const scope = kind.namespaced ? `${base}/namespaces/{namespace}/${kind.plural}` : `${base}/${kind.plural}`;
  const word = kind.namespaced ? 'Namespaced' : '';
  const scopeParams = kind.namespaced ? [pathParam('namespace')] : [];
  const paths: Record<string, Record<string, unknown>> = {};
  paths[scope] = {
    get: operation('list', 'list', kind, word, LIST_PARAMS, false),
    post: operation('create', 'post', kind, word, WRITE_PARAMS, true),
    delete: operation('deleteCollection', 'deletecollection', kind, word, LIST_PARAMS, false),
    parameters: scopeParams,
  };
  const itemParams = [pathParam('name'), ...scopeParams];
  paths[`${scope}/{name}`] = {
    get: operation('read', 'get', kind, word, [], false),
    put: operation('replace', 'put', kind, word, WRITE_PARAMS, true),
    patch: operation('patch', 'patch', kind, word, [...WRITE_PARAMS, FORCE_PARAM], true),
    delete: operation('delete', 'delete', kind, word, [WRITE_PARAMS[0]], false),
    parameters: itemParams,
  };
  if (kind.statusSubresource) {
    paths[`${scope}/{name}/status`] = {
      get: operation('read', 'get', kind, `${word}Status`, [], false),
      put: operation('replace', 'put', kind, `${word}Status`, WRITE_PARAMS, true),
      patch: operation('patch', 'patch', kind, `${word}Status`, [...WRITE_PARAMS, FORCE_PARAM], true),
      parameters: itemParams,
    };
  }
  if (kind.namespaced) {
    paths[`${base}/${kind.plural}`] = { get: operation('list', 'list', kind, 'ForAllNamespaces', LIST_PARAMS, false) };
  }
  return paths;
}

function componentSchema(kind: KindInfo): JsonSchema {
  const schema: JsonSchema = { type: 'object', ...openApiSchemaFor(kind) };
  const properties = { ...((schema.properties as Record<string, unknown> | undefined) ?? {}) };
  properties.apiVersion ??= { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object.' };
  properties.kind ??= { type: 'string', description: 'Kind is a string value representing the REST resource this object represents.' };
  properties.metadata ??= { type: 'object', description: "Standard object's metadata." };
  schema.properties = properties;
  return schema;
}

function hashOf(body: string): string {
  return createHash('sha512').update(body).digest('hex').toUpperCase();
}

/** Builds (once, lazily) and serves the v3 index and per-group-version documents for a registry. */
export class OpenApiPublisher {
  private docs: Map<string, OpenApiDocument> | undefined;

  constructor(private readonly registry: KindRegistry) {}

  private build(): Map<string, OpenApiDocument> {
    if (this.docs) return this.docs;
    const docs = new Map<string, OpenApiDocument>();
    for (const g of groupsOf(this.registry)) {
      for (const version of g.versions) {
        const kinds = this.registry.all().filter((k) => k.group === g.group && k.version === version);
        const paths: Record<string, unknown> = {};
        const schemas: Record<string, unknown> = {};
        for (const kind of kinds) {
          Object.assign(paths, kindPaths(kind));
          schemas[openApiComponentName(kind)] = componentSchema(kind);
        }
        const doc = {
          openapi: '3.0.0',
          info: { title: 'Kubernetes', version: DEFAULT_VERSION_INFO.gitVersion.replace(/\+.*$/, '') },
          paths,
          components: { schemas },
        };
        const body = JSON.stringify(doc);
        docs.set(gvPath(g.group, version), { body, hash: hashOf(body) });
      }
    }
    this.docs = docs;
    return docs;
  }

  /** The `/openapi/v3` discovery index. */
  index(): Record<string, unknown> {
    const paths: Record<string, unknown> = {};
    for (const [path, doc] of this.build()) paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${doc.hash}` };
    return { paths };
  }

  /** The document for `api/v1` or `apis/{g}/{v}`, or undefined when that group-version is not served. */
  document(path: string): OpenApiDocument | undefined {
    return this.build().get(path);
  }
}
