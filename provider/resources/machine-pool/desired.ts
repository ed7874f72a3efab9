/**
 * Pure: the objects a machine pool should consist of, from its inputs and what observe resolved from the
 * cluster (image storage classes, key pair public keys). Mirrors the VirtualMachine the node driver
 * builds (docs/design/harvester-vms.md) so Harvester's controllers and the cloud provider treat our VMs as guest
 * nodes.
 *
 * Naming: VMs `<name>-<index>`; cloud-init Secret `<vm>-cloudinit` (rendered `userdata`, `networkdata`, and the
 * userData input as written, see USER_DATA_INPUT_KEY); PVCs `<vm>-disk-<i>-<suffix>`. The PVC
 * suffix is random per VM incarnation (as the driver's), not derived from the VM name: a VM name comes back
 * after healing or scale-down/up, and a deterministic PVC name would then silently re-attach a retained (or
 * still terminating) volume of the previous VM, because Harvester only creates claims that are missing.
 */
import type { Secret, VirtualMachine } from '../../client/objects';
import { secretDigest, sha256Hex } from '../../core/hash';
import { buildAffinity } from './affinity';
import { renderUserData } from './cloud-config';
import {
  DRIVER_LABELS, HARVESTER_ANNOTATIONS, NETWORK_DATA_HASH, USER_DATA_HASH, machineLabelsOf, ownershipLabels, poolIdentity, poolSelector,
  type PoolIdentity,
} from './labels';
import type { MachinePoolInputs } from './model';
import { qualify } from '../../core/object-ref';
import { assignZones } from './zones';

/** What observe resolved from the cluster for building the VMs. */
export interface MachinePoolContext {
  /** `status.storageClassName` per image, keyed `namespace/name`. */
  imageStorageClasses: Record<string, string>;
  /** `spec.publicKey` per key pair, keyed `namespace/name`. */
  keyPairPublicKeys: Record<string, string>;
  /** PVC name suffix for a new VM; apply passes a random one. Default: derived from the VM name (tests). */
  volumeSuffix?: (vmName: string) => string;
}

/** One disk as the VM gets it. */
export interface ResolvedDisk {
  /** `disk-<i>`. */
  name: string;
  image?: string;
  size: string;
  bus: string;
  storageClassName?: string;
}

/** Everything about one VM we create. */
export interface DesiredMachine {
  name: string;
  index: number;
  zone?: string;
  vm: VirtualMachine;
  /** The cloud-init Secret; apply adds the ownerReference to the VM once the VM has a uid. */
  secret: Secret;
  claimNames: string[];
}

/** Rolling-update limits resolved to VM counts. */
export interface RollingLimits {
  maxSurge: number;
  maxUnavailable: number;
}

/** The desired pool: canonical layout plus a builder for any index/zone (the planner picks those). */
export interface DesiredPool {
  identity: PoolIdentity;
  count: number;
  zones: string[];
  rolling: RollingLimits;
  volumeDeletion: 'delete' | 'retain';
  /** Label selector of every object of the pool. */
  selector: string;
  /** Keyed digest (`hmac-sha256:<hex>`) of the rendered user data (annotation on every VM; kept in outputs). */
  cloudInitHash: string;
  /** VMs `<name>-0 … <name>-(count-1)`, zones assigned as for an empty pool. */
  machines: DesiredMachine[];
  /** Keyed digest of the rendered initUserData (the VM made from it carries it), when initUserData is set. */
  initCloudInitHash?: string;
  /**
   * build returns the desired VM for an index and zone; `claimNames` reuses a live VM's PVC names; `init` builds the
   * VM that initialises the cluster (from initUserData; ignored without it).
   */
  build(index: number, zone: string | undefined, claimNames?: string[], init?: boolean): DesiredMachine;
}

const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** suffixFrom turns any text into a 5-character name suffix from the apiserver's generateName alphabet. */
export function suffixFrom(text: string): string {
  const digest = Buffer.from(sha256Hex(text), 'hex');
  return Array.from(digest.subarray(0, 5), (b) => SUFFIX_ALPHABET[b % SUFFIX_ALPHABET.length]).join('');
}

/**
 * The cloud-init Secret's key holding the userData input as written (KubeVirt reads only `userdata` and
 * `networkdata`): refresh and import give it back as the input, since the rendered `userdata` (agent and keys
 * merged in) cannot be turned back into it. It sits in the same Secret as what it renders to, so it reveals nothing more.
 */
export const USER_DATA_INPUT_KEY = 'harvester-iac.userdata-input';

/** The cloud-init Secret's key holding the initUserData input as written, on the VM made from it (for read and import). */
export const INIT_USER_DATA_INPUT_KEY = 'harvester-iac.init-userdata-input';

/** Annotation on the VM made from initUserData (the one that initialised the cluster; every other VM joined). */
export const INIT_ANNOTATION = 'harvester-iac.io/init-user-data';

