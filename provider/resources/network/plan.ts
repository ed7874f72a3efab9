/**
 * Pure VM-network planning: the NetworkAttachmentDefinition the Harvester UI would write for the inputs (CNI
 * bridge config, the clusternetwork/type/vlan-id labels, the route annotation), the live object read back in
 * the inputs' own shape (so a refresh shows an out-of-band edit per property), the wait's verdict and the update patch.
 */
import type { CheckResult as WaitVerdict } from '../../await';
import type { NetworkAttachmentDefinition } from '../../client/objects';
import { OWNERSHIP_LABELS, stampOwnership, type OwnerIdentity } from '../../client/ownership';
import { driftValue, stableStringify } from '../../core/hash';
import { changedKeys } from '../../core/imported';
import { RESERVED_LABEL_PREFIXES, REPLACE_INPUTS, type NetworkInputs, type NetworkOutputs } from './model';

export const RESOURCE_TYPE = 'network';
export const API_VERSION = 'k8s.cni.cncf.io/v1';
/** Keys of harvester-network-controller (pkg/utils/labels.go) and the Rancher UI's description annotation. */
export const LABEL_CLUSTER_NETWORK = 'network.harvesterhci.io/clusternetwork';
export const LABEL_TYPE = 'network.harvesterhci.io/type';
export const LABEL_VLAN_ID = 'network.harvesterhci.io/vlan-id';
export const LABEL_READY = 'network.harvesterhci.io/ready';
export const ANN_ROUTE = 'network.harvesterhci.io/route';
export const ANN_DESCRIPTION = 'field.cattle.io/description';

type Spec = Pick<NetworkInputs, 'vlan' | 'clusterNetwork' | 'route' | 'description' | 'labels'>;
type Route = NetworkInputs['route'];

export function networkOwner(namespace: string, name: string): OwnerIdentity {
  return { resourceType: RESOURCE_TYPE, resourceName: `${namespace}/${name}` };
}

export const networkTypeOf = (vlan: number | undefined): string => (vlan ? 'L2VlanNetwork' : 'UntaggedNetwork');

/** The CNI config as the UI writes it; `mtu` kept from the live config (Harvester's mutator sets it, and refuses a different one). */
export function desiredConfig(inputs: Pick<NetworkInputs, 'name' | 'vlan' | 'clusterNetwork'>, liveMtu?: number): Record<string, unknown> {
  const config: Record<string, unknown> = { cniVersion: '0.3.1', name: inputs.name, type: 'bridge', bridge: `${inputs.clusterNetwork}-br`, promiscMode: true };
  if (inputs.vlan) config.vlan = inputs.vlan;
  config.ipam = {};
  if (liveMtu) config.mtu = liveMtu;
  return config;
}

/** The route annotation as the UI writes it (VLAN networks only). */
export function routeAnnotation(route: Route): string {
  return route.mode === 'manual'
    ? JSON.stringify({ mode: 'manual', serverIPAddr: '', cidr: route.cidr, gateway: route.gateway })
    : JSON.stringify({ mode: 'auto', serverIPAddr: route.dhcpServer ?? '', cidr: '', gateway: '' });
}

/** The labels we set: the user's plus the network controller's keys the UI writes itself. */
export function desiredLabels(inputs: Spec): Record<string, string> {
  const labels: Record<string, string> = { ...inputs.labels, [LABEL_CLUSTER_NETWORK]: inputs.clusterNetwork, [LABEL_TYPE]: networkTypeOf(inputs.vlan) };
  if (inputs.vlan) labels[LABEL_VLAN_ID] = String(inputs.vlan);
  return labels;
}

export function desiredAnnotations(inputs: Spec): Record<string, string> {
  const annotations: Record<string, string> = {};
  if (inputs.vlan) annotations[ANN_ROUTE] = routeAnnotation(inputs.route);
  if (inputs.description !== undefined) annotations[ANN_DESCRIPTION] = inputs.description;
  return annotations;
}

export function desiredNetwork(inputs: NetworkInputs): NetworkAttachmentDefinition {
  return stampOwnership(
    {
      apiVersion: API_VERSION,
      kind: 'NetworkAttachmentDefinition',
      metadata: { name: inputs.name, namespace: inputs.namespace, labels: desiredLabels(inputs), annotations: desiredAnnotations(inputs) },
      spec: { config: JSON.stringify(desiredConfig(inputs)) },
    },
    networkOwner(inputs.namespace, inputs.name),
  );
}

