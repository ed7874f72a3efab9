/**
 * The admission rules a HarvesterNetwork's inputs can break (harvester-network-controller pkg/webhook/nad/
 * mutator.go and validator.go; docs/design/harvester-networks.md §"NAD rules", §"NAD mutator and labels") as one
 * table, run on both sides with the same outcome: by the emulator's webhooks on the object the provider would write
 * (test/emulator/harvester-network-rules.test.ts) and by the provider's check (test/integration/network.test.ts).
 * `webhook` is the denial after `can't create nad default/n because `, and which webhook (the mutator answers first
 * for the bridge and the cluster network); `accepted` says what Harvester labels a network it admits.
 */
import type { NetworkInputs } from '../../provider/resources/network/model';

type Obj = Record<string, unknown>;

/** An object of the cluster the case needs first. */
export interface Existing {
  kind: 'clusterNetwork' | 'vlanConfig' | 'nad';
  object: Obj;
}

export interface NetworkRuleCase {
  label: string;
  existing?: Existing[];
  /** The HarvesterNetwork inputs (name "n", namespace "default"). */
  args: Obj;
  /**
   * Refused: the check failure's property and its reason (which never repeats the property); the webhook's hook and
   * reason (undefined: Harvester admits it).
   */
  refused?: { property: string; check: RegExp; webhook?: { hook: 'mutator' | 'validator'; reason: string | RegExp } };
  /** Admitted by Harvester: its ready label. */
  readyLabel?: 'true' | 'false';
}

export const clusterNetwork = (name: string): Existing => ({ kind: 'clusterNetwork', object: { apiVersion: 'network.harvesterhci.io/v1beta1', kind: 'ClusterNetwork', metadata: { name } } });
export const vlanConfig = (name: string, cn: string, nodeSelector: Record<string, string>): Existing => ({
  kind: 'vlanConfig',
  object: { apiVersion: 'network.harvesterhci.io/v1beta1', kind: 'VlanConfig', metadata: { name }, spec: { clusterNetwork: cn, nodeSelector, uplink: { nics: ['eth1'] } } },
});
const storageNetwork: Existing = {
  kind: 'nad',
  object: {
    apiVersion: 'k8s.cni.cncf.io/v1',
    kind: 'NetworkAttachmentDefinition',
    metadata: { name: 'storagenetwork-x', namespace: 'harvester-system', annotations: { 'storage-network.settings.harvesterhci.io': 'true' }, labels: { 'storage-network.settings.harvesterhci.io/exclusivevlan': 'true' } },
    spec: { config: '{"cniVersion":"0.3.1","type":"bridge","bridge":"mgmt-br","vlan":2011,"ipam":{}}' },
  },
};

export const NETWORK_RULE_CASES: NetworkRuleCase[] = [
  { label: 'a VLAN network on mgmt', args: { vlan: 20 }, readyLabel: 'true' },
  { label: 'an untagged network on mgmt', args: {}, readyLabel: 'true' },
  { label: 'a manual route', args: { vlan: 21, route: { mode: 'manual', cidr: '10.21.0.0/24', gateway: '10.21.0.1' } }, readyLabel: 'true' },
  {
    label: 'a cluster network a VlanConfig attaches a host to',
    existing: [clusterNetwork('data'), vlanConfig('data-hosts', 'data', { 'kubernetes.io/hostname': 'harvester-node-1' })],
    args: { vlan: 22, clusterNetwork: 'data' },
    readyLabel: 'true',
  },
  { label: 'VLAN 4095', args: { vlan: 4095 }, refused: { property: 'vlan', check: /^must be a VLAN id 1–4094/, webhook: { hook: 'validator', reason: 'vlan 4095 is out of range [0 .. 4094]' } } },
  {
    label: 'a cluster network name longer than 12 (its bridge name is over 15)',
    args: { vlan: 20, clusterNetwork: 'storage-fast1' },
    refused: { property: 'clusterNetwork', check: /^must be at most 12 characters \(Harvester names its bridge/, webhook: { hook: 'mutator', reason: "the length of the bridge name storage-fast1-br can't be more than 15" } },
  },
  {
    label: 'a cluster network that does not exist',
    args: { vlan: 20, clusterNetwork: 'absent' },
    refused: { property: 'clusterNetwork', check: /^ClusterNetwork absent does not exist .*create it and a VlanConfig attaching hosts, or use "mgmt"/, webhook: { hook: 'mutator', reason: /^nad refers to a none-existing cluster network absent or error / } },
  },
  {
    // Harvester admits it, labelled not ready: no VM could be scheduled on it, so check refuses it at preview.
    label: 'a cluster network no host is attached to',
    existing: [clusterNetwork('idle'), vlanConfig('idle-none', 'idle', { 'kubernetes.io/hostname': 'no-such-host' })],
    args: { vlan: 20, clusterNetwork: 'idle' },
    refused: { property: 'clusterNetwork', check: /^no host is attached to ClusterNetwork idle .*add a VlanConfig with the hosts' uplink NICs, or use "mgmt"/ },
    readyLabel: 'false',
  },
  {
    label: 'a manual route with a zero-prefix CIDR',
    args: { vlan: 20, route: { mode: 'manual', cidr: '10.0.0.0/0', gateway: '10.0.0.1' } },
    refused: { property: 'route.cidr', check: /^"10\.0\.0\.0\/0" is not an IPv4 CIDR with a non-zero prefix .*e\.g\. "192\.168\.20\.0\/24"/, webhook: { hook: 'validator', reason: 'the CIDR 10.0.0.0/0 is invalid' } },
  },
  {
    label: 'a manual route with a gateway that is not an address',
    args: { vlan: 20, route: { mode: 'manual', cidr: '10.0.0.0/24', gateway: '10.0.0' } },
    refused: { property: 'route.gateway', check: /^"10\.0\.0" is not an IPv4 address .*e\.g\. "192\.168\.20\.1"/, webhook: { hook: 'validator', reason: 'the gateway 10.0.0 is invalid' } },
  },
  {
    label: "the storage network's exclusive VLAN",
    existing: [storageNetwork],
    args: { vlan: 2011 },
    refused: { property: 'vlan', check: /^2011 is exclusively reserved for the storage network \(harvester-system\/storagenetwork-x\).*choose another VLAN/, webhook: { hook: 'validator', reason: 'vlan 2011 is exclusively reserved for storage network' } },
  },
];

/** The inputs with the model's defaults, written without the model's own checks (what a client bypassing check would send). */
export function unchecked(args: Obj): NetworkInputs {
  return { name: 'n', namespace: 'default', labels: {}, clusterNetwork: 'mgmt', route: { mode: 'auto' }, timeouts: { create: '5s', update: '5s', delete: '5s' }, ...args } as NetworkInputs;
}
