/**
 * The TopologyLabels inputs and outputs: the one source of truth. TypeScript types are inferred from them,
 * `check` validates with them, and schema.json and the docs/resources page derive from the `.describe()` texts
 * (each states the default and whether a change replaces the resource) and `.meta()` flags (`secret`,
 * `replaceOnChanges`).
 *
 * Only `topology.kubernetes.io/region` and `topology.kubernetes.io/zone` exist here: they are the host labels
 * Harvester copies onto node-driver VMIs and the Harvester cloud provider puts on guest nodes
 * (harvester/harvester#1418, docs/design/guest-cloud-provider.md §"Topology labels").
 */
import { z } from 'zod';
import { connectionInputs } from '../../core/connection-inputs';
import { LABEL_VALUE_PATTERN } from '../../client/ownership';
import { DURATION_PATTERN } from '../../await/duration';
import { inputsFlagged } from '../../core/input-flags';

/** The host label keys this resource manages, by input name. */
export const TOPOLOGY_KEYS = { region: 'topology.kubernetes.io/region', zone: 'topology.kubernetes.io/zone' } as const;
/** `region` | `zone`. */
export type TopologyKey = keyof typeof TOPOLOGY_KEYS;
/** Both keys, in a fixed order (messages and patches list region first). */
export const KEY_NAMES: readonly TopologyKey[] = ['region', 'zone'];

/** Annotation on a host naming the TopologyLabels resource that manages its region/zone labels. */
export const OWNER_ANNOTATION = 'harvester-iac.io/topology-labels-owner';
/** Annotation on a host with the values its managed keys had before we changed them (JSON; null = absent). */
export const PREVIOUS_ANNOTATION = 'harvester-iac.io/topology-labels-previous';

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const VERSION = /^v?\d+\.\d+\.\d+([-+][0-9A-Za-z.+-]*)?$/;

const labelValue = (key: TopologyKey) =>
  z.string()
    .min(1, { error: `must not be empty: name the ${key}, e.g. "${key === 'zone' ? 'us-east-1a' : 'us-east'}", or leave ${key} out to keep the host's own` })
    .max(63)
    .regex(LABEL_VALUE_PATTERN, { error: 'must be a valid label value: at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit' });

/** The labels of one host. */
export const hostTopologySchema = z.strictObject({
  region: labelValue('region').optional().describe(
    `Value of host label ${TOPOLOGY_KEYS.region}. Default: not managed (the host's own value, if any, is left alone). A change updates the host in place.`,
  ),
  zone: labelValue('zone').optional().describe(
    `Value of host label ${TOPOLOGY_KEYS.zone}. Harvester also uses zones to spread its own control plane (fewer than three distinct zones stop HA promotion). ` +
      'Default: not managed. A change updates the host in place.',
  ),
});

/** The TopologyLabels inputs (zod schema). */
export const topologyLabelsSchema = z.strictObject({
  ...connectionInputs,
  name: z.string().max(63).regex(DNS_LABEL, { error: 'must be a lower-case DNS label (a-z, 0-9, "-"), e.g. "site-topology"' })
    .meta({ replaceOnChanges: true })
    .describe(
      `Name of this set of labels, recorded on every host it manages (annotation ${OWNER_ANNOTATION}) so that no two TopologyLabels ` +
        'resources ever claim the same host. Required. A change replaces the resource (the old name restores the hosts first).',
    ),
  hosts: z.record(z.string().max(253).regex(DNS_SUBDOMAIN, { error: 'must be a Harvester host (Node) name' }), hostTopologySchema).describe(
    'Region and zone per Harvester host, by host (Node) name, e.g. { "harvester-node-0": { region: "us-east", zone: "us-east-1a" } }. ' +
      'Only region and zone exist; every other label of the host is left untouched. Each host must exist. Removing a host (or a key) ' +
      'restores what the host had before. Required. A change updates the hosts in place.',
  ),
  guestKubeconfig: z.string().min(1).optional().meta({ secret: true }).describe(
    'Kubeconfig of a guest cluster built on these hosts (by the node driver or a HarvesterMachinePool): when set, every guest node is ' +
      'mapped to its VM and host and reported with its expected and actual region/zone. Secret. Default: no guest verification.',
  ),
  guestContext: z.string().min(1).optional().describe('Context of guestKubeconfig. Default: its current-context.'),
  guestNamespace: z.string().max(63).regex(DNS_LABEL, { error: 'must be a lower-case DNS label, e.g. "default"' }).default('default').describe(
    'Harvester namespace of the guest cluster\'s VMs (the Harvester cloud provider looks each guest node up as the VM of the same name there). ' +
      'Default "default".',
  ),
  guestCloudProviderVersion: z.string().regex(VERSION, { error: 'must be a version such as "v0.2.7"' }).optional().describe(
    'Version of the Harvester cloud provider in the guest cluster. Default: read from the image of Deployment kube-system/harvester-cloud-provider ' +
      '(set it for custom installs under another name).',
  ),
  waitForGuestSync: z.boolean().default(false).describe(
    'Wait until every guest node carries its host\'s region and zone. The guest\'s RKE2 and cloud provider versions are checked first and an ' +
      'install that cannot sync is refused with the reason. Default false (report only).',
  ),
  guestSyncTimeout: z.string().regex(DURATION_PATTERN, { error: 'must be a duration such as "90s", "10m" or "1h30m"' }).default('10m').describe(
    'How long waitForGuestSync may wait before it fails with a WaitTimeout error. Default "10m".',
  ),
});

