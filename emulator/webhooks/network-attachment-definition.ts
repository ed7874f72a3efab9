/**
 * The network webhook's NAD mutator and validator (harvester-network-controller pkg/webhook/nad/mutator.go,
 * validator.go; docs/design/harvester-networks.md §"NAD rules", §"NAD mutator and labels") plus Harvester's own
 * NAD delete check (H pkg/webhook/resources/networkattachmentdefinition/validator.go). Network-webhook denials are
 * 500 with `Internal error occurred: ` (wrangler's router), wrapped `can't create|update|delete nad ns/name
 * because …`.
 * kube-ovn NADs are admitted as upstream does when kube-ovn is enabled, except that the emulator serves no
 * Subnet CRD: creating one is refused with N3, deleting one is allowed.
 */
import { AdmissionHook, AdmissionRequest, KubeObject, StoreReader } from '../api/types';
import { HarvesterKinds } from '../controllers/kinds';
import {
  checkVlan, clusterNetworkMtu, clusterNetworkOfBridge, decodeNetConf, isBridgeType, isOverlayType, isSystemNetworkNad,
  NetConf, networkTypeOf, parseRoute, RouteConf, sameMtu, usersOfNad, vlanIdsOf,
} from '../controllers/netconf';
import { ANN_NETWORK_ROUTE, ANN_STORAGE_NETWORK, LABEL_CLUSTER_NETWORK, LABEL_EXCLUSIVE_VLAN, LABEL_NETWORK_READY, LABEL_NETWORK_TYPE, LABEL_VLAN_ID } from '../util/names';
import { field, isDeleting } from '../util/objects';
import { HARVESTER_VALIDATOR, denyInternalError, webhookDenial } from './admission';

export const NETWORK_VALIDATOR = 'validator.harvester-system.harvester-network-webhook';
export const NETWORK_MUTATOR = 'mutator.harvester-system.harvester-network-webhook';

const verbOf = (op: AdmissionRequest['operation']): string => (op === 'CREATE' ? 'create' : op === 'UPDATE' ? 'update' : 'delete');

function wrapped(hook: string, verb: string, nad: KubeObject, run: () => void): void {
  try {
    run();
  } catch (err) {
    if ((err as { status?: unknown }).status !== undefined) throw err;
    throw denyInternalError(hook, `can't ${verb} nad ${nad.metadata.namespace}/${nad.metadata.name} because ${(err as Error).message}`);
  }
}

/** The ClusterNetwork named by a bridge NAD (N12-N16), with the upstream wording for one that is missing. */
function clusterNetworkFor(store: StoreReader, kinds: HarvesterKinds, conf: NetConf): KubeObject {
  const name = clusterNetworkOfBridge(conf);
  const cn = store.get(kinds.clusterNetwork, undefined, name);
  if (!cn) throw new Error(`nad refers to a none-existing cluster network ${name} or error clusternetwork.network.harvesterhci.io "${name}" not found`);
  return cn;
}

/** N2: the vlan (or a trunk id) of a non-system bridge NAD must not be a storage network's exclusive VLAN. */
function checkExclusiveVlan(req: AdmissionRequest, kinds: HarvesterKinds, nad: KubeObject, conf: NetConf): void {
  if (!isBridgeType(conf) || isSystemNetworkNad(nad)) return;
  const mine = new Set(vlanIdsOf(conf));
  for (const other of req.store.listShared(kinds.nad).items) {
    if (other.metadata.labels?.[LABEL_EXCLUSIVE_VLAN] !== 'true') continue;
    let vlan = 0;
    try {
      vlan = decodeNetConf(other).vlan ?? 0;
    } catch {
      continue;
    }
    if (vlan !== 0 && mine.has(vlan)) throw new Error(`vlan ${vlan} is exclusively reserved for storage network`);
  }
}

/** checkNadConfig for bridge NADs (N7-N18); kube-ovn NADs go through N3. */
function checkNadConfig(req: AdmissionRequest, kinds: HarvesterKinds, nad: KubeObject, conf: NetConf): void {
  if (isOverlayType(conf)) throw new Error('kubeovn is not yet enabled');
  checkVlan(conf);
  const cnName = clusterNetworkOfBridge(conf);
  const label = nad.metadata.labels?.[LABEL_CLUSTER_NETWORK];
  if (label !== undefined && label !== '' && label !== cnName) throw new Error(`the nad label ${label} does not match bridge name ${cnName}`);
  const cn = clusterNetworkFor(req.store, kinds, conf);
  const cnMtu = clusterNetworkMtu(req.store, kinds, cn, label ?? '');
  if (!sameMtu(conf.mtu ?? 0, cnMtu)) throw new Error(`nad MTU ${conf.mtu ?? 0} does not match cluster network MTU ${cnMtu}`);
}

