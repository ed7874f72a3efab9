/**
 * The network webhook's ClusterNetwork validator and VlanConfig mutator/validator
 * (harvester-network-controller pkg/webhook/clusternetwork/validator.go, pkg/webhook/vlanconfig/;
 * docs/design/harvester-networks.md §"ClusterNetwork rules", §"VlanConfig rules"). Every denial is a 500
 * `Internal error occurred: can't <verb> cluster network|vlanConfig <name> because …`.
 */
import { AdmissionHook, AdmissionRequest, KubeObject, StoreReader } from '../api/types';
import { HarvesterKinds } from '../controllers/kinds';
import { isSystemNetworkNad, matchedNodesOf, nodesMatching, parseMtu, sameMtu, vlanConfigsOf, DEFAULT_MTU, MAX_MTU, MIN_MTU } from '../controllers/netconf';
import { ANN_MATCHED_NODES, ANN_UPLINK_MTU, LABEL_CLUSTER_NETWORK, MGMT_CLUSTER_NETWORK, NETWORK_CONTROLLER_USER } from '../util/names';
import { annotationsOf, field, isDeleting, labelsOf } from '../util/objects';
import { denyInternalError } from './admission';
import { NETWORK_MUTATOR, NETWORK_VALIDATOR, nadUsers } from './network-attachment-definition';

const MAX_CN_NAME = 12;
const verbOf = (op: AdmissionRequest['operation']): string => (op === 'CREATE' ? 'create' : op === 'UPDATE' ? 'update' : 'delete');

function denyAs(hook: string, what: string, verb: string, name: string, run: () => void): void {
  try {
    run();
  } catch (err) {
    throw denyInternalError(hook, `can't ${verb} ${what} ${name} because ${(err as Error).message}`);
  }
}

function checkCnName(name: string): void {
  if (name.length > MAX_CN_NAME) throw new Error(`the length of the clusterNetwork name ${name} is more than ${MAX_CN_NAME}`);
}

const nadsOf = (store: StoreReader, kinds: HarvesterKinds, cn: string): KubeObject[] =>
  store.listShared(kinds.nad).items.filter((n) => n.metadata.labels?.[LABEL_CLUSTER_NETWORK] === cn);

const activeSystemNad = (store: StoreReader, kinds: HarvesterKinds, cn: string): KubeObject | undefined =>
  nadsOf(store, kinds, cn).find((n) => isSystemNetworkNad(n) && !isDeleting(n));

/** VMIs using any NAD of the cluster network (optionally only on the given hosts). */
function vmisOn(store: StoreReader, kinds: HarvesterKinds, cn: string, hosts?: string[]): string[] {
  const users = new Set(nadsOf(store, kinds, cn).flatMap((nad) => nadUsers(store, kinds, nad).vmis));
  return store
    .listShared(kinds.vmi)
    .items.filter((vmi) => users.has(`${vmi.metadata.namespace}/${vmi.metadata.name}`))
    .filter((vmi) => !hosts || hosts.includes(String(field(vmi, 'status', 'nodeName') ?? '')))
    .map((vmi) => `${vmi.metadata.namespace}/${vmi.metadata.name}`);
}