/** The decoded CNI config ({} when it does not parse: a hand edit broke it, which drift then shows). */
export function liveConfig(nad: NetworkAttachmentDefinition): Record<string, unknown> {
  try {
    const parsed = JSON.parse(String(nad.spec?.config ?? '')) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The route annotation decoded (undefined when absent or not JSON). */
export function liveRoute(nad: NetworkAttachmentDefinition): Record<string, unknown> | undefined {
  const raw = nad.metadata.annotations?.[ANN_ROUTE];
  if (raw === undefined) return undefined;
  try {
    const parsed = JSON.parse(raw) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const isReserved = (key: string): boolean => RESERVED_LABEL_PREFIXES.some((p) => key.startsWith(p)) || Object.values(OWNERSHIP_LABELS).includes(key as never);

/** The live network as inputs (the model's defaults where the object leaves fields out). */
export function liveInputs(nad: NetworkAttachmentDefinition): Spec {
  const config = liveConfig(nad);
  const bridge = typeof config.bridge === 'string' ? config.bridge : '';
  const vlan = typeof config.vlan === 'number' && config.vlan !== 0 ? config.vlan : undefined;
  const labels = Object.fromEntries(Object.entries(nad.metadata.labels ?? {}).filter(([k]) => !isReserved(k)));
  const route = liveRoute(nad);
  let routeInputs: Route = { mode: 'auto' };
  if (vlan && route?.mode === 'manual') routeInputs = { mode: 'manual', cidr: String(route.cidr ?? ''), gateway: String(route.gateway ?? '') };
  else if (vlan && route && typeof route.serverIPAddr === 'string' && route.serverIPAddr) routeInputs = { mode: 'auto', dhcpServer: route.serverIPAddr };
  // Every input the NAD records, in the model's order; an absent description as undefined (it shows as unset).
  const clusterNetwork = bridge.endsWith('-br') ? bridge.slice(0, -3) : bridge;
  return { vlan, clusterNetwork, route: routeInputs, description: nad.metadata.annotations?.[ANN_DESCRIPTION], labels };
}

/**
 * The wait's verdict: done once Harvester's network controller has labelled the network (`ready` is its key:
 * the UI does not write it) and, for a VLAN network with an auto route, has learnt the route (connectivity
 * reported, not outdated) — what nad/controller.go's ensureLabels, helper job and gateway ping write.
 */
export function networkSettled(key: string, inputs: Pick<NetworkInputs, 'vlan' | 'route'>, nad: NetworkAttachmentDefinition | undefined): WaitVerdict {
  if (!nad) return { done: false, description: `VM network ${key} is not there yet`, pending: ['the network'] };
  if (nad.metadata.labels?.[LABEL_READY] === undefined || nad.metadata.labels?.[LABEL_TYPE] !== networkTypeOf(inputs.vlan)) {
    return { done: false, description: `VM network ${key}: waiting for Harvester's network controller to label it`, pending: [`label ${LABEL_READY}`] };
  }
  if (inputs.vlan && inputs.route.mode === 'auto') {
    const route = liveRoute(nad);
    if (!route?.connectivity || route.outdated === true) {
      return { done: false, description: `VM network ${key}: waiting for Harvester to learn the route by DHCP on VLAN ${inputs.vlan}`, pending: ['route (DHCP)'] };
    }
  }
  return { done: true, description: `VM network ${key} is labelled${inputs.vlan && inputs.route.mode === 'auto' ? ' and its route learnt' : ''}` };
}

/** Outputs from inputs and the live network. */
export function toOutputs(inputs: NetworkInputs, live: NetworkAttachmentDefinition, drift: string[] = []): NetworkOutputs {
  const route = liveRoute(live) ?? {};
  return {
    ...inputs,
    networkType: live.metadata.labels?.[LABEL_TYPE] ?? '',
    ready: live.metadata.labels?.[LABEL_READY] === 'true',
    config: String(live.spec?.config ?? ''),
    routeStatus: {
      mode: typeof route.mode === 'string' ? route.mode : '',
      cidr: typeof route.cidr === 'string' ? route.cidr : '',
      gateway: typeof route.gateway === 'string' ? route.gateway : '',
      connectivity: typeof route.connectivity === 'string' ? route.connectivity : '',
      outdated: route.outdated === true,
    },
    drift,
  };
}

/**
 * The merge patch bringing a live network we own to the inputs, or undefined when it already matches: labels
 * (removed user labels as null), the description, the route only when its inputs changed (rewriting it would
 * throw away what Harvester learnt), and the config only when it differs in meaning (Harvester's webhook
 * refuses a config change while VMs run on the network, but lets an equal one through).
 */
export function updatePatch(inputs: NetworkInputs, live: NetworkAttachmentDefinition): Record<string, unknown> | undefined {
  const now = liveInputs(live);
  const labels: Record<string, string | null> = desiredLabels(inputs);
  for (const key of Object.keys(now.labels)) if (!(key in inputs.labels)) labels[key] = null;
  if (!inputs.vlan) labels[LABEL_VLAN_ID] = null;
  const annotations: Record<string, string | null> = {};
  if (inputs.description !== undefined) annotations[ANN_DESCRIPTION] = inputs.description;
  else if (now.description !== undefined) annotations[ANN_DESCRIPTION] = null;
  const routeAbsent = live.metadata.annotations?.[ANN_ROUTE] === undefined;
  if (inputs.vlan && (routeAbsent || stableStringify(now.route) !== stableStringify(inputs.route))) annotations[ANN_ROUTE] = routeAnnotation(inputs.route);
  if (!inputs.vlan && !routeAbsent) annotations[ANN_ROUTE] = null;
  const current = liveConfig(live);
  const config = desiredConfig(inputs, typeof current.mtu === 'number' ? current.mtu : undefined);
  const patch: Record<string, unknown> = {};
  const liveLabels = live.metadata.labels ?? {};
  if (Object.entries(labels).some(([k, v]) => (v === null ? k in liveLabels : liveLabels[k] !== v))) patch.metadata = { labels };
  const liveAnnotations = live.metadata.annotations ?? {};
  if (Object.entries(annotations).some(([k, v]) => (v === null ? k in liveAnnotations : liveAnnotations[k] !== v))) {
    patch.metadata = { ...(patch.metadata as object | undefined), annotations };
  }
  if (stableStringify(current) !== stableStringify(config)) patch.spec = { config: JSON.stringify(config) };
  return Object.keys(patch).length ? patch : undefined;
}
