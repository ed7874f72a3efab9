/**
 * KubeVirt's aggregated API group `subresources.kubevirt.io` (served by virt-api behind kube-aggregator),
 * from kubevirt/kubevirt pkg/virt-api/api.go `composeSubresources` and pkg/virt-api/rest/lifecycle.go at
 * f40c1e28 (docs/design/kube-api.md §6):
 *
 * - discovery: versions v1 and v1alpha3 (v1 preferred); virt-api's APIResourceList names each resource and
 *   says only `namespaced: true` (no kind, no verbs), and kube-aggregator turns it into aggregated discovery
 *   as endpoints.ConvertGroupVersionIntoToDiscovery does (`a/b` becomes subresource `b` of a parent `a` made
 *   up when absent, with an empty responseKind);
 * - routes: virt-api's methods (GET for streams and guest-agent reads, PUT for actions); another method on a
 *   known route is 405, an unknown route 404, an unknown VM or VMI 404 naming `virtualmachine.kubevirt.io`;
 * - simulated: `virtualmachines/{start,stop,restart,migrate}` with virt-api's rules and 409 texts (start/stop
 *   patch `spec.runStrategy` or `spec.running`; restart deletes the VMI where virt-api queues stop+start
 *   state-change requests, which the emulator's VM controller does not read; migrate creates a
 *   VirtualMachineInstanceMigration `kubevirt-migrate-vm-…`), each answering 202 with no body;
 * - everything else needs a guest or virt-handler (console, VNC, port-forward, guest-agent queries, pause,
 *   freeze, hotplug, SEV, memory dumps, expand-spec): 501 NotImplemented, saying so. Start and stop for the
 *   Manual and RerunOnFailure strategies (state-change requests) are 501 too.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StatusError, badRequest, methodNotAllowed, pathNotFound } from './errors';
import { parseJsonBody, readBody, send } from './http-io';
import type { ResourceRoute } from './router';
import type { ObjectStore } from './store';
import type { KindInfo, KubeObject } from './types';

export const KUBEVIRT_SUBRESOURCE_GROUP = 'subresources.kubevirt.io';
/** virt-api's SubresourceGroupVersions, preferred first. */
export const KUBEVIRT_SUBRESOURCE_VERSIONS = ['v1', 'v1alpha3'];

/** What virt-api's APIResourceList advertises (its order). */
const ADVERTISED = [
  'expand-vm-spec',
  'virtualmachineinstances/vnc',
  'virtualmachineinstances/console',
  'virtualmachineinstances/portforward',
  'virtualmachineinstances/pause',
  'virtualmachineinstances/unpause',
  'virtualmachineinstances/freeze',
  'virtualmachineinstances/unfreeze',
  'virtualmachineinstances/softreboot',
  'virtualmachines/start',
  'virtualmachines/stop',
  'virtualmachines/restart',
  'virtualmachines/migrate',
  'virtualmachines/expand-spec',
  'virtualmachineinstances/guestosinfo',
  'virtualmachineinstances/userlist',
  'virtualmachineinstances/filesystemlist',
  'virtualmachineinstances/addvolume',
  'virtualmachineinstances/removevolume',
  'virtualmachineinstances/sev/fetchcertchain',
  'virtualmachineinstances/sev/querylaunchmeasurement',
  'virtualmachineinstances/sev/setupsession',
  'virtualmachineinstances/sev/injectlaunchsecret',
];

