/**
 * The HarvesterMachinePool inputs: the one source of truth. TypeScript types are inferred from it, `check`
 * validates with it, and a later issue generates schema.json and docs from the `.describe()` texts (each states the
 * default and whether a change replaces the pool) and `.meta()` flags (`secret`, `replaceOnChanges`). Defaults
 * follow docker-machine-driver-harvester (docs/design/harvester-vms.md §"Node driver defaults").
 */
import { z } from 'zod';
import { connectionInputs } from '../../core/connection-inputs';
import { LABEL_VALUE_PATTERN } from '../../client/ownership';
import { timeoutsInput } from '../../core/timeouts';
import { inputsFlagged } from '../../core/input-flags';
import { QUANTITY_PATTERN, parseQuantity } from '../../core/quantity';
import { nodeAffinitySchema, podAffinitySchema } from './affinity-schema';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const OBJECT_NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
/** `name` or `namespace/name` of an object in the Harvester cluster. */
const OBJECT_REF = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?\/)?[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
const PERCENT_OR_INT = /^\d+%$/;

/** Longest pool name: VM names are `<name>-<index>` and must stay valid 63-character hostnames. */
export const MAX_POOL_NAME = 57;

const quantity = (what: string) =>
  z.string().regex(QUANTITY_PATTERN, { error: `must be a Kubernetes quantity such as "4Gi" or "4096Mi" (${what})` })
    .refine((q) => { const v = parseQuantity(q); return v === undefined || v >= 2 ** 20; }, { error: 'must be at least 1Mi' });

const ref = (kind: string) =>
  z.string().regex(OBJECT_REF, { error: `must name a ${kind} as "name" or "namespace/name" (lower-case DNS names)` });

const waitsFor = (what: string) => `How long ${what} may take before it fails with a WaitTimeout error.`;

const intOrPercent = (fallback: number, what: string) =>
  z.union([z.number().int().min(0), z.string().regex(PERCENT_OR_INT)], {
    error: 'must be a whole number ≥ 0 or a percentage of count such as "25%"',
  }).default(fallback).describe(what);

/** One disk. The first disk boots the VM and must come from a cloud image. */
export const diskSchema = z.strictObject({
  image: ref('VirtualMachineImage').meta({ references: 'HarvesterImage' }).optional().describe(
    'VirtualMachineImage to clone, as "name" (in the pool namespace) or "namespace/name". Required on disks[0] (the boot disk); ' +
      'must be a cloud image (ISO installers are refused). Its storage class is taken from the image\'s status.storageClassName. ' +
      'A change rolls the pool.',
  ),
  size: quantity('disk size').describe('Disk size, e.g. "40Gi". Must be at least the image\'s virtual size. A change rolls the pool.'),
  bus: z.enum(['virtio', 'scsi', 'sata']).default('virtio').describe('Disk bus. Default "virtio". A change rolls the pool.'),
  storageClass: z.string().regex(OBJECT_NAME, { error: 'must be a StorageClass name' }).optional().describe(
    'StorageClass of a blank (non-image) disk. Default: the cluster\'s default StorageClass. Not allowed with `image`. A change rolls the pool.',
  ),
});

/** One network interface, bridged to a VM network (NetworkAttachmentDefinition). */
export const networkSchema = z.strictObject({
  network: ref('NetworkAttachmentDefinition').meta({ references: 'HarvesterNetwork' }).describe(
    'VM network (NetworkAttachmentDefinition) as "name" (in the pool namespace) or "namespace/name". Required. A change rolls the pool.',
  ),
  model: z.enum(['virtio', 'e1000', 'e1000e', 'ne2k_pci', 'pcnet', 'rtl8139']).default('virtio')
    .describe('NIC model. Default "virtio". A change rolls the pool.'),
  type: z.enum(['bridge', 'masquerade']).default('bridge').describe(
    'Interface binding. Default "bridge" (as the node driver); "masquerade" is refused, because KubeVirt allows it only on the pod ' +
      'network. A change rolls the pool.',
  ),
});

/** Raw Kubernetes affinity, for experts; merged with the zone term when `zones` is set. */
export const affinitySchema = z.strictObject({
  nodeAffinity: nodeAffinitySchema.optional().describe(
    'Kubernetes NodeAffinity, as in a pod spec (requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms, ' +
      'preferredDuringSchedulingIgnoredDuringExecution); misspelt fields are refused. Default none. A change rolls the pool.',
  ),
  podAffinity: podAffinitySchema.optional().describe(
    'Kubernetes PodAffinity (VMs are pods to the scheduler), as in a pod spec; misspelt fields are refused. Default none. A change rolls the pool.',
  ),
  podAntiAffinity: podAffinitySchema.optional().describe(
    'Kubernetes PodAntiAffinity, as in a pod spec; misspelt fields are refused. Default none. A change rolls the pool.',
  ),
});

/** The HarvesterMachinePool inputs (zod schema). */
export const machinePoolSchema = z.strictObject({
  ...connectionInputs,
  name: z.string().max(MAX_POOL_NAME).regex(DNS_LABEL, { error: 'must be a lower-case DNS label (a-z, 0-9, "-"), e.g. "workers"' })
    .meta({ replaceOnChanges: true })
    .describe(`Pool name; VMs are named "<name>-<index>". At most ${MAX_POOL_NAME} characters. Required. A change replaces the pool.`),
  namespace: z.string().max(63).regex(DNS_LABEL, { error: 'must be a lower-case DNS label, e.g. "default"' }).default('default')
    .meta({ replaceOnChanges: true })
    .describe('Namespace of the VMs, their cloud-init Secrets and volumes. Default "default". A change replaces the pool.'),
  count: z.number().int().min(0).default(1).describe(
    'Number of VMs. Default 1. Scaling down removes the highest indexes first; a change never replaces the pool.',
  ),
  cpu: z.number().int().min(1).default(2).describe('vCPU cores per VM. Default 2. A change rolls the pool.'),
  memory: quantity('memory').default('4Gi').describe('Memory per VM, e.g. "8Gi". Default "4Gi". A change rolls the pool.'),
  disks: z.array(diskSchema).min(1, { error: 'needs at least one disk: disks[0] is the boot disk, e.g. [{ image: "default/ubuntu-22.04-server-cloudimg", size: "40Gi" }]' })
    .describe('Disks; disks[0] boots from a cloud image. Required. A change rolls the pool.'),
  networks: z.array(networkSchema).min(1, { error: 'needs at least one network, e.g. [{ network: "default/vm-net" }]' })
    .describe('Network interfaces, in order; the first carries the address the pool waits for. Required. A change rolls the pool.'),
  sshKeys: z.array(ref('KeyPair').meta({ references: 'HarvesterKeyPair' })).default([]).describe(
    'Harvester KeyPairs ("name" or "namespace/name") whose public keys are authorised in the guests. Default none. A change rolls the pool.',
  ),
  userData: z.string().optional().meta({ secret: true }).describe(
    'cloud-init user data; must be a #cloud-config document unless guestAgent is "none". Secret: only its hash is kept in outputs. ' +
      'Default: a cloud-config that installs qemu-guest-agent. A change rolls the pool.',
  ),
  initUserData: z.string().optional().meta({ secret: true }).describe(
    'cloud-init user data of the VM that initialises a cluster (an RKE2, k3s or kubeadm first node): the first VM the pool creates when ' +
      'none of its VMs exists or is recorded gets it instead of userData; every VM made later — a scale-up, a roll, a VM healed, that ' +
      'first VM\'s own replacement — gets userData and joins. That VM is judged against initUserData: a change rolls it (its replacement ' +
      'joins), a change of userData alone does not. Secret: only its hash is kept in outputs. Default none.',
  ),
  guestCredentials: z.string().optional().meta({ secret: true }).describe(
    'The cloudInit output of a GuestClusterCredentials: its write_files (the kubeconfig of the guest\'s Harvester cloud provider and CSI driver) ' +
      'are merged into the cloud-config, so a program wires the credentials without templating user data. Secret: only its hash is kept in ' +
      'outputs. Default none. A change rolls the pool.',
  ),
  networkData: z.string().optional().meta({ secret: true }).describe(
    'cloud-init network data (YAML, version 1 or 2). Secret: only its hash is kept in outputs. Default none (DHCP). A change rolls the pool.',
  ),
  guestAgent: z.enum(['install', 'none']).default('install').describe(
    'qemu-guest-agent handling. "install" (default) merges the package and `systemctl enable --now` into the cloud-config, because ' +
      'Harvester learns a bridged VM\'s IP only from the agent. "none" leaves user data untouched (use when the image or your user data ' +
      'already runs the agent). A change rolls the pool.',
  ),
  zones: z.array(z.string().min(1).regex(LABEL_VALUE_PATTERN, { error: 'must be a valid label value, e.g. "us-east-1a"' })).default([]).describe(
    'Zones (host label topology.kubernetes.io/zone) to spread the VMs over evenly, each VM pinned by required node affinity. ' +
      'Default none (no zone pinning). A change rolls the VMs that must move.',
  ),
  affinity: affinitySchema.optional().describe(
    'Raw Kubernetes affinity for experts; replaces the driver\'s default anti-affinity and is combined with `zones`. Default: preferred ' +
      'anti-affinity across hosts, as the node driver. A change rolls the pool.',
  ),
  labels: z.record(z.string(), z.string()).default({}).describe(
    'Extra labels on each VM (and its VMI). Default none. Changes are patched in place without restarting VMs.',
  ),
  annotations: z.record(z.string(), z.string()).default({}).describe(
    'Extra annotations on each VM. Default none. Changes are patched in place without restarting VMs.',
  ),
  guestCluster: z.string().max(63).regex(LABEL_VALUE_PATTERN, { error: 'must be a valid label value' }).optional().describe(
    'Guest cluster name, written as label guestcluster.harvesterhci.io/name (with nodepool.harvesterhci.io/name) so Harvester\'s ' +
      'cloud provider and load balancer treat the VMs as guest nodes. Default none. A change rolls the pool.',
  ),
  poolName: z.string().max(63).regex(LABEL_VALUE_PATTERN, { error: 'must be a valid label value' }).optional().describe(
    'Node pool name for label nodepool.harvesterhci.io/name (written only with guestCluster). Default: `name`. A change rolls the pool.',
  ),
  guestKubeconfig: z.string().min(1).optional().meta({ secret: true }).describe(
    'Kubeconfig (YAML or a path) of the guest cluster these VMs are nodes of, each VM the Node of its name. With it, a VM leaves the ' +
      'guest before it is deleted (roll or scale-down): its Node is deleted and awaited gone — an RKE2 server\'s etcd member leaves then, ' +
      'while its replacement already serves — and a roll waits for each replacement\'s Node to be Ready before removing the next old VM. ' +
      'Without it a roll waits only for the VM to run. Secret. Not part of the diff.',
  ),
  rollingUpdate: z.strictObject({
    maxSurge: intOrPercent(1, 'VMs created above `count` while rolling (number or percentage, rounded up). Default 1.'),
    maxUnavailable: intOrPercent(0, 'VMs that may be missing below `count` while rolling (number or percentage, rounded down). Default 0.'),
  }).default({ maxSurge: 1, maxUnavailable: 0 }).describe(
    'How spec changes roll through the pool: each new VM is ready before an old one goes (with the defaults). Never replaces the pool.',
  ),
  capacityCheck: z.enum(['error', 'warn', 'off']).default('error').describe(
    'Whether check (run by preview and again by up, before any write) asks if the VMs fit: on the hosts (each VM\'s requests at the live ' +
      'overcommit-config, on the hosts its zone, affinity and networks allow, never split across hosts) and in the namespace\'s ' +
      'ResourceQuotas, at the plan\'s peak (count + maxSurge while rolling). "error" (default) refuses a certain shortfall, naming ' +
      'the zone or quota, what one VM asks and what is free; a shortfall that rests on a read the credentials may not make is only ' +
      'a warning. "warn" prints every shortfall as a warning; "off" skips the check. A snapshot: see the capacity guide for its limits. ' +
      'A change does not touch VMs.',
  ),
  volumeDeletion: z.enum(['delete', 'retain']).default('delete').describe(
    'What happens to a VM\'s volumes when the VM is removed (scale-down, rolling, destroy): "delete" (default, as the node driver) ' +
      'or "retain". A change takes effect on the next removal.',
  ),
  timeouts: timeoutsInput(
    {
      create: ['15m', waitsFor('creating the pool (every VM Running with an IPv4 address)')],
      update: ['30m', waitsFor('an update (scaling and rolling)')],
      delete: ['10m', waitsFor('destroying the pool')],
    },
    'Timeouts of create, update and delete. A change does not touch VMs.',
  ),
});

/** Inputs after defaults (what the handlers work with). */
export type MachinePoolInputs = z.output<typeof machinePoolSchema>;
/** Inputs as a program writes them (optional fields may be left out). */
export type MachinePoolArgs = z.input<typeof machinePoolSchema>;
/** One disk, after defaults. */
export type DiskInputs = z.output<typeof diskSchema>;
/** One network interface, after defaults. */
export type NetworkInputs = z.output<typeof networkSchema>;
/** Raw affinity input. */
export type AffinityInputs = z.output<typeof affinitySchema>;

/** Inputs that are secret: never quoted in errors, logs or diff details; outputs keep only a hash. */
export const SECRET_INPUTS = inputsFlagged(machinePoolSchema, 'secret');
/** Inputs whose change replaces the whole pool. */
export const REPLACE_INPUTS = inputsFlagged(machinePoolSchema, 'replaceOnChanges');