function checkRouteAnnotation(nad: KubeObject): void {
  const route = nad.metadata.annotations?.[ANN_NETWORK_ROUTE];
  if (route !== undefined) parseRoute(route);
}

/** N22/N23: VMIs (running) and VMs (templates) that use the NAD. */
export function nadUsers(store: StoreReader, kinds: HarvesterKinds, nad: KubeObject): { vmis: string[]; vms: string[] } {
  return {
    vmis: usersOfNad(store.listShared(kinds.vmi).items, nad, ['spec']),
    vms: usersOfNad(store.listShared(kinds.vm).items, nad, ['spec', 'template', 'spec']),
  };
}

function checkNotRunning(store: StoreReader, kinds: HarvesterKinds, nad: KubeObject): void {
  const { vmis } = nadUsers(store, kinds, nad);
  if (vmis.length) throw new Error(`it's still used by VM(s) ${vmis.join(', ')} which must be stopped at first`);
}

function validateCreate(req: AdmissionRequest, kinds: HarvesterKinds, nad: KubeObject): void {
  const conf = decodeNetConf(nad);
  checkExclusiveVlan(req, kinds, nad, conf);
  checkNadConfig(req, kinds, nad, conf);
  checkRouteAnnotation(nad);
}

function validateUpdate(req: AdmissionRequest, kinds: HarvesterKinds, nad: KubeObject, old: KubeObject): void {
  const conf = decodeNetConf(nad);
  const oldConf = decodeNetConf(old);
  checkRouteAnnotation(nad);
  if (JSON.stringify(conf) === JSON.stringify(oldConf)) return; // metadata-only edits pass
  checkExclusiveVlan(req, kinds, nad, conf);
  if (isOverlayType(conf) !== isOverlayType(oldConf)) {
    throw new Error(`nad cannot be updated from network type ${oldConf.type ?? ''} to network type ${conf.type ?? ''}`);
  }
  if (isBridgeType(conf) && conf.bridge !== oldConf.bridge) throw new Error(`nad bridge name can't be changed from ${oldConf.bridge ?? ''} to ${conf.bridge ?? ''}`);
  checkNadConfig(req, kinds, nad, conf);
  checkNotRunning(req.store, kinds, old);
  if (isSystemNetworkNad(old)) throw new Error("system network nad's params can't be changed");
}

function validateDelete(req: AdmissionRequest, kinds: HarvesterKinds, old: KubeObject): void {
  let conf: NetConf;
  try {
    conf = decodeNetConf(old);
  } catch (err) {
    // Upstream wraps a decode failure on delete with the update wording.
    throw denyInternalError(NETWORK_VALIDATOR, `can't update nad ${old.metadata.namespace}/${old.metadata.name} because ${(err as Error).message}`);
  }
  if (isOverlayType(conf)) return; // kube-ovn is not enabled here
  checkNotRunning(req.store, kinds, old);
  const { vms } = nadUsers(req.store, kinds, old);
  if (vms.length) throw new Error(`it's still used by VM(s) ${vms.join(', ')} which must remove the related networks and interfaces`);
}

function validate(req: AdmissionRequest, kinds: HarvesterKinds): void {
  if (req.subresource) return;
  const target = req.operation === 'DELETE' ? req.oldObject : req.object;
  if (!target) return;
  if (req.operation === 'UPDATE' && isDeleting(target)) return;
  wrapped(NETWORK_VALIDATOR, verbOf(req.operation), target, () => {
    if (req.operation === 'CREATE') validateCreate(req, kinds, target);
    else if (req.operation === 'UPDATE') validateUpdate(req, kinds, target, req.oldObject!);
    else validateDelete(req, kinds, target);
  });
}

/** The labels the mutator (on update) and the controller (always) keep on a bridge NAD (nad.go:526-562). */
export function networkLabels(store: StoreReader, kinds: HarvesterKinds, nad: KubeObject, conf: NetConf): Record<string, string> {
  const labels = { ...(nad.metadata.labels ?? {}) };
  const cnName = clusterNetworkOfBridge(conf);
  labels[LABEL_CLUSTER_NETWORK] = cnName;
  labels[LABEL_NETWORK_TYPE] = networkTypeOf(conf);
  if (labels[LABEL_NETWORK_TYPE] === 'L2VlanNetwork') labels[LABEL_VLAN_ID] = String(conf.vlan);
  else delete labels[LABEL_VLAN_ID];
  const cn = store.get(kinds.clusterNetwork, undefined, cnName);
  const ready = (field<{ type?: string; status?: string }[]>(cn, 'status', 'conditions') ?? []).find((c) => c.type === 'ready');
  labels[LABEL_NETWORK_READY] = ready?.status === 'True' ? 'true' : 'false';
  return labels;
}

