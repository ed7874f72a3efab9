/**
 * harvester-network-controller's view of a NAD (pkg/utils/nad.go, bridge.go, vlan.go, mtu.go): the CNI config
 * decoded as Go would (keys match case-insensitively, an empty config is a zero value), its rules, the labels
 * the controller derives from it, the route annotation, system-network NADs and the MTU of a cluster network.
 * Shared by the NAD webhook (webhooks/network-attachment-definition.ts) and the network controller.
 * Messages are upstream's, Go verbs filled in.
 */
import { KubeObject, StoreReader } from '../api/types';
import { HarvesterKinds } from './kinds';
import {
  ANN_MATCHED_NODES, ANN_RWX_NETWORK, ANN_STORAGE_NETWORK, ANN_UPLINK_MTU, LABEL_CLUSTER_NETWORK, LABEL_WITNESS_NODE,
} from '../util/names';
import { field, isDeleting } from '../util/objects';

export interface TrunkItem { minID?: number; maxID?: number; id?: number }

export interface NetConf {
  type?: string;
  bridge?: string;
  vlan?: number;
  mtu?: number;
  provider?: string;
  vlanTrunk?: TrunkItem[];
}

const KNOWN: Record<string, keyof NetConf> = { type: 'type', bridge: 'bridge', vlan: 'vlan', mtu: 'mtu', provider: 'provider', vlantrunk: 'vlanTrunk' };
const TRUNK_KNOWN: Record<string, keyof TrunkItem> = { minid: 'minID', maxid: 'maxID', id: 'id' };
const INT_FIELDS = new Set(['vlan', 'mtu', 'minID', 'maxID', 'id']);

function goInt(key: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new Error(`json: cannot unmarshal ${typeof value === 'number' ? 'number' : typeof value} into Go struct field NetConf.${key} of type int`);
  }
  return value;
}

function pick<T extends object>(raw: Record<string, unknown>, known: Record<string, keyof T>): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) {
    const name = known[k.toLowerCase()] as string | undefined;
    if (name === undefined || v === null) continue;
    out[name] = INT_FIELDS.has(name) ? goInt(name, v) : v;
  }
  return out as T;
}

/** Decodes `spec.config` (N1). An empty config decodes to a zero value without error (nad.go:609-620). */
export function decodeNetConf(nad: KubeObject): NetConf {
  const config = String(field(nad, 'spec', 'config') ?? '');
  if (config === '') return {};
  try {
    const raw = JSON.parse(config) as unknown;
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new Error('json: cannot unmarshal into Go value of type utils.NetConf');
    const conf = pick<NetConf>(raw as Record<string, unknown>, KNOWN);
    if (conf.vlanTrunk !== undefined) {
      if (!Array.isArray(conf.vlanTrunk)) throw new Error('json: cannot unmarshal into Go struct field NetConf.vlanTrunk of type []utils.VlanTrunk');
      conf.vlanTrunk = conf.vlanTrunk.map((t) => pick<TrunkItem>((t ?? {}) as Record<string, unknown>, TRUNK_KNOWN));
    }
    return conf;
  } catch (err) {
    throw new Error(`failed to unmarshal nad ${nad.metadata.namespace}/${nad.metadata.name} config ${config} ${(err as Error).message}`);
  }
}

export const isBridgeType = (conf: NetConf): boolean => conf.type === undefined || conf.type === '' || conf.type === 'bridge';
export const isOverlayType = (conf: NetConf): boolean => conf.type === 'kube-ovn';

const VLAN_MAX = 4094;
const inTrunkRange = (v: number): boolean => v >= 1 && v <= VLAN_MAX;

/** N12-N14 (bridge.go IsBridgeNameValid). */
export function checkBridgeName(bridge: string): void {
  if (bridge.length <= 3) throw new Error(`the length of bridge name ${bridge} is less than 3`);
  if (bridge.length > 15) throw new Error(`the length of the bridge name ${bridge} can't be more than 15`);
  if (!bridge.endsWith('-br')) throw new Error(`the bridge name ${bridge} does not include suffix -br`);
}

/** The ClusterNetwork a bridge NAD rides on: its bridge name without `-br` (N12-N14 first). */
export function clusterNetworkOfBridge(conf: NetConf): string {
  const bridge = conf.bridge ?? '';
  checkBridgeName(bridge);
  return bridge.slice(0, -3);
}

