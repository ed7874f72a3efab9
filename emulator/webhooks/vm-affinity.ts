/**
 * The node-affinity part of Harvester's VirtualMachine mutator (harvester pkg/webhook/resources/virtualmachine/
 * mutator.go: patchAffinity, makeAffinityFromVMTemplate, addNodeSelectorTerms, getNodeSelectorRequirementFromNetwork;
 * the same at tags v1.6.1, v1.8.0 and master 3d63c2af1; design notes in docs/design/harvester-vms.md §"Node affinity
 * from networks"). On every create and update, whatever the VM asks for:
 * - every required rule whose key starts with `network.harvesterhci.io` or is `cpumanager` is removed, the user's
 *   own included, and a term left without rules is dropped;
 * - then, in the order of the VM's networks, `network.harvesterhci.io/<cluster network> In ["true"]` is appended
 *   to every term (one new term when there is none) for each Multus network whose NAD carries the cluster-network
 *   label; a NAD that does not exist refuses the VM (the cache's NotFound, relayed as a 500);
 * - `cpumanager In ["true"]` likewise with dedicated CPU placement;
 * - no term left: the node affinity goes (only its required part when preferred terms remain); the affinity
 *   itself is always written back, `{}` when empty.
 */
import { StoreReader } from '../api/types';
import { HarvesterKinds } from '../controllers/kinds';
import { LABEL_CLUSTER_NETWORK } from '../util/names';
import { field } from '../util/objects';
import { denyHarvesterInternal, HARVESTER_MUTATOR } from './admission';

type Obj = Record<string, unknown>;
interface Requirement {
  key: string;
  operator: string;
  values: string[];
}

/** util.NetworkGroup: a prefix, not a path segment (`network.harvesterhci.io.x` matches too). */
const NETWORK_GROUP = 'network.harvesterhci.io';
const CPU_MANAGER = 'cpumanager';

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The NAD of one VM network, as the mutator's cache answers; a name with more than one `/` is an error. */
function requirementOf(network: Obj, namespace: string, store: StoreReader, kinds: HarvesterKinds): Requirement | undefined {
  const networkName = field<string>(network, 'multus', 'networkName');
  if (!networkName) return undefined;
  const words = networkName.split('/');
  if (words.length > 2) throw denyHarvesterInternal(HARVESTER_MUTATOR, `invalid network name ${networkName}`);
  const [ns, name] = words.length === 2 ? words : [namespace, words[0]];
  const nad = store.get(kinds.nad, ns, name);
  // wrangler's generic cache: apierrors.NewNotFound with the GroupResource the controller was registered with.
  if (!nad) throw denyHarvesterInternal(HARVESTER_MUTATOR, `network-attachment-definitions.k8s.cni.cncf.io "${name}" not found`);
  const clusterNetwork = nad.metadata.labels?.[LABEL_CLUSTER_NETWORK];
  if (clusterNetwork === undefined) return undefined;
  return { key: `${NETWORK_GROUP}/${clusterNetwork}`, operator: 'In', values: ['true'] };
}

const sameRequirement = (e: unknown, r: Requirement): boolean =>
  isObj(e) && e.key === r.key && e.operator === r.operator && JSON.stringify(e.values ?? []) === JSON.stringify(r.values);

/** addNodeSelectorTerms' step for one requirement: into every term, or one new term. */
function addToTerms(terms: Obj[], requirement: Requirement): void {
  for (const term of terms) {
    const exprs = term.matchExpressions as unknown[];
    if (!exprs.some((e) => sameRequirement(e, requirement))) exprs.push({ ...requirement, values: [...requirement.values] });
  }
  if (terms.length === 0) terms.push({ matchExpressions: [{ ...requirement, values: [...requirement.values] }] });
}

/** patchAffinity on the VM template's pod spec (in place). Throws the mutator's refusals. */
export function patchAffinity(podSpec: Obj, namespace: string, dedicatedCpu: boolean, store: StoreReader, kinds: HarvesterKinds): void {
  const affinity: Obj = isObj(podSpec.affinity) ? podSpec.affinity : {};
  const nodeAffinity: Obj = isObj(affinity.nodeAffinity) ? affinity.nodeAffinity : {};
  const required: Obj = isObj(nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution) ? nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution : {};

  const terms: Obj[] = [];
  for (const term of (required.nodeSelectorTerms as unknown[] | undefined) ?? []) {
    if (!isObj(term)) continue;
    const kept = ((term.matchExpressions as unknown[] | undefined) ?? []).filter(
      (e) => !(isObj(e) && typeof e.key === 'string' && (e.key.startsWith(NETWORK_GROUP) || e.key === CPU_MANAGER)),
    );
    if (kept.length > 0) terms.push({ ...term, matchExpressions: kept });
  }

  for (const network of (podSpec.networks as unknown[] | undefined) ?? []) {
    const requirement = isObj(network) ? requirementOf(network, namespace, store, kinds) : undefined;
    if (requirement) addToTerms(terms, requirement);
  }
  if (dedicatedCpu) addToTerms(terms, { key: CPU_MANAGER, operator: 'In', values: ['true'] });

  if (terms.length > 0) {
    nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution = { ...required, nodeSelectorTerms: terms };
    affinity.nodeAffinity = nodeAffinity;
  } else if (((nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution as unknown[] | undefined) ?? []).length > 0) {
    delete nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution;
    affinity.nodeAffinity = nodeAffinity;
  } else {
    delete affinity.nodeAffinity;
  }
  podSpec.affinity = affinity;
}