/** mutator.go tagRouteOutdated: a vlan or mode change marks an auto route outdated; a vlan changed to 0 drops the route. */
function mutateRoute(nad: KubeObject, old: KubeObject, conf: NetConf, oldConf: NetConf): void {
  const annotations = nad.metadata.annotations;
  const raw = annotations?.[ANN_NETWORK_ROUTE];
  if (!annotations || raw === undefined) return;
  let route: RouteConf;
  try {
    route = JSON.parse(raw) as RouteConf;
  } catch (err) {
    throw new Error(`unmarshal ${raw} failed, error: ${(err as Error).message}`);
  }
  const oldRaw = old.metadata.annotations?.[ANN_NETWORK_ROUTE];
  const oldMode = oldRaw ? (JSON.parse(oldRaw) as { mode?: string }).mode : undefined;
  // Only the `vlan` field counts (tagRouteOutdated compares oldConf.Vlan and newConf.Vlan): a trunk change alone
  // leaves the route alone, and a new vlan of 0 (untagged, or a trunk) drops it.
  const vlanChanged = (conf.vlan ?? 0) !== (oldConf.vlan ?? 0);
  if (vlanChanged && !conf.vlan) {
    delete annotations[ANN_NETWORK_ROUTE];
  } else if (vlanChanged || (oldMode !== undefined && oldMode !== route.mode)) {
    annotations[ANN_NETWORK_ROUTE] = JSON.stringify({ ...route, outdated: route.mode === 'auto' });
  }
}

/** patchMTU (create): a bridge NAD's config gets its cluster network's MTU when it differs. */
function mutateCreate(req: AdmissionRequest, kinds: HarvesterKinds, nad: KubeObject): void {
  const conf = decodeNetConf(nad);
  if (isOverlayType(conf)) return;
  const cn = clusterNetworkFor(req.store, kinds, conf);
  const mtu = clusterNetworkMtu(req.store, kinds, cn, nad.metadata.labels?.[LABEL_CLUSTER_NETWORK] ?? '');
  if (sameMtu(conf.mtu ?? 0, mtu)) return;
  const config = JSON.parse(String(field(nad, 'spec', 'config'))) as Record<string, unknown>;
  config.mtu = mtu;
  (nad.spec as Record<string, unknown>).config = JSON.stringify(config);
}

function mutate(req: AdmissionRequest, kinds: HarvesterKinds): void {
  const nad = req.object;
  if (!nad || req.subresource || req.operation === 'DELETE' || isDeleting(nad)) return;
  wrapped(NETWORK_MUTATOR, verbOf(req.operation), nad, () => {
    if (req.operation === 'CREATE') return mutateCreate(req, kinds, nad);
    const conf = decodeNetConf(nad);
    if (isOverlayType(conf)) return;
    nad.metadata.labels = networkLabels(req.store, kinds, nad, conf);
    mutateRoute(nad, req.oldObject!, conf, decodeNetConf(req.oldObject!));
  });
}

/** Harvester's own check: a NAD a storage-network or rwx-network Setting names cannot be deleted (400). */
function validateSettingUse(req: AdmissionRequest, kinds: HarvesterKinds): void {
  const nad = req.oldObject;
  if (req.operation !== 'DELETE' || !nad) return;
  const key = `${nad.metadata.namespace}/${nad.metadata.name}`;
  for (const [setting, annotation] of [['storage-network', `${ANN_STORAGE_NETWORK}/net-attach-def`], ['rwx-network', 'rwx-network.settings.harvesterhci.io/net-attach-def']]) {
    if (req.store.get(kinds.setting, undefined, setting)?.metadata.annotations?.[annotation] === key) {
      throw webhookDenial(HARVESTER_VALIDATOR, 400, 'BadRequest', `cannot delete NetworkAttachmentDefinition ${key} which is used by Harvester setting '${setting}'`, {});
    }
  }
}

/** The NAD webhooks, mutator first. */
export function networkAttachmentDefinitionWebhooks(kinds: HarvesterKinds): AdmissionHook[] {
  const resources = ['network-attachment-definitions.k8s.cni.cncf.io'];
  return [
    { name: NETWORK_MUTATOR, resources, mutate: (req) => mutate(req, kinds) },
    { name: NETWORK_VALIDATOR, resources, validate: (req) => validate(req, kinds) },
    { name: HARVESTER_VALIDATOR, resources, validate: (req) => validateSettingUse(req, kinds) },
  ];
}