/** Whether a live VM is the one made from initUserData. */
export const isInitMachine = (vm: { metadata: { annotations?: Record<string, string> } }) => vm.metadata.annotations?.[INIT_ANNOTATION] === 'true';

/** The cloud-init Secret's key holding the guestCredentials input as written (for read and import, as USER_DATA_INPUT_KEY). */
export const GUEST_CREDENTIALS_KEY = 'harvester-iac.guest-credentials';

/** vmName returns the name of the VM at an index. */
export function vmName(poolName: string, index: number): string {
  return `${poolName}-${index}`;
}

/** cloudInitSecretName returns the name of a VM's cloud-init Secret (as the node driver names it). */
export function cloudInitSecretName(vm: string): string {
  return `${vm}-cloudinit`;
}

/** resolveRolling turns maxSurge/maxUnavailable (numbers or percentages of count) into VM counts. */
export function resolveRolling(rolling: MachinePoolInputs['rollingUpdate'], count: number): RollingLimits {
  const resolve = (v: number | string, roundUp: boolean): number => {
    if (typeof v === 'number') return v;
    const exact = (Number.parseInt(v, 10) * count) / 100;
    return roundUp ? Math.ceil(exact) : Math.floor(exact);
  };
  const maxSurge = resolve(rolling.maxSurge, true);
  const maxUnavailable = resolve(rolling.maxUnavailable, false);
  // As Kubernetes Deployments: both zero after rounding would deadlock a roll, so one VM may surge.
  return maxSurge === 0 && maxUnavailable === 0 ? { maxSurge: 1, maxUnavailable: 0 } : { maxSurge, maxUnavailable };
}

function resolveDisks(inputs: MachinePoolInputs, context: MachinePoolContext): ResolvedDisk[] {
  return inputs.disks.map((d, i) => {
    const disk: ResolvedDisk = { name: `disk-${i}`, size: d.size, bus: d.bus };
    if (d.image) {
      disk.image = qualify(d.image, inputs.namespace);
      const sc = context.imageStorageClasses[disk.image];
      if (sc === undefined) throw new Error(`desired: no storage class resolved for image ${disk.image} (disks[${i}].image)`);
      disk.storageClassName = sc;
    } else if (d.storageClass) {
      disk.storageClassName = d.storageClass;
    }
    return disk;
  });
}

function claimTemplate(disk: ResolvedDisk, claimName: string, labels: Record<string, string>): Record<string, unknown> {
  const metadata: Record<string, unknown> = { name: claimName, labels };
  if (disk.image) metadata.annotations = { [HARVESTER_ANNOTATIONS.imageId]: disk.image };
  const spec: Record<string, unknown> = {
    accessModes: ['ReadWriteMany'],
    resources: { requests: { storage: disk.size } },
    volumeMode: 'Block',
  };
  if (disk.storageClassName !== undefined) spec.storageClassName = disk.storageClassName;
  return { metadata, spec };
}