/** Every route virt-api serves on an object, with its method (portforward takes a port, and a protocol). */
const ROUTES: Record<string, Record<string, 'GET' | 'PUT'>> = {
  virtualmachineinstances: {
    vnc: 'GET', 'vnc/screenshot': 'GET', console: 'GET', usbredir: 'GET', vsock: 'GET', portforward: 'GET',
    pause: 'PUT', unpause: 'PUT', freeze: 'PUT', unfreeze: 'PUT', softreboot: 'PUT',
    guestosinfo: 'GET', userlist: 'GET', filesystemlist: 'GET', addvolume: 'PUT', removevolume: 'PUT',
    'sev/fetchcertchain': 'GET', 'sev/querylaunchmeasurement': 'GET', 'sev/setupsession': 'PUT', 'sev/injectlaunchsecret': 'PUT',
  },
  virtualmachines: {
    start: 'PUT', stop: 'PUT', restart: 'PUT', migrate: 'PUT', 'expand-spec': 'GET', portforward: 'GET',
    addvolume: 'PUT', removevolume: 'PUT', memorydump: 'PUT', removememorydump: 'PUT',
  },
};

/** `GET /apis/subresources.kubevirt.io/{v}`: virt-api's list (apiVersion set to the version, as it does). */
export function kubevirtResourceList(version: string): Record<string, unknown> | undefined {
  if (!KUBEVIRT_SUBRESOURCE_VERSIONS.includes(version)) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: version,
    groupVersion: `${KUBEVIRT_SUBRESOURCE_GROUP}/${version}`,
    resources: ADVERTISED.map((name) => ({ name, singularName: '', namespaced: true, kind: '', verbs: null })),
  };
}

/** The group's legacy APIGroup entry (as kube-aggregator lists it: versions by priority, v1 preferred). */
export function kubevirtApiGroup(): { name: string; versions: { groupVersion: string; version: string }[]; preferredVersion: { groupVersion: string; version: string } } {
  const versions = KUBEVIRT_SUBRESOURCE_VERSIONS.map((version) => ({ groupVersion: `${KUBEVIRT_SUBRESOURCE_GROUP}/${version}`, version }));
  return { name: KUBEVIRT_SUBRESOURCE_GROUP, versions, preferredVersion: versions[0] };
}

/** The group in aggregated discovery (ConvertGroupVersionIntoToDiscovery of virt-api's list). */
export function kubevirtAggregatedGroup(): Record<string, unknown> {
  const empty = { group: '', version: '', kind: '' };
  const versions = KUBEVIRT_SUBRESOURCE_VERSIONS.map((version) => {
    const resources: Record<string, unknown>[] = [];
    const parents = new Map<string, Record<string, unknown>>();
    for (const name of ADVERTISED.filter((n) => !n.includes('/'))) {
      const entry = { resource: name, responseKind: empty, scope: 'Namespaced', singularResource: '', verbs: null };
      resources.push(entry);
      parents.set(name, entry);
    }
    for (const name of ADVERTISED.filter((n) => n.includes('/'))) {
      const [parent, sub] = [name.slice(0, name.indexOf('/')), name.slice(name.indexOf('/') + 1)];
      let entry = parents.get(parent);
      if (!entry) {
        entry = { resource: parent, responseKind: empty, scope: 'Namespaced', singularResource: '', verbs: null };
        resources.push(entry);
        parents.set(parent, entry);
      }
      if (!entry.subresources) entry.subresources = [];
      (entry.subresources as unknown[]).push({ subresource: sub, responseKind: empty, verbs: null });
    }
    return { version, resources, freshness: 'Current' };
  });
  return { metadata: { name: KUBEVIRT_SUBRESOURCE_GROUP, creationTimestamp: null }, versions };
}

/** The RBAC verb of a request to this group (virt-api's routes are GET and PUT). */
export function kubevirtVerb(method: string): string {
  return method === 'GET' ? 'get' : method === 'PUT' ? 'update' : method.toLowerCase();
}

/** What the handler needs from the server. */
export interface KubevirtSubresourceDeps {
  store: ObjectStore;
  vm: KindInfo;
  vmi: KindInfo;
  migration: KindInfo;
}

function vmConflict(name: string, why: string): StatusError {
  return new StatusError(409, 'Conflict', `Operation cannot be fulfilled on virtualmachine.kubevirt.io "${name}": ${why}`, { name, group: 'kubevirt.io', kind: 'virtualmachine' });
}

