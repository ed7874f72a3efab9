/**
 * Discovery documents, built from the kind registry (docs/design/kube-api.md §8):
 *
 * - aggregated discovery (`apidiscovery.k8s.io` v2 and v2beta1) on `/api` and `/apis`, answered with the exact
 *   aggregated Content-Type — with plain `application/json` kubectl parses it as legacy and finds no resources;
 * - legacy `/api` (APIVersions), `/apis` (APIGroupList), `/apis/{g}` (APIGroup) and `/api/v1`, `/apis/{g}/{v}`
 *   (APIResourceList, subresources listed right after their parent: client-node takes the first entry whose
 *   kind matches).
 */
import { isNamespaceKind } from './store-meta';
import { KUBEVIRT_SUBRESOURCE_GROUP, kubevirtAggregatedGroup, kubevirtApiGroup, kubevirtResourceList } from './kubevirt-subresources';
import type { KindInfo, KindRegistry } from './types';
import { apiVersionOf } from './types';

/** The verbs every served resource supports. */
export const RESOURCE_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const STATUS_VERBS = ['get', 'patch', 'update'];
/** `namespaces/finalize` serves PUT only (kubernetes pkg/registry/core/namespace/storage FinalizeREST). */
const FINALIZE_VERBS = ['update'];

/** The subresources a kind serves, with their verbs, in the order the apiserver lists them. */
export function subresourcesOf(kind: KindInfo): { name: string; verbs: string[] }[] {
  const out: { name: string; verbs: string[] }[] = [];
  if (isNamespaceKind(kind)) out.push({ name: 'finalize', verbs: FINALIZE_VERBS });
  if (kind.statusSubresource) out.push({ name: 'status', verbs: STATUS_VERBS });
  return out;
}

/** Whether `kind` serves `/{subresource}`. */
export function servesSubresource(kind: KindInfo, subresource: string): boolean {
  return subresourcesOf(kind).some((s) => s.name === subresource);
}

/** The verbs of a subresource name (`status` or `finalize`), or undefined for one the emulator never serves. */
export function subresourceVerbs(subresource: string): string[] | undefined {
  return subresource === 'status' ? STATUS_VERBS : subresource === 'finalize' ? FINALIZE_VERBS : undefined;
}

/** Which discovery document a client asked for. */
export type DiscoveryFormat = 'v2' | 'v2beta1' | 'legacy';

/** Response Content-Type of aggregated discovery. */
export function aggregatedContentType(format: 'v2' | 'v2beta1'): string {
  return `application/json;g=apidiscovery.k8s.io;v=${format};as=APIGroupDiscoveryList`;
}

/** One media range of an Accept header: type plus lower-cased parameters. */
export interface MediaRange {
  type: string;
  params: Record<string, string>;
}

/** Parse an Accept header into media ranges, in the order the client listed them. */
export function parseAccept(accept: string | undefined): MediaRange[] {
  if (!accept) return [];
  return accept
    .split(',')
    .map((part) => {
      const [type, ...params] = part.split(';').map((s) => s.trim());
      const record: Record<string, string> = {};
      for (const p of params) {
        const eq = p.indexOf('=');
        if (eq > 0) record[p.slice(0, eq).trim().toLowerCase()] = p.slice(eq + 1).trim();
      }
      return { type: type.toLowerCase(), params: record };
    })
    .filter((m) => m.type !== '');
}

/** Pick the first discovery format the client accepts (kubectl lists v2, v2beta1, then plain JSON). */
export function negotiateDiscovery(accept: string | undefined): DiscoveryFormat {
  for (const range of parseAccept(accept)) {
    const { g, v, as } = range.params;
    if (range.type === 'application/json' && g === 'apidiscovery.k8s.io' && as === 'APIGroupDiscoveryList') {
      if (v === 'v2' || v === 'v2beta1') return v;
      continue;
    }
    if (range.type === 'application/json' || range.type === '*/*' || range.type === 'application/*') return 'legacy';
  }
  return 'legacy';
}

/** Kubernetes version priority: GA > beta > alpha, then higher numbers first (v1 > v1beta2 > v1beta1 > v1alpha1). */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string): [number, number, number] | undefined => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return undefined;
    const rank = m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1;
    return [rank, Number(m[1]), m[3] === undefined ? 0 : Number(m[3])];
  };
  const pa = parse(a);
  const pb = parse(b);
  if (pa && pb) {
    for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pb[i] - pa[i];
    return 0;
  }
  if (pa) return -1;
  if (pb) return 1;
  return a.localeCompare(b);
}

interface GroupVersions {
  group: string;
  /** Versions, preferred first. */
  versions: string[];
}

/** Every group with its versions (preferred first); core ('') first, the rest by name. */
export function groupsOf(registry: KindRegistry): GroupVersions[] {
  const byGroup = new Map<string, Set<string>>();
  for (const kind of registry.all()) {
    const set = byGroup.get(kind.group) ?? new Set<string>();
    set.add(kind.version);
    byGroup.set(kind.group, set);
  }
  return [...byGroup.entries()]
    .sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b)))
    .map(([group, versions]) => ({ group, versions: [...versions].sort(compareVersions) }));
}