/** Inputs after defaults (what the handlers work with). */
export type TopologyLabelsInputs = z.output<typeof topologyLabelsSchema>;
/** Inputs as a program writes them. */
export type TopologyLabelsArgs = z.input<typeof topologyLabelsSchema>;
/** The managed labels of one host. */
export type HostTopology = z.output<typeof hostTopologySchema>;

const nullableValue = z.string().nullable();

/** Per host and managed key: the value before we first set it (null: the label was absent). */
export const previousValuesSchema = z.record(z.string(), z.strictObject({ region: nullableValue.optional(), zone: nullableValue.optional() }))
  .describe('Per host, the value each managed key had before this resource first set it (null: absent); delete restores these.');

/** What the guest cluster reports about one node. */
export const guestNodeStatusSchema = z.strictObject({
  name: z.string().describe('Guest node name (= VM name: the Harvester cloud provider finds the VM by it).'),
  vm: z.string().nullable().describe('The Harvester VM "namespace/name", or null when there is none.'),
  host: z.string().nullable().describe('The Harvester host the VM runs on (its VMI status.nodeName), or null when it does not run.'),
  expectedRegion: z.string().nullable().describe('The host\'s region label (null: none).'),
  expectedZone: z.string().nullable().describe('The host\'s zone label (null: none).'),
  actualRegion: z.string().nullable().describe('The guest node\'s topology.kubernetes.io/region (null: none).'),
  actualZone: z.string().nullable().describe('The guest node\'s topology.kubernetes.io/zone (null: none).'),
  inSync: z.boolean().describe('Expected and actual region and zone are equal.'),
  reason: z.string().describe('Why it is not in sync and what makes it sync (empty when in sync).'),
});

/** The TopologyLabels outputs: the inputs (defaults applied) plus what was found. */
export const topologyLabelsOutputsSchema = topologyLabelsSchema.extend({
  applied: z.record(z.string(), hostTopologySchema).describe('Per host, the values this resource last wrote (compared on delete: a value changed since is left alone).'),
  previous: previousValuesSchema,
  zones: z.array(z.string()).describe('Distinct zones over every Harvester host after the last operation.'),
  warnings: z.array(z.string()).describe('Warnings of the last operation (e.g. fewer than three zones, guest versions).'),
  drift: z.array(z.string()).describe('Differences found by the last read between the hosts and the recorded labels (one line each).'),
  guestNodes: z.array(guestNodeStatusSchema).describe('Per guest node, expected and actual region/zone (empty without guestKubeconfig).'),
  guestVersions: z.strictObject({
    rke2: z.string().nullable().describe('Lowest kubelet version among the guest nodes (e.g. v1.28.10+rke2r1).'),
    cloudProvider: z.string().nullable().describe('Harvester cloud provider version in the guest (null: unknown).'),
  }).nullable().describe('Versions found in the guest cluster (null without guestKubeconfig).'),
});

/** The TopologyLabels outputs. */
export type TopologyLabelsOutputs = z.output<typeof topologyLabelsOutputsSchema>;
/** One guest node's sync status. */
export type GuestNodeStatus = z.output<typeof guestNodeStatusSchema>;
/** Previous values per host. */
export type PreviousValues = z.output<typeof previousValuesSchema>;

/** Inputs that are secret: never quoted in errors, logs or diff details. */
export const SECRET_INPUTS = inputsFlagged(topologyLabelsSchema, 'secret');
/** Inputs whose change replaces the resource (delete first: the old one restores the hosts). */
export const REPLACE_INPUTS = inputsFlagged(topologyLabelsSchema, 'replaceOnChanges');
/** Output-only properties (never inputs). */
export const OUTPUT_ONLY: readonly string[] = Object.keys(topologyLabelsOutputsSchema.shape).filter((k) => !(k in topologyLabelsSchema.shape));