/** N7-N11: vlan range, trunk exclusivity and trunk items (nad.go:349-391). */
export function checkVlan(conf: NetConf): void {
  const vlan = conf.vlan ?? 0;
  if (vlan < 0 || vlan > VLAN_MAX) throw new Error(`vlan ${vlan} is out of range [0 .. ${VLAN_MAX}]`);
  const trunk = conf.vlanTrunk ?? [];
  if (trunk.length === 0) return;
  if (vlan !== 0) throw new Error('vlan can only be 0 when vlanTrunk is set');
  for (const t of trunk) {
    if (t.minID === undefined && t.maxID === undefined && t.id === undefined) throw new Error('all fields in this VlanTrunk are empty');
    if (t.minID !== undefined && t.maxID !== undefined) {
      if (!inTrunkRange(t.minID)) throw new Error(`incorrect trunk minID parameter ${t.minID}`);
      if (!inTrunkRange(t.maxID)) throw new Error(`incorrect trunk maxID parameter ${t.maxID}`);
      if (t.minID > t.maxID) throw new Error(`minID ${t.minID} is greater than maxID ${t.maxID} in trunk parameter`);
    } else if (t.maxID !== undefined) {
      throw new Error('minID and maxID should be configured simultaneously, minID is missing');
    } else if (t.minID !== undefined) {
      throw new Error('minID and maxID should be configured simultaneously, maxID is missing');
    }
    if (t.id !== undefined && !inTrunkRange(t.id)) throw new Error(`incorrect trunk id parameter ${t.id}`);
  }
}

/** Every VLAN id the config carries (the vlan, or the trunk's ids and ranges). */
export function vlanIdsOf(conf: NetConf): number[] {
  const out: number[] = [];
  if (conf.vlan) out.push(conf.vlan);
  for (const t of conf.vlanTrunk ?? []) {
    if (t.id !== undefined) out.push(t.id);
    if (t.minID !== undefined && t.maxID !== undefined) for (let v = t.minID; v <= t.maxID && v - t.minID < VLAN_MAX; v++) out.push(v);
  }
  return out;
}

/** The `network.harvesterhci.io/type` label value (nad.go:44-53). */
export function networkTypeOf(conf: NetConf): string {
  if (isOverlayType(conf)) return 'OverlayNetwork';
  if ((conf.vlanTrunk ?? []).length > 0) return 'L2VlanTrunkNetwork';
  return conf.vlan ? 'L2VlanNetwork' : 'UntaggedNetwork';
}

/** The route annotation (nad.go:57-64). */
export interface RouteConf { mode?: string; serverIPAddr?: string; cidr?: string; gateway?: string; connectivity?: string; outdated?: boolean }

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** N19 (nad.go:66-95): the route annotation must parse, with mode auto or manual (then a CIDR with a non-zero mask and a gateway IP). */
export function parseRoute(value: string): RouteConf {
  let route: RouteConf;
  try {
    route = JSON.parse(value) as RouteConf;
    if (!route || typeof route !== 'object') throw new Error('json: cannot unmarshal into Go value of type utils.Layer3NetworkConf');
  } catch (err) {
    throw new Error(`unmarshal ${value} faield, error: ${(err as Error).message}`);
  }
  if (route.mode === 'auto') return route;
  if (route.mode !== 'manual') throw new Error(`unknown mode ${route.mode ?? ''}`);
  const cidr = route.cidr ?? '';
  const [ip, mask] = cidr.split('/');
  if (!IPV4.test(ip ?? '') || !/^\d+$/.test(mask ?? '') || Number(mask) < 1 || Number(mask) > 32) throw new Error(`the CIDR ${cidr} is invalid`);
  if (!IPV4.test(route.gateway ?? '')) throw new Error(`the gateway ${route.gateway ?? ''} is invalid`);
  return route;
}

/** IsSystemNetworkNad (nad.go:633-647): a storage- or rwx-network NAD in harvester-system. */
export function isSystemNetworkNad(nad: KubeObject | undefined): boolean {
  if (!nad || nad.metadata.namespace !== 'harvester-system') return false;
  const ann = nad.metadata.annotations ?? {};
  const name = String(nad.metadata.name);
  return ann[ANN_STORAGE_NETWORK] === 'true' || name.startsWith('storagenetwork-') || ann[ANN_RWX_NETWORK] === 'true' || name.startsWith('rwx-network-');
}