function kindsOf(registry: KindRegistry, group: string, version: string): KindInfo[] {
  return registry
    .all()
    .filter((k) => k.group === group && k.version === version)
    .sort((a, b) => a.plural.localeCompare(b.plural));
}

function aggregatedResource(kind: KindInfo): Record<string, unknown> {
  const responseKind = { group: kind.group, version: kind.version, kind: kind.kind };
  const entry: Record<string, unknown> = {
    resource: kind.plural,
    responseKind,
    scope: kind.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: kind.singular,
    verbs: RESOURCE_VERBS,
  };
  if (kind.shortNames.length > 0) entry.shortNames = kind.shortNames;
  if (kind.categories && kind.categories.length > 0) entry.categories = kind.categories;
  const subresources = subresourcesOf(kind);
  if (subresources.length > 0) entry.subresources = subresources.map((sub) => ({ subresource: sub.name, responseKind, verbs: sub.verbs }));
  return entry;
}

/** The APIGroupDiscoveryList for `/api` (core only) or `/apis` (every named group). */
export function aggregatedDiscovery(registry: KindRegistry, core: boolean, format: 'v2' | 'v2beta1'): Record<string, unknown> {
  const items: Record<string, unknown>[] = groupsOf(registry)
    .filter((g) => (g.group === '') === core)
    .map((g) => ({
      metadata: { name: g.group, creationTimestamp: null },
      versions: g.versions.map((version) => ({
        version,
        resources: kindsOf(registry, g.group, version).map(aggregatedResource),
        freshness: 'Current',
      })),
    }));
  if (!core && servesKubevirt(registry)) {
    items.push(kubevirtAggregatedGroup());
    items.sort((a, b) => groupName(a).localeCompare(groupName(b)));
  }
  return { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${format}`, metadata: {}, items };
}

const groupName = (item: Record<string, unknown>): string => String((item.metadata as { name: string }).name);

/** KubeVirt's aggregated subresource API is there when KubeVirt's VirtualMachine kind is. */
function servesKubevirt(registry: KindRegistry): boolean {
  return registry.byKind('kubevirt.io/v1', 'VirtualMachine') !== undefined;
}

/** Legacy `GET /api`. */
export function legacyCoreVersions(serverAddress: string): Record<string, unknown> {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function apiGroup(g: GroupVersions): Record<string, unknown> {
  const versions = g.versions.map((version) => ({ groupVersion: apiVersionOf({ group: g.group, version }), version }));
  return { name: g.group, versions, preferredVersion: versions[0] };
}

/** Legacy `GET /apis`. */
export function legacyGroupList(registry: KindRegistry): Record<string, unknown> {
  const groups: Record<string, unknown>[] = groupsOf(registry)
    .filter((g) => g.group !== '')
    .map(apiGroup);
  if (servesKubevirt(registry)) {
    groups.push(kubevirtApiGroup());
    groups.sort((a, b) => String(a.name).localeCompare(String(b.name)));
  }
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

/** Legacy `GET /apis/{group}`, or undefined when the group is not served. */
export function legacyGroup(registry: KindRegistry, group: string): Record<string, unknown> | undefined {
  if (group === KUBEVIRT_SUBRESOURCE_GROUP && servesKubevirt(registry)) return { kind: 'APIGroup', apiVersion: 'v1', ...kubevirtApiGroup() };
  const g = groupsOf(registry).find((x) => x.group === group && group !== '');
  return g ? { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(g) } : undefined;
}

/** Legacy `GET /api/v1` or `/apis/{g}/{v}`, or undefined when that group-version is not served. */
export function legacyResourceList(registry: KindRegistry, group: string, version: string): Record<string, unknown> | undefined {
  if (group === KUBEVIRT_SUBRESOURCE_GROUP) return servesKubevirt(registry) ? kubevirtResourceList(version) : undefined;
  const kinds = kindsOf(registry, group, version);
  if (kinds.length === 0) return undefined;
  const resources: Record<string, unknown>[] = [];
  for (const kind of kinds) {
    const entry: Record<string, unknown> = {
      name: kind.plural,
      singularName: kind.singular,
      namespaced: kind.namespaced,
      kind: kind.kind,
      verbs: RESOURCE_VERBS,
    };
    if (kind.shortNames.length > 0) entry.shortNames = kind.shortNames;
    if (kind.categories && kind.categories.length > 0) entry.categories = kind.categories;
    resources.push(entry);
    for (const sub of subresourcesOf(kind)) {
      resources.push({ name: `${kind.plural}/${sub.name}`, singularName: '', namespaced: kind.namespaced, kind: kind.kind, verbs: sub.verbs });
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: apiVersionOf({ group, version }), resources };
}