function validateClusterNetwork(req: AdmissionRequest, kinds: HarvesterKinds): void {
  const cn = req.operation === 'DELETE' ? req.oldObject : req.object;
  if (!cn || req.subresource || (req.operation === 'UPDATE' && isDeleting(cn))) return;
  const name = String(cn.metadata.name);
  denyAs(NETWORK_VALIDATOR, 'cluster network', verbOf(req.operation), name, () => {
    if (req.operation === 'CREATE') {
      checkCnName(name); // C1
      if (cn.metadata.annotations?.[ANN_UPLINK_MTU] !== undefined) throw new Error(`annotation ${ANN_UPLINK_MTU} can't be added`); // C2
    } else if (req.operation === 'UPDATE') {
      const raw = cn.metadata.annotations?.[ANN_UPLINK_MTU];
      const mtu = raw === undefined ? DEFAULT_MTU : parseMtu(raw);
      if (name !== MGMT_CLUSTER_NETWORK) {
        for (const vc of vlanConfigsOf(req.store, kinds, name)) {
          const vcMtu = Number(field(vc, 'spec', 'uplink', 'linkAttributes', 'mtu') ?? 0);
          if (!sameMtu(mtu, vcMtu)) throw new Error(`clusternetwork has MTU ${mtu}, but the vlanconfigs ${vc.metadata.name} has another MTU ${vcMtu}`); // C3
        }
        return;
      }
      const oldRaw = req.oldObject?.metadata.annotations?.[ANN_UPLINK_MTU];
      const oldMtu = oldRaw === undefined ? DEFAULT_MTU : parseMtu(oldRaw);
      if (sameMtu(mtu, oldMtu)) return;
      const systemNad = activeSystemNad(req.store, kinds, name);
      if (systemNad) throw new Error(`the MTU can't be changed from ${oldMtu} to ${mtu} as nad ${systemNad.metadata.name} is still attached`); // C4 (upstream prints the name only)
      const vmis = vmisOn(req.store, kinds, name);
      if (vmis.length) throw new Error(`the MTU can't be changed from ${oldMtu} to ${mtu} as following VMs must be stopped at first: ${vmis.join(', ')}`);
    } else {
      if (name === MGMT_CLUSTER_NETWORK) throw new Error('it is not allowed'); // C6
      const vcs = vlanConfigsOf(req.store, kinds, name).map((vc) => vc.metadata.name);
      if (vcs.length) throw new Error(`vlanconfig(s) [${vcs.join(' ')}] under this clusternetwork are still existing`); // C7
      const nads = nadsOf(req.store, kinds, name).map((n) => `${n.metadata.namespace}/${n.metadata.name}`);
      if (nads.length) throw new Error(`nads(s) ${nads.join(', ')} under this clusternetwork are still existing`); // C8
    }
  });
}

/** VlanConfig mutator: the clusternetwork label and the matched-nodes annotation (not for mgmt). */
function mutateVlanConfig(req: AdmissionRequest, kinds: HarvesterKinds): void {
  const vc = req.object;
  if (!vc || req.subresource || req.operation === 'DELETE' || isDeleting(vc)) return;
  const cn = String(field(vc, 'spec', 'clusterNetwork') ?? '');
  if (cn === MGMT_CLUSTER_NETWORK) return;
  if (req.operation === 'CREATE' || field(req.oldObject, 'spec', 'clusterNetwork') !== cn) labelsOf(vc, true)[LABEL_CLUSTER_NETWORK] = cn;
  const nodes = nodesMatching(req.store, kinds, vc);
  if (nodes.length) annotationsOf(vc, true)[ANN_MATCHED_NODES] = JSON.stringify(nodes);
}

/** The hosts a VlanConfig change takes away from its cluster network (VC9). */
function affectedNodes(req: AdmissionRequest): string[] {
  const old = req.oldObject;
  const oldNodes = matchedNodesOf(old);
  if (req.operation === 'DELETE') return oldNodes;
  const vc = req.object!;
  const moved = field(old, 'spec', 'clusterNetwork') !== field(vc, 'spec', 'clusterNetwork')
    || JSON.stringify(field(old, 'spec', 'uplink')) !== JSON.stringify(field(vc, 'spec', 'uplink'));
  if (moved) return oldNodes;
  const now = new Set(matchedNodesOf(vc));
  return oldNodes.filter((n) => !now.has(n));
}