function kubevirtNotFound(resource: 'virtualmachine' | 'virtualmachineinstance', name: string): StatusError {
  return new StatusError(404, 'NotFound', `${resource}.kubevirt.io "${name}" not found`, { name, group: 'kubevirt.io', kind: resource });
}

function notSimulated(resource: string, sub: string): StatusError {
  return new StatusError(
    501,
    'NotImplemented',
    `the Harvester emulator does not simulate ${resource}/${sub} of ${KUBEVIRT_SUBRESOURCE_GROUP}: it needs a running guest or virt-handler (see docs/emulator.md)`,
  );
}

/** KubeVirt's VirtualMachine.RunStrategy(): spec.runStrategy, else spec.running (true Always, false Halted). */
function runStrategyOf(vm: KubeObject): string {
  const spec = (vm.spec ?? {}) as Record<string, unknown>;
  if (typeof spec.runStrategy === 'string' && spec.runStrategy !== '') return spec.runStrategy;
  return spec.running === true ? 'Always' : 'Halted';
}

/** getRunningPatch: the field the VM already uses (runStrategy, else running), with a test on its value. */
function runningPatch(vm: KubeObject, running: boolean): unknown[] {
  const spec = (vm.spec ?? {}) as Record<string, unknown>;
  if (typeof spec.runStrategy === 'string') {
    return [{ op: 'test', path: '/spec/runStrategy', value: spec.runStrategy }, { op: 'replace', path: '/spec/runStrategy', value: running ? 'Always' : 'Halted' }];
  }
  return [{ op: 'test', path: '/spec/running', value: spec.running ?? null }, { op: 'replace', path: '/spec/running', value: running }];
}

const isFinal = (vmi: KubeObject | undefined): boolean => {
  const phase = (vmi?.status as { phase?: string } | undefined)?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
};

const VIRT_API = { fieldManager: 'virt-api', user: 'system:serviceaccount:harvester-system:kubevirt-apiserver' };

/** A JSON request body (virt-api decodes StartOptions/StopOptions/...; an empty body is fine). */
async function readOptions(req: IncomingMessage): Promise<Record<string, unknown>> {
  const raw = await readBody(req);
  if (raw.length === 0) return {};
  const value = parseJsonBody(raw, "Can not unmarshal Request body to struct");
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw badRequest('Can not unmarshal Request body to struct, error: the body must be a JSON object');
  return value as Record<string, unknown>;
}

function dryRunOf(options: Record<string, unknown>): boolean {
  return Array.isArray(options.dryRun) && options.dryRun[0] === 'All';
}

function start(deps: KubevirtSubresourceDeps, ns: string, name: string, vm: KubeObject, options: Record<string, unknown>): void {
  const vmi = deps.store.get(deps.vmi, ns, name);
  const phase = (vmi?.status as { phase?: string } | undefined)?.phase;
  if (vmi && !isFinal(vmi) && phase !== undefined && phase !== '' && phase !== 'Unknown') throw vmConflict(name, 'VM is already running');
  const strategy = runStrategyOf(vm);
  if (strategy === 'Always' || strategy === 'Once') throw vmConflict(name, `${strategy} does not support manual start requests`);
  if (strategy !== 'Halted' || options.paused === true) throw notSimulated('virtualmachines', 'start');
  deps.store.patch(deps.vm, ns, name, 'json', runningPatch(vm, true), { ...VIRT_API, dryRun: dryRunOf(options) });
}

function stop(deps: KubevirtSubresourceDeps, ns: string, name: string, vm: KubeObject, options: Record<string, unknown>): void {
  const vmi = deps.store.get(deps.vmi, ns, name);
  const strategy = runStrategyOf(vm);
  if (strategy === 'Always' || strategy === 'Once') {
    deps.store.patch(deps.vm, ns, name, 'json', runningPatch(vm, false), { ...VIRT_API, dryRun: dryRunOf(options) });
    return;
  }
  if (!vmi || isFinal(vmi)) throw vmConflict(name, 'VM is not running');
  if (strategy === 'Halted') throw vmConflict(name, 'Halted only supports manual stop requests with a shorter graceperiod');
  throw notSimulated('virtualmachines', 'stop');
}