export const DEFAULT_MTU = 1500;
export const MIN_MTU = 576;
export const MAX_MTU = 9000;

/** mtu.go GetMTUFromString: an integer 0 or 576..9000 (0 means the default). */
export function parseMtu(value: string): number {
  if (!/^-?\d+$/.test(value.trim())) throw new Error(`value ${value} is not an integer: strconv.Atoi: parsing "${value}": invalid syntax`);
  const mtu = Number(value);
  if (mtu !== 0 && (mtu < MIN_MTU || mtu > MAX_MTU)) throw new Error(`value ${value} is not in range [0, ${MIN_MTU}..${MAX_MTU}]`);
  return mtu;
}

export const sameMtu = (a: number, b: number): boolean => (a || DEFAULT_MTU) === (b || DEFAULT_MTU);

/** VlanConfigs attached to a cluster network (labelled with it, not being deleted). */
export function vlanConfigsOf(store: StoreReader, kinds: HarvesterKinds, clusterNetwork: string): KubeObject[] {
  return store.listShared(kinds.vlanConfig).items.filter((vc) => vc.metadata.labels?.[LABEL_CLUSTER_NETWORK] === clusterNetwork && !isDeleting(vc));
}

/**
 * N17/N18: a cluster network's MTU — its `uplink-mtu` annotation, else the first VlanConfig labelled with
 * `labelValue` (the NAD's label), else 1500. Throws N17's message when the annotation does not parse.
 */
export function clusterNetworkMtu(store: StoreReader, kinds: HarvesterKinds, cn: KubeObject, labelValue: string): number {
  const annotation = cn.metadata.annotations?.[ANN_UPLINK_MTU];
  if (annotation !== undefined) {
    try {
      return parseMtu(annotation);
    } catch (err) {
      throw new Error(`nad's host cluster network ${cn.metadata.name} has invalid MTU annotation ${ANN_UPLINK_MTU}/${annotation} ${(err as Error).message}`);
    }
  }
  const vc = labelValue ? vlanConfigsOf(store, kinds, labelValue)[0] : undefined;
  return Number(field(vc, 'spec', 'uplink', 'linkAttributes', 'mtu') ?? 0) || DEFAULT_MTU;
}

/** GetMatchNodes: the matched-nodes annotation as a set (absent/empty: none; not JSON: VC7's error). */
export function matchedNodesOf(vc: KubeObject | undefined): string[] {
  const raw = vc?.metadata.annotations?.[ANN_MATCHED_NODES];
  if (!raw) return [];
  const parsed = JSON.parse(raw) as unknown;
  if (!Array.isArray(parsed)) throw new Error(`json: cannot unmarshal ${typeof parsed} into Go value of type []string`);
  return parsed.map(String);
}

/** Hosts a VlanConfig's nodeSelector matches, witness nodes excluded (vlanconfig mutator). */
export function nodesMatching(store: StoreReader, kinds: HarvesterKinds, vc: KubeObject): string[] {
  const selector = field<Record<string, string>>(vc, 'spec', 'nodeSelector') ?? {};
  return store
    .listShared(kinds.node)
    .items.filter((n) => n.metadata.labels?.[LABEL_WITNESS_NODE] === undefined)
    .filter((n) => Object.entries(selector).every(([k, v]) => n.metadata.labels?.[k] === v))
    .map((n) => String(n.metadata.name))
    .sort();
}

/** `ns/name` of the VMIs (N22) or VM templates (N23) whose multus networks name the NAD (`ns/name`, or `name` in its namespace). */
export function usersOfNad(objects: KubeObject[], nad: KubeObject, specPath: string[]): string[] {
  const ns = nad.metadata.namespace ?? '';
  const key = `${ns}/${nad.metadata.name}`;
  return objects
    .filter((o) =>
      (field<Record<string, unknown>[]>(o, ...specPath, 'networks') ?? []).some((n) => {
        const name = field<string>(n, 'multus', 'networkName');
        return name === key || (name === nad.metadata.name && o.metadata.namespace === ns);
      }),
    )
    .map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
}