function checkVlanConfigWrite(req: AdmissionRequest, kinds: HarvesterKinds, vc: KubeObject, cn: string): void {
  if (cn !== MGMT_CLUSTER_NETWORK) {
    const mtu = Number(field(vc, 'spec', 'uplink', 'linkAttributes', 'mtu') ?? 0);
    if (mtu !== 0 && (mtu < MIN_MTU || mtu > MAX_MTU)) throw new Error(`the MTU ${mtu} is out of range [0, ${MIN_MTU}..${MAX_MTU}]`); // VC5
    for (const other of vlanConfigsOf(req.store, kinds, cn).filter((o) => o.metadata.name !== vc.metadata.name)) {
      const otherMtu = Number(field(other, 'spec', 'uplink', 'linkAttributes', 'mtu') ?? 0);
      if (!sameMtu(mtu, otherMtu)) {
        throw new Error(`the vlanconfig ${vc.metadata.name} MTU ${mtu} is different with another vlanconfig ${other.metadata.name} MTU ${otherMtu}, all vlanconfigs on one clusternetwork need to have same MTU`); // VC6
      }
    }
  }
  // VC8: a host already attached to this cluster network by another VlanConfig (its VlanStatus).
  const mine = new Set(matchedNodesOf(vc));
  const overlap = vlanConfigsOf(req.store, kinds, cn)
    .filter((o) => o.metadata.name !== vc.metadata.name)
    .flatMap((o) => matchedNodesOf(o).filter((n) => mine.has(n)));
  if (overlap.length) throw new Error(`it overlaps with other vlanconfigs matching node(s) [${[...new Set(overlap)].sort().join(' ')}]`);
}

function validateVlanConfig(req: AdmissionRequest, kinds: HarvesterKinds): void {
  const vc = req.operation === 'DELETE' ? req.oldObject : req.object;
  if (!vc || req.subresource || (req.operation === 'UPDATE' && isDeleting(vc))) return;
  const cn = String(field(vc, 'spec', 'clusterNetwork') ?? '');
  denyAs(NETWORK_VALIDATOR, 'vlanConfig', verbOf(req.operation), String(vc.metadata.name), () => {
    if (cn === MGMT_CLUSTER_NETWORK && req.user !== undefined && req.user !== NETWORK_CONTROLLER_USER) {
      throw new Error(`users can't ${verbOf(req.operation)} vlanConfig for mgmt cluster network`); // VC1
    }
    if (req.operation === 'CREATE') checkCnName(cn); // VC2
    if (req.operation === 'UPDATE') {
      const label = vc.metadata.labels?.[LABEL_CLUSTER_NETWORK];
      if (!label || label !== cn) throw new Error(`cluster network label ${label ?? ''} is invalid and must not be updated by user`); // VC3
    }
    if (req.operation !== 'DELETE') {
      if (!req.store.get(kinds.clusterNetwork, undefined, cn)) {
        throw new Error(`it refers to a none-existing cluster network ${cn} or error clusternetwork.network.harvesterhci.io "${cn}" not found`); // VC4
      }
      checkVlanConfigWrite(req, kinds, vc, cn);
    }
    if (req.operation === 'CREATE') return;
    const affected = affectedNodes(req);
    if (affected.length === 0) return;
    const oldCn = String(field(req.oldObject, 'spec', 'clusterNetwork') ?? cn);
    const vmis = vmisOn(req.store, kinds, oldCn, affected);
    if (vmis.length) throw new Error(`it is blocked by VM(s) ${vmis.join(', ')} which must be stopped at first`); // VC9
    const systemNad = activeSystemNad(req.store, kinds, oldCn);
    if (systemNad) throw new Error(`the system network nad ${systemNad.metadata.name} is still attached`); // VC10 (the name only, as upstream)
  });
}

/** ClusterNetwork and VlanConfig webhooks, mutators first. */
export function clusterNetworkWebhooks(kinds: HarvesterKinds): AdmissionHook[] {
  return [
    { name: NETWORK_MUTATOR, resources: ['vlanconfigs.network.harvesterhci.io'], mutate: (req) => mutateVlanConfig(req, kinds) },
    { name: NETWORK_VALIDATOR, resources: ['clusternetworks.network.harvesterhci.io'], validate: (req) => validateClusterNetwork(req, kinds) },
    { name: NETWORK_VALIDATOR, resources: ['vlanconfigs.network.harvesterhci.io'], validate: (req) => validateVlanConfig(req, kinds) },
  ];
}

