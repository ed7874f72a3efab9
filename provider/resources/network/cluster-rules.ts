/**
 * What Harvester would refuse of a VM network because of other objects, found at preview
 * (docs/design/harvester-networks.md): a cluster network that does not exist (N16) or that no host is attached to
 * (no VlanConfig of it matches a host: no VM could run on the network), a VLAN reserved by the storage network
 * (N2), and a VLAN change while VMs run on the network (N22).
 */
import type { HarvesterClient } from '../../client/harvester-client';
import type { NetworkAttachmentDefinition, VlanConfig } from '../../client/objects';
import type { CheckFailure } from '../../core/types';
import type { NetworkInputs } from './model';
import { liveConfig, liveInputs } from './plan';
import { networkUsers } from './users';
import { failure as fail } from '../../core/input-errors';

const EXCLUSIVE_VLAN = 'storage-network.settings.harvesterhci.io/exclusivevlan';
const MATCHED_NODES = 'network.harvesterhci.io/matched-nodes';

/** The hosts the VlanConfigs of a cluster network attach (their matched-nodes annotation, written by Harvester's webhook). */
export function attachedHosts(vlanConfigs: VlanConfig[], clusterNetwork: string): string[] {
  const hosts = new Set<string>();
  for (const vc of vlanConfigs.filter((v) => v.spec?.clusterNetwork === clusterNetwork && !v.metadata.deletionTimestamp)) {
    try {
      const nodes = JSON.parse(vc.metadata.annotations?.[MATCHED_NODES] || '[]') as unknown;
      if (Array.isArray(nodes)) for (const n of nodes) hosts.add(String(n));
    } catch {
      // an unreadable annotation attaches nothing (Harvester's GetMatchNodes fails on it too)
    }
  }
  return [...hosts].sort();
}

async function clusterNetworkFailures(inputs: NetworkInputs, client: HarvesterClient): Promise<CheckFailure[]> {
  const cn = inputs.clusterNetwork;
  if (cn === 'mgmt') return []; // every host is on the management network from installation
  if (!(await client.clusterNetworks.get(cn))) {
    return [fail('clusterNetwork', `ClusterNetwork ${cn} does not exist (Harvester refuses a network on it: "nad refers to a none-existing cluster network ${cn}"): create it and a VlanConfig attaching hosts, or use "mgmt"`)];
  }
  if (attachedHosts((await client.vlanConfigs.list({})).items, cn).length === 0) {
    return [fail('clusterNetwork', `no host is attached to ClusterNetwork ${cn} (no VlanConfig of it matches a host), so no VM could run on this network: add a VlanConfig with the hosts' uplink NICs, or use "mgmt"`)];
  }
  return [];
}

async function vlanFailures(inputs: NetworkInputs, client: HarvesterClient, ours: NetworkAttachmentDefinition | undefined): Promise<CheckFailure[]> {
  const out: CheckFailure[] = [];
  if (inputs.vlan) {
    const reserved = (await client.networks.list({ labelSelector: `${EXCLUSIVE_VLAN}=true` })).items.find((n) => liveConfig(n).vlan === inputs.vlan);
    if (reserved) {
      out.push(fail('vlan', `${inputs.vlan} is exclusively reserved for the storage network (${reserved.metadata.namespace}/${reserved.metadata.name}); Harvester refuses other networks on it: choose another VLAN`));
    }
  }
  if (ours && liveInputs(ours).vlan !== inputs.vlan) {
    const { running } = await networkUsers(client, ours);
    if (running.length) {
      out.push(fail('vlan', `VM network ${inputs.namespace}/${inputs.name} is used by running VM(s) ${running.join(', ')}; Harvester refuses changing its VLAN while they run: stop them first`));
    }
  }
  return out;
}

/** Every refusal of the rules above; `ours` is the live network when it is this resource's. */
export async function networkRefusals(client: HarvesterClient, inputs: NetworkInputs, ours: NetworkAttachmentDefinition | undefined): Promise<CheckFailure[]> {
  return [...(await clusterNetworkFailures(inputs, client)), ...(await vlanFailures(inputs, client, ours))];
}
