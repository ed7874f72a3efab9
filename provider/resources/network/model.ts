/**
 * The HarvesterNetwork inputs and outputs: the one source of truth (types, check, schema.json, README). A Harvester
 * VM network is a `k8s.cni.cncf.io/v1` NetworkAttachmentDefinition whose CNI config bridges VM NICs onto a cluster
 * network's bridge `<clusterNetwork>-br`, tagged with a VLAN or untagged, shaped as the Harvester UI writes it
 * (docs/design/harvester-networks.md §"The NetworkAttachmentDefinition"; harvester-network-controller
 * pkg/utils/nad.go).
 */
import { z } from 'zod';
import { connectionInputs } from '../../core/connection-inputs';
import { timeoutsInput } from '../../core/timeouts';
import { inputsFlagged } from '../../core/input-flags';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** The keys Harvester's network controller and this provider own on the NAD: user labels may not set them. */
export const RESERVED_LABEL_PREFIXES = ['network.harvesterhci.io/', 'harvester-iac.io/', 'app.kubernetes.io/managed-by'] as const;

export const routeSchema = z.strictObject({
  mode: z.enum(['auto', 'manual']).default('auto').describe(
    '"auto": Harvester learns the subnet and gateway by DHCP on the VLAN (its network controller runs a helper job) and then checks the gateway answers. ' +
      '"manual": cidr and gateway as given. Default "auto". A change updates in place (Harvester marks the old route outdated and learns again).',
  ),
  cidr: z.string().optional().describe('"manual" only: the VLAN\'s subnet, e.g. "192.168.20.0/24" (a non-zero prefix). Required for "manual".'),
  gateway: z.string().optional().describe('"manual" only: the VLAN\'s gateway IPv4 address, e.g. "192.168.20.1". Required for "manual".'),
  dhcpServer: z.string().optional().describe('"auto" only: the DHCP server to ask (route `serverIPAddr`). Default: any that answers.'),
});

/** The HarvesterNetwork inputs (zod schema). */
export const networkSchema = z.strictObject({
  ...connectionInputs,
  name: z.string().max(63).regex(DNS_LABEL, { error: 'must be a lower-case DNS label (a-z, 0-9, "-"), e.g. "vlan20"' }).meta({ replaceOnChanges: true }).describe(
    'Network name. Default: the Pulumi resource name. A change replaces the network.',
  ),
  namespace: z.string().max(63).regex(DNS_LABEL, { error: 'must be a lower-case DNS label, e.g. "default"' }).default('default').meta({ replaceOnChanges: true }).describe(
    'Namespace of the network (VMs of other namespaces may use it as "namespace/name"). Default "default". A change replaces the network.',
  ),
  description: z.string().max(1024).optional().describe('Free text shown in the Harvester UI (annotation field.cattle.io/description). Default none. A change updates in place.'),
  labels: z.record(z.string(), z.string()).default({}).describe(
    'Extra labels on the network (not network.harvesterhci.io/*, which Harvester owns, nor the provider\'s ownership labels). Default none. A change updates in place.',
  ),
  vlan: z.number().int().min(1, { error: 'must be a VLAN id 1–4094 (leave vlan out for an untagged network)' }).max(4094, { error: 'must be a VLAN id 1–4094 (leave vlan out for an untagged network)' }).optional().describe(
    'VLAN id 1–4094 the VM traffic is tagged with. Default: none, an untagged network. A change updates in place while no running VM uses the network.',
  ),
  clusterNetwork: z.string().max(12, { error: 'must be at most 12 characters (Harvester names its bridge "<clusterNetwork>-br", at most 15)' }).regex(DNS_LABEL, { error: 'must be a lower-case DNS label, e.g. "mgmt"' }).default('mgmt').meta({ replaceOnChanges: true }).describe(
    'Cluster network the VM network rides on: "mgmt" (every host\'s management uplink), or a ClusterNetwork a VlanConfig attaches hosts to. Default "mgmt". ' +
      'Harvester refuses changing the bridge in place, so a change replaces the network.',
  ),
  route: routeSchema.default({ mode: 'auto' }).describe(
    'How Harvester learns the VLAN\'s subnet and gateway (annotation network.harvesterhci.io/route; VLAN networks only). Default { mode: "auto" }. A change updates in place.',
  ),
  timeouts: timeoutsInput(
    {
      create: ['2m', 'Until Harvester\'s network controller has labelled the network (and, for an auto route, learnt it).'],
      update: ['2m', 'The same after an update.'],
      delete: ['2m', 'Until the network is gone.'],
    },
    'Bounds of every wait. Default 2m each.',
  ),
});

export type NetworkInputs = z.output<typeof networkSchema>;
export type NetworkArgs = z.input<typeof networkSchema>;

/** What Harvester's network controller reports about the route (annotation network.harvesterhci.io/route). */
export const routeStatusSchema = z.strictObject({
  mode: z.string().describe('"auto" or "manual" ("" for an untagged network, which has no route).'),
  cidr: z.string().describe('Subnet learnt by DHCP (auto) or given (manual); "" until known.'),
  gateway: z.string().describe('Gateway learnt or given; "" until known.'),
  connectivity: z.string().describe('Whether the gateway answers pings, as Harvester reports it (e.g. "true", "false"); "" until checked.'),
  outdated: z.boolean().describe('The VLAN or mode changed and Harvester has not learnt the route again yet.'),
});

/** The HarvesterNetwork outputs: the inputs (defaults applied) plus what Harvester reports. */
export const networkOutputsSchema = networkSchema.extend({
  networkType: z.string().describe('Harvester\'s network type label: "L2VlanNetwork" or "UntaggedNetwork".'),
  ready: z.boolean().describe('Harvester\'s ready label: the cluster network has hosts attached.'),
  config: z.string().describe('The CNI config as stored on the cluster (Harvester adds the cluster network\'s MTU when it is not 1500).'),
  routeStatus: routeStatusSchema.describe('The route as Harvester last reported it.'),
  drift: z.array(z.string()).describe('Differences found by the last read between the live network and the recorded inputs.'),
});
export type NetworkOutputs = z.output<typeof networkOutputsSchema>;

export const SECRET_INPUTS = inputsFlagged(networkSchema, 'secret');
export const REPLACE_INPUTS = inputsFlagged(networkSchema, 'replaceOnChanges');
export const OUTPUT_ONLY: readonly string[] = Object.keys(networkOutputsSchema.shape).filter((k) => !(k in networkSchema.shape));
