/**
 * The apiserver URL grammar (docs/design/kube-api.md §10), parsed into a route. The router knows
 * nothing about which kinds exist; the resource handler resolves group/version/plural against the registry.
 *
 *   /api/v1/{plural}[/{name}[/{sub}]]                                  cluster-scoped core
 *   /api/v1/namespaces/{ns}/{plural}[/{name}[/{sub}]]                  namespaced core
 *   /apis/{group}/{version}/{plural}[/{name}[/{sub}]]                  cluster-scoped, or all-namespaces list/watch
 *   /apis/{group}/{version}/namespaces/{ns}/{plural}[/{name}[/{sub}]]
 *
 * `/api/v1/namespaces/{ns}/status` and `/finalize` are the Namespace object's own subresources, exactly as
 * the apiserver's RequestInfoFactory decides.
 */

/** A request for a resource collection or item. */
export interface ResourceRoute {
  type: 'resource';
  group: string;
  version: string;
  plural: string;
  /** Namespace from the URL (`/namespaces/{ns}/...`), if any. */
  namespace?: string;
  name?: string;
  subresource?: string;
}

/** Every route the emulator serves. */
export type Route =
  | { type: 'version' }
  | { type: 'health'; path: string }
  | { type: 'coreVersions' }
  | { type: 'groupList' }
  | { type: 'group'; group: string }
  | { type: 'resourceList'; group: string; version: string }
  | { type: 'openapiV3Index' }
  | { type: 'openapiV3Document'; gvPath: string }
  | { type: 'openapiV2' }
  | ResourceRoute
  | { type: 'notFound' };

const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

/** Split a path into decoded segments; undefined if a segment is empty or undecodable. */
function segments(path: string): string[] | undefined {
  const trimmed = path.replace(/^\/+/, '').replace(/\/+$/, '');
  if (trimmed === '') return [];
  const parts = trimmed.split('/');
  const out: string[] = [];
  for (const part of parts) {
    if (part === '') return undefined;
    try {
      out.push(decodeURIComponent(part));
    } catch {
      return undefined;
    }
  }
  return out;
}

/** Parse the resource part after `/api/v1` or `/apis/{g}/{v}`. */
function resourceRoute(group: string, version: string, rest: string[]): Route {
  let parts = rest;
  let namespace: string | undefined;
  if (parts[0] === 'namespaces' && parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2])) {
    namespace = parts[1];
    parts = parts.slice(2);
  }
  // KubeVirt's aggregated subresources have paths like `.../virtualmachineinstances/x/sev/fetchcertchain`.
  if (group === 'subresources.kubevirt.io' && parts.length > 3) parts = [parts[0], parts[1], parts.slice(2).join('/')];
  if (parts.length < 1 || parts.length > 3) return { type: 'notFound' };
  const [plural, name, subresource] = parts;
  const route: ResourceRoute = { type: 'resource', group, version, plural };
  if (namespace !== undefined) route.namespace = namespace;
  if (name !== undefined) route.name = name;
  if (subresource !== undefined) route.subresource = subresource;
  return route;
}

/** Parse a request path (no query string) into a Route. */
export function parseRoute(path: string): Route {
  const parts = segments(path);
  if (parts === undefined) return { type: 'notFound' };
  const [first, ...rest] = parts;
  switch (first) {
    case 'version':
      return rest.length === 0 ? { type: 'version' } : { type: 'notFound' };
    case 'healthz':
    case 'livez':
    case 'readyz':
      return { type: 'health', path: `/${parts.join('/')}` };
    case 'openapi':
      if (rest[0] === 'v2' && rest.length === 1) return { type: 'openapiV2' };
      if (rest[0] === 'v3') {
        if (rest.length === 1) return { type: 'openapiV3Index' };
        return { type: 'openapiV3Document', gvPath: rest.slice(1).join('/') };
      }
      return { type: 'notFound' };
    case 'api':
      if (rest.length === 0) return { type: 'coreVersions' };
      if (rest[0] !== 'v1') return { type: 'notFound' };
      if (rest.length === 1) return { type: 'resourceList', group: '', version: 'v1' };
      return resourceRoute('', 'v1', rest.slice(1));
    case 'apis':
      if (rest.length === 0) return { type: 'groupList' };
      if (rest.length === 1) return { type: 'group', group: rest[0] };
      if (rest.length === 2) return { type: 'resourceList', group: rest[0], version: rest[1] };
      return resourceRoute(rest[0], rest[1], rest.slice(2));
    default:
      return { type: 'notFound' };
  }
}

/** The Kubernetes verb of a resource request (`list`, `watch`, `get`, `create`, ...), or undefined for 405. */
export function resourceVerb(method: string, route: ResourceRoute, watch: boolean): string | undefined {
  const item = route.name !== undefined;
  switch (method) {
    case 'GET':
      // `?watch=true` on an item path is a watch narrowed to that name (the old single-object watch).
      if (watch) return 'watch';
      return item ? 'get' : 'list';
    case 'POST':
      return item ? undefined : 'create';
    case 'PUT':
      return item ? 'update' : undefined;
    case 'PATCH':
      return item ? 'patch' : undefined;
    case 'DELETE':
      return item ? 'delete' : 'deletecollection';
    default:
      return undefined;
  }
}

/** `?watch` read as kube-apiserver reads booleans (request-options.ts). */
export { isWatchQuery } from './request-options';