function restart(deps: KubevirtSubresourceDeps, ns: string, name: string, vm: KubeObject, options: Record<string, unknown>): void {
  const grace = options.gracePeriodSeconds;
  if (typeof grace === 'number' && grace > 0) throw badRequest('For force restart, only gracePeriod=0 is supported for now');
  if (typeof grace === 'number' && grace < 0) throw badRequest('gracePeriod has to be greater or equal to 0');
  const strategy = runStrategyOf(vm);
  if (strategy === 'Halted' || strategy === 'Once') throw vmConflict(name, `RunStategy ${strategy} does not support manual restart requests`);
  const vmi = deps.store.get(deps.vmi, ns, name);
  if (!vmi) throw vmConflict(name, 'VM is not running: Halted');
  deps.store.delete(deps.vmi, ns, name, { ...VIRT_API, dryRun: dryRunOf(options), preconditions: { uid: vmi.metadata.uid } });
}

function migrate(deps: KubevirtSubresourceDeps, ns: string, name: string, options: Record<string, unknown>): void {
  const vmi = deps.store.get(deps.vmi, ns, name);
  if (!vmi) throw kubevirtNotFound('virtualmachineinstance', name);
  if ((vmi.status as { phase?: string } | undefined)?.phase !== 'Running') throw vmConflict(name, 'VM is not running');
  const migration = { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachineInstanceMigration', metadata: { generateName: 'kubevirt-migrate-vm-', namespace: ns }, spec: { vmiName: name } };
  deps.store.create(deps.migration, migration as KubeObject, { ...VIRT_API, dryRun: dryRunOf(options) });
}

/** Serve one request under `/apis/subresources.kubevirt.io/{v}/...` (already authenticated and authorized). */
export async function handleKubevirtSubresource(req: IncomingMessage, res: ServerResponse, method: string, route: ResourceRoute, deps: KubevirtSubresourceDeps): Promise<void> {
  const ns = route.namespace;
  if (!KUBEVIRT_SUBRESOURCE_VERSIONS.includes(route.version)) throw pathNotFound();
  if (route.plural === 'expand-vm-spec' && ns !== undefined && route.name === undefined) {
    if (method !== 'PUT') throw methodNotAllowed();
    throw notSimulated('namespaces', 'expand-vm-spec');
  }
  const routes = ROUTES[route.plural];
  const sub = route.subresource ?? '';
  // portforward/{port}[/{protocol}] is one route.
  const key = sub.startsWith('portforward/') ? 'portforward' : sub;
  if (!routes || ns === undefined || route.name === undefined || !routes[key] || (key === 'portforward' && sub === 'portforward')) throw pathNotFound();
  if (routes[key] !== method) throw methodNotAllowed();
  const name = route.name;
  if (route.plural === 'virtualmachines') {
    const vm = deps.store.get(deps.vm, ns, name);
    if (!vm && ['start', 'stop', 'restart', 'migrate'].includes(key)) throw kubevirtNotFound('virtualmachine', name);
    const options = await readOptions(req);
    switch (key) {
      case 'start':
        start(deps, ns, name, vm!, options);
        break;
      case 'stop':
        stop(deps, ns, name, vm!, options);
        break;
      case 'restart':
        restart(deps, ns, name, vm!, options);
        break;
      case 'migrate':
        migrate(deps, ns, name, options);
        break;
      default:
        throw notSimulated(route.plural, key);
    }
    send(res, 202, '', 'text/plain');
    return;
  }
  throw notSimulated(route.plural, key);
}