/** desiredVirtualMachines computes the desired pool from inputs (defaults applied) and the resolved context. */
export function desiredVirtualMachines(inputs: MachinePoolInputs, context: MachinePoolContext): DesiredPool {
  const identity = poolIdentity(inputs);
  const disks = resolveDisks(inputs, context);
  const sshNames = inputs.sshKeys.map((k) => qualify(k, inputs.namespace));
  const publicKeys = sshNames.map((k) => {
    const key = context.keyPairPublicKeys[k];
    if (key === undefined) throw new Error(`desired: no public key resolved for key pair ${k} (sshKeys)`);
    return key;
  });
  const userData = renderUserData({ userData: inputs.userData, guestAgent: inputs.guestAgent, sshPublicKeys: publicKeys, guestCredentials: inputs.guestCredentials });
  const salt = `${inputs.namespace}/${inputs.name}`;
  const userDataHash = secretDigest(userData, salt) as string;
  const networkDataHash = secretDigest(inputs.networkData, salt);
  const suffixOf = context.volumeSuffix ?? ((vm: string) => suffixFrom(`${inputs.namespace}/${vm}`));
  // The same for every VM of the pool: computed once, not per VM (planning builds one VM per member).
  const labelsOf = machineLabelsOf(identity);
  const ownership = ownershipLabels(identity);
  const sshNamesJson = JSON.stringify(sshNames);
  const networkNames = inputs.networks.map((n) => qualify(n.network, inputs.namespace));
  const userDataBase64 = Buffer.from(userData, 'utf8').toString('base64');
  // The initialising VM's user data: rendered the same way (agent, keys and credentials merged), hashed apart.
  const initUserData = inputs.initUserData === undefined ? undefined : renderUserData({ userData: inputs.initUserData, guestAgent: inputs.guestAgent, sshPublicKeys: publicKeys, guestCredentials: inputs.guestCredentials });
  const initUserDataHash = initUserData === undefined ? undefined : (secretDigest(initUserData, salt) as string);
  const initUserDataBase64 = initUserData === undefined ? undefined : Buffer.from(initUserData, 'utf8').toString('base64');
  const initInputBase64 = inputs.initUserData === undefined ? undefined : Buffer.from(inputs.initUserData, 'utf8').toString('base64');
  const networkDataBase64 = inputs.networkData === undefined ? undefined : Buffer.from(inputs.networkData, 'utf8').toString('base64');
  const userDataInputBase64 = inputs.userData === undefined ? undefined : Buffer.from(inputs.userData, 'utf8').toString('base64');
  const credentialsBase64 = inputs.guestCredentials === undefined ? undefined : Buffer.from(inputs.guestCredentials, 'utf8').toString('base64');

  const build = (index: number, zone: string | undefined, claimNames?: string[], initRequested = false): DesiredMachine => {
    const init = initRequested && initUserData !== undefined;
    const name = vmName(inputs.name, index);
    const labels = { ...inputs.labels, ...labelsOf(name, index) };
    const claims = disks.map((d, i) => claimNames?.[i] ?? `${name}-${d.name}-${suffixOf(name)}`);
    const annotations: Record<string, string> = {
      ...inputs.annotations,
      [HARVESTER_ANNOTATIONS.volumeClaimTemplates]: JSON.stringify(disks.map((d, i) => claimTemplate(d, claims[i], ownership))),
      [USER_DATA_HASH]: init ? (initUserDataHash as string) : userDataHash,
    };
    if (init) annotations[INIT_ANNOTATION] = 'true';
    if (networkDataHash) annotations[NETWORK_DATA_HASH] = networkDataHash;
    const secretName = cloudInitSecretName(name);
    const cloudInit: Record<string, unknown> = { secretRef: { name: secretName } };
    if (inputs.networkData !== undefined) cloudInit.networkDataSecretRef = { name: secretName };
    const vm: VirtualMachine = {
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachine',
      metadata: { name, namespace: inputs.namespace, labels, annotations },
      spec: {
        runStrategy: 'RerunOnFailure',
        template: {
          metadata: {
            labels: { ...labels },
            annotations: {
              [HARVESTER_ANNOTATIONS.sshNames]: sshNamesJson,
              [HARVESTER_ANNOTATIONS.waitForLease]: '[]',
            },
          },
          spec: {
            evictionStrategy: 'LiveMigrateIfPossible',
            affinity: buildAffinity(inputs.affinity, labels[DRIVER_LABELS.machineSetName], zone),
            domain: {
              cpu: { cores: inputs.cpu, sockets: 1, threads: 1 },
              resources: { limits: { cpu: String(inputs.cpu), memory: inputs.memory } },
              devices: {
                disks: [
                  { name: 'cloudinitdisk', disk: { bus: 'virtio' } },
                  ...disks.map((d, i) => (i === 0 ? { name: d.name, disk: { bus: d.bus }, bootOrder: 1 } : { name: d.name, disk: { bus: d.bus } })),
                ],
                interfaces: inputs.networks.map((n, i) => ({ name: `nic-${i}`, model: n.model, [n.type]: {} })),
              },
            },
            networks: networkNames.map((networkName, i) => ({ name: `nic-${i}`, multus: { networkName } })),
            volumes: [
              { name: 'cloudinitdisk', cloudInitNoCloud: cloudInit },
              ...disks.map((d, i) => ({ name: d.name, persistentVolumeClaim: { claimName: claims[i] } })),
            ],
          },
        },
      },
    };
    const data: Record<string, string> = { userdata: init ? (initUserDataBase64 as string) : userDataBase64 };
    if (init) data[INIT_USER_DATA_INPUT_KEY] = initInputBase64 as string;
    if (networkDataBase64 !== undefined) data.networkdata = networkDataBase64;
    if (userDataInputBase64 !== undefined) data[USER_DATA_INPUT_KEY] = userDataInputBase64;
    if (credentialsBase64 !== undefined) data[GUEST_CREDENTIALS_KEY] = credentialsBase64;
    const secret: Secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: secretName,
        namespace: inputs.namespace,
        labels: { ...ownership, [DRIVER_LABELS.vmName]: name },
      },
      type: 'Opaque',
      data,
    };
    return { name, index, zone, vm, secret, claimNames: claims };
  };

  // The canonical layout is built on first use only: planning builds VMs for the indexes and zones it needs.
  let layout: DesiredMachine[] | undefined;
  return {
    identity,
    count: inputs.count,
    zones: [...inputs.zones],
    rolling: resolveRolling(inputs.rollingUpdate, inputs.count),
    volumeDeletion: inputs.volumeDeletion,
    selector: poolSelector(identity),
    cloudInitHash: userDataHash,
    initCloudInitHash: initUserDataHash,
    get machines(): DesiredMachine[] {
      layout ??= assignZones([], inputs.count, inputs.zones).newZones.map((zone, index) => build(index, zone));
      return layout;
    },
    build,
  };
}
