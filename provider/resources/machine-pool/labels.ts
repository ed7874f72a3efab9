/**
 * Labels and annotations on the pool's objects.
 *
 * Driver-compatible labels (docs/design/harvester-vms.md §"Labels and annotations") go on the VM and its template
 * (so on the VMI): Harvester's load balancer, topology sync, cleanup and the guest cluster's cloud provider all key
 * on them. Ownership labels mark the objects as ours: nothing without them is ever modified or deleted.
 */
import { type OwnerIdentity, isLabelValue, ownerLabels, ownerSelector } from '../../client/ownership';

/** Keys written by docker-machine-driver-harvester that Harvester's controllers read. */
export const DRIVER_LABELS = {
  creator: 'harvesterhci.io/creator',
  vmName: 'harvesterhci.io/vmName',
  machineSetName: 'harvesterhci.io/machineSetName',
  guestCluster: 'guestcluster.harvesterhci.io/name',
  nodePool: 'nodepool.harvesterhci.io/name',
} as const;

/** The creator value Harvester's controllers and the cloud provider recognise as a guest node. */
export const DRIVER_CREATOR = 'docker-machine-driver-harvester';

/** The resource type recorded in the ownership labels (client/ownership.ts). */
export const RESOURCE_TYPE = 'machine-pool';

/** Our per-VM label holding the stable pool index. */
export const POOL_INDEX_LABEL = 'harvester-iac.io/pool-index';

/** Annotations Harvester reads or writes on VMs (docs/design/harvester-vms.md §"Labels and annotations"). */
export const HARVESTER_ANNOTATIONS = {
  volumeClaimTemplates: 'harvesterhci.io/volumeClaimTemplates',
  sshNames: 'harvesterhci.io/sshNames',
  waitForLease: 'harvesterhci.io/waitForLeaseInterfaceNames',
  imageId: 'harvesterhci.io/imageId',
  removedPvcs: 'harvesterhci.io/removedPersistentVolumeClaims',
  removeAllPvcs: 'harvesterhci.io/removeAllPersistentVolumeClaims',
  macAddress: 'harvesterhci.io/mac-address',
  runStrategy: 'harvesterhci.io/vmRunStrategy',
} as const;

/** Our annotations: hashes of the rendered cloud-init data, so secret changes roll without storing secrets. */
export const USER_DATA_HASH = 'harvester-iac.io/user-data-hash';
/** Annotation: hash of the network data. */
export const NETWORK_DATA_HASH = 'harvester-iac.io/network-data-hash';

/** 32-bit FNV-1a, as Go's hash/fnv New32a. */
function fnv32a(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/**
 * formatLabelValue makes a label value the way the node driver does: the value itself when valid,
 * otherwise `hash_<base64url(fnv32a)>_z` (driver labels.go).
 */
export function formatLabelValue(value: string): string {
  if (isLabelValue(value)) return value;
  const buf = Buffer.alloc(4);
  buf.writeUInt32BE(fnv32a(value));
  return `hash_${buf.toString('base64url')}_z`;
}

/** Identity of a pool, enough to build its labels and selector. */
export interface PoolIdentity {
  namespace: string;
  name: string;
  guestCluster?: string;
  poolName?: string;
}

/** poolIdentity picks a pool's identity out of its inputs (or recorded outputs). */
export function poolIdentity(p: PoolIdentity): PoolIdentity {
  return { namespace: p.namespace, name: p.name, guestCluster: p.guestCluster, poolName: p.poolName };
}

/** poolOwner is the pool's identity for the client layer's ownership checks. */
export function poolOwner(pool: PoolIdentity): OwnerIdentity {
  return { resourceType: RESOURCE_TYPE, resourceName: pool.name };
}

/** ownershipLabels returns the labels marking an object as belonging to this pool. */
export function ownershipLabels(pool: PoolIdentity): Record<string, string> {
  return ownerLabels(poolOwner(pool));
}

/**
 * poolSelector is the label selector of every object of this pool (VMs, VMIs, Secrets). Pool names are
 * unique per namespace, and every list and watch is namespaced.
 */
export function poolSelector(pool: PoolIdentity): string {
  return ownerSelector(poolOwner(pool));
}

/**
 * machineLabelsOf returns a function giving the driver-compatible plus ownership labels of one VM (VM and
 * template alike); what is the same for every VM of the pool is computed once.
 */
export function machineLabelsOf(pool: PoolIdentity): (vmName: string, index: number) => Record<string, string> {
  // The driver derives this from `<cluster>-<pool>` prefixed by the namespace (default-gc31-pool1).
  const machineSet = formatLabelValue(`${pool.namespace}-${pool.guestCluster ? `${pool.guestCluster}-` : ''}${pool.poolName ?? pool.name}`);
  const ownership = ownershipLabels(pool);
  const nodePool = pool.guestCluster ? formatLabelValue(pool.poolName ?? pool.name) : undefined;
  return (vmName, index) => {
    const labels: Record<string, string> = {
      [DRIVER_LABELS.creator]: DRIVER_CREATOR,
      [DRIVER_LABELS.vmName]: vmName,
      [DRIVER_LABELS.machineSetName]: machineSet,
      ...ownership,
      [POOL_INDEX_LABEL]: String(index),
    };
    if (pool.guestCluster && nodePool !== undefined) {
      labels[DRIVER_LABELS.guestCluster] = pool.guestCluster;
      labels[DRIVER_LABELS.nodePool] = nodePool;
    }
    return labels;
  };
}
