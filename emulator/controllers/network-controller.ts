/**
 * harvester-network-controller's manager, as far as a VM network's life shows it:
 * - NAD controller (pkg/controller/manager/nad/controller.go): keeps the labels clusternetwork / type /
 *   vlan-id / ready on every bridge NAD (a plain update), and for a VLAN NAD with a route annotation fills what
 *   its helper job and gateway ping write: in `auto` mode the DHCP-learnt `cidr` and `gateway` (here: the
 *   network's configured block, `vmNetworkCidrs`, else `defaultVmCidr`, the first host as gateway) with
 *   `outdated: false`, then `connectivity` once a cidr and gateway are known (`true`: the emulator's gateways
 *   always answer).
 * - ClusterNetwork readiness and MTU (clusternetwork and vlanconfig controllers): `mgmt` is ready from startup; another
 *   cluster network is ready while a VlanConfig attaches hosts to it, and those hosts carry the node label
 *   `network.harvesterhci.io/<cn>=true` that VM scheduling requires (the agent's VlanStatus); its
 *   `uplink-mtu` annotation is the MTU its VlanConfigs share.
 */
import { Clock } from '../clock';
import { KubeObject, Store } from '../api/types';
import { formatCidr, formatIPv4, hostRange, parseCidr } from '../util/ipv4';
import { HarvesterKinds } from './kinds';
import { ANN_NETWORK_ROUTE, ANN_UPLINK_MTU, LABEL_CLUSTER_NETWORK, MGMT_CLUSTER_NETWORK } from '../util/names';
import { DEFAULT_MTU, decodeNetConf, isOverlayType, matchedNodesOf, networkTypeOf, RouteConf, vlanConfigsOf } from './netconf';
import { Condition, clone, field, isDeleting, setCondition, statusOf, timestamp, writeChanges } from '../util/objects';
import { ResolvedHarvesterOptions } from './options';
import { Controller, ErrorSink, objectKey, splitKey } from './runtime';
import { networkLabels } from '../webhooks/network-attachment-definition';

type Ctx = { store: Store; kinds: HarvesterKinds; clock: Clock; options: ResolvedHarvesterOptions; errors?: ErrorSink };
const MANAGER = 'harvester-network-manager';

/** The route after the helper job and the gateway ping, or undefined when they have nothing to write. */
function reconciledRoute(ctx: Ctx, nad: KubeObject, route: RouteConf): RouteConf | undefined {
  const next = { ...route };
  if (route.mode === 'auto' && (!route.cidr || !route.gateway || route.outdated)) {
    const key = objectKey(nad);
    const block = parseCidr(ctx.options.vmNetworkCidrs[key]) ?? parseCidr(ctx.options.defaultVmCidr);
    if (!block) return undefined;
    next.cidr = formatCidr(block);
    next.gateway = formatIPv4(hostRange(block).first);
    next.outdated = false;
    next.connectivity = '';
  }
  if (next.cidr && next.gateway && !next.outdated && !next.connectivity) next.connectivity = 'true';
  return JSON.stringify(next) === JSON.stringify(route) ? undefined : next;
}

function reconcileNad(ctx: Ctx, key: string): void {
  const { namespace, name } = splitKey(key);
  const nad = ctx.store.get(ctx.kinds.nad, namespace, name);
  if (!nad || isDeleting(nad)) return;
  const conf = decodeNetConf(nad);
  if (isOverlayType(conf)) return;
  const desired = clone(nad);
  desired.metadata.labels = networkLabels(ctx.store, ctx.kinds, nad, conf);
  const raw = nad.metadata.annotations?.[ANN_NETWORK_ROUTE];
  if (raw && networkTypeOf(conf) === 'L2VlanNetwork') {
    const route = reconciledRoute(ctx, nad, JSON.parse(raw) as RouteConf);
    if (route) desired.metadata.annotations = { ...desired.metadata.annotations, [ANN_NETWORK_ROUTE]: JSON.stringify(route) };
  }
  writeChanges(ctx.store, ctx.kinds.nad, nad, desired, { fieldManager: MANAGER });
}

function reconcileClusterNetwork(ctx: Ctx, name: string): void {
  const { store, kinds } = ctx;
  const cn = store.get(kinds.clusterNetwork, undefined, name);
  if (!cn || isDeleting(cn)) return;
  const hosts = name === MGMT_CLUSTER_NETWORK ? undefined : new Set(vlanConfigsOf(store, kinds, name).flatMap((vc) => matchedNodesOf(vc)));
  const desired = clone(cn);
  // The vlanconfig controller records the uplink MTU its VlanConfigs share on the cluster network.
  const vc = name === MGMT_CLUSTER_NETWORK ? undefined : vlanConfigsOf(store, kinds, name)[0];
  if (vc) desired.metadata.annotations = { ...desired.metadata.annotations, [ANN_UPLINK_MTU]: String(Number(field(vc, 'spec', 'uplink', 'linkAttributes', 'mtu') ?? 0) || DEFAULT_MTU) };
  const ready: Pick<Condition, 'type' | 'status'> = { type: 'ready', status: !hosts || hosts.size > 0 ? 'True' : 'False' };
  statusOf(desired).conditions = setCondition(statusOf(desired).conditions as Condition[] | undefined, ready, timestamp(ctx.clock.now()), { stampUpdate: true });
  writeChanges(store, kinds.clusterNetwork, cn, desired, { fieldManager: MANAGER });
  if (!hosts) return;
  const label = `network.harvesterhci.io/${name}`;
  for (const node of store.list(kinds.node).items) {
    const want = hosts.has(String(node.metadata.name));
    if (want === (node.metadata.labels?.[label] === 'true')) continue;
    const next = clone(node);
    next.metadata.labels = { ...next.metadata.labels };
    if (want) next.metadata.labels[label] = 'true';
    else delete next.metadata.labels[label];
    writeChanges(store, kinds.node, node, next, { fieldManager: MANAGER });
  }
}

/** Builds the NAD and ClusterNetwork controllers of the network manager. */
export function createNetworkControllers(ctx: Ctx): Controller[] {
  const { store, kinds } = ctx;
  const nads = new Controller({ name: 'harvester-network-manager-nad-controller', clock: ctx.clock, errors: ctx.errors, reconcile: (key) => reconcileNad(ctx, key) });
  nads.watch(store, kinds.nad);
  // A cluster network turning ready or not changes the `ready` label of its NADs.
  nads.watch(store, kinds.clusterNetwork, (cn) => store.listShared(kinds.nad).items.filter((n) => n.metadata.labels?.[LABEL_CLUSTER_NETWORK] === cn.metadata.name).map(objectKey));
  const cns = new Controller({ name: 'harvester-network-manager-clusternetwork-controller', clock: ctx.clock, errors: ctx.errors, reconcile: (key) => reconcileClusterNetwork(ctx, key) });
  cns.watch(store, kinds.clusterNetwork);
  cns.watch(store, kinds.vlanConfig, (vc) => [String((vc.spec as { clusterNetwork?: string } | undefined)?.clusterNetwork ?? '')].filter(Boolean));
  return [nads, cns];
}
