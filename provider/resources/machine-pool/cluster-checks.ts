/**
 * Checks of the inputs against the cluster, run by `check` at preview and before every create/update,
 * and the resolution of what desired.ts needs from the cluster (image storage classes, key pair keys):
 * the namespace exists; each image exists, is a cloud image (ISO installers are refused, as the node
 * driver docs say), is imported and at most as large as its disk; each VM network and key pair exists
 * (key pairs validated) and some host is attached to its cluster network; each zone exists on some host. Every
 * problem is reported at once. Inputs that are unknown (preview) skip the checks that depend on them. Names the
 * pool would take are checked on its plan (name-conflicts.ts), so no name the plan does not need is refused.
 */
import type { HarvesterClient } from '../../client/harvester-client';
import type { Node, VirtualMachineImage } from '../../client/objects';
import { naturalCompare } from '../../core/natural-order';
import { formatBytes, parseQuantity } from '../../core/quantity';
import type { CheckFailure } from '../../core/types';
import { isDeclared } from '../../core/program-refs';
import { isUnknown } from '../../core/unknowns';
import { CLUSTER_NETWORK_KEY_PREFIX, ZONE_KEY } from './affinity';
import type { MachinePoolContext } from './desired';
import {
  clusterNetworkUnreachable, diskTooSmall, imageIsIso, imageMissing, imageNotReady, keyPairMissing, keyPairNotValidated, namespaceMissing, networkMissing, zoneMissing,
} from './errors';
import { parseRef, qualify } from '../../core/object-ref';

type Obj = Record<string, unknown>;

/** The NAD label naming the cluster network a VM network runs on (absent: mgmt). */
const CLUSTER_NETWORK_LABEL = 'network.harvesterhci.io/clusternetwork';

/** Result of checkAgainstCluster. */
export interface ClusterCheck {
  failures: CheckFailure[];
  /** Complete only when there are no failures and nothing was skipped. */
  context: MachinePoolContext;
  /** References skipped because the same program creates their object (it does not exist yet): context lacks them. */
  deferred: string[];
  /** The cluster networks of the VM networks that were read (not of those unknown at preview or deferred), sorted. */
  clusterNetworks: string[];
}

const IMAGE_TYPE_LABEL = 'harvesterhci.io/image-type';

const known = (v: unknown): v is string => typeof v === 'string' && !isUnknown(v);

/** isoEvidence says why an image looks like an ISO installer, or undefined for a disk image. */
export function isoEvidence(image: VirtualMachineImage): string | undefined {
  // How Harvester marks an ISO: its UI labels every image it creates raw_qcow2 or iso (HCI_IMAGE_TYPE).
  if (image.metadata.labels?.[IMAGE_TYPE_LABEL] === 'iso') return `it is labelled ${IMAGE_TYPE_LABEL}: iso`;
  const url = image.spec?.url ?? '';
  const path = url.split(/[?#]/)[0];
  if (/\.iso$/i.test(path)) return 'its source URL ends in .iso';
  if (/\.iso$/i.test(image.spec?.displayName ?? '')) return 'its display name ends in .iso';
  if (/\.iso$/i.test(image.metadata.name ?? '')) return 'its name ends in .iso';
  return undefined;
}

function importState(image: VirtualMachineImage): string | undefined {
  const imported = image.status?.conditions?.find((c) => c.type === 'Imported');
  if (imported?.status === 'True' && image.status?.storageClassName) return undefined;
  const failed = image.status?.conditions?.find((c) => c.type === 'RetryLimitExceeded' && c.status === 'True');
  if (failed) return `import failed${failed.message ? `: ${failed.message}` : ''}`;
  if (imported?.status === 'True') return 'imported, but it has no status.storageClassName yet';
  return `import at ${image.status?.progress ?? 0}%`;
}

/**
 * checkAgainstCluster runs the checks above on raw (possibly partly unknown) inputs and resolves the
 * context. Read-only: GETs of the referenced objects and one LIST of hosts (for zones and cluster networks).
 * `inProgram`: the reference paths the SDK marked as made by this program (`sshKeys[0]`, `disks[1].image`, …).
 */
export async function checkAgainstCluster(client: HarvesterClient, raw: Obj, inProgram: ReadonlySet<string> = new Set()): Promise<ClusterCheck> {
  const failures: CheckFailure[] = [];
  const deferred: string[] = [];
  /** A missing object is a failure, unless this program creates it (core/program-refs.ts): then it is deferred. */
  const missing = (failure: CheckFailure) => {
    if (isDeclared(inProgram, failure.property)) deferred.push(failure.property);
    else failures.push(failure);
  };
  const context: MachinePoolContext = { imageStorageClasses: {}, keyPairPublicKeys: {} };
  const clusterNetworks = new Set<string>();
  const ns = known(raw.namespace) ? raw.namespace : raw.namespace === undefined ? 'default' : undefined;
  const ref = (r: unknown) => (known(r) && (r.includes('/') || ns !== undefined) ? qualify(r, ns ?? 'default') : undefined);
  const tasks: Promise<void>[] = [];
  // One LIST of hosts, shared by the zone and cluster-network checks, made only when one of them needs it.
  let hosts: Promise<Node[]> | undefined;
  const listHosts = (): Promise<Node[]> => (hosts ??= client.nodes.list().then((l) => l.items));

  if (ns !== undefined) {
    tasks.push(client.namespaces.get(ns).then((n) => {
      if (!n) failures.push(namespaceMissing(ns));
    }));
  }
  const disks = Array.isArray(raw.disks) ? (raw.disks as Obj[]) : [];
  disks.forEach((disk, i) => {
    const image = ref(disk?.image);
    if (!image) return;
    const property = `disks[${i}].image`;
    const { namespace: ins, name: iname } = parseRef(image);
    tasks.push(client.images.get(iname, ins).then((img) => {
      if (!img) return void missing(imageMissing(property, image));
      const iso = isoEvidence(img);
      if (iso) return void failures.push(imageIsIso(property, image, iso));
      const state = importState(img);
      if (state) return void failures.push(imageNotReady(property, image, state));
      context.imageStorageClasses[image] = img.status?.storageClassName as string;
      const virtual = Number(img.status?.virtualSize ?? 0);
      const size = known(disk.size) ? parseQuantity(disk.size) : undefined;
      if (virtual > 0 && size !== undefined && size < virtual) {
        failures.push(diskTooSmall(`disks[${i}].size`, image, disk.size as string, formatBytes(Math.ceil(virtual / 2 ** 30) * 2 ** 30)));
      }
    }));
  });
  const networks = Array.isArray(raw.networks) ? (raw.networks as Obj[]) : [];
  networks.forEach((n, i) => {
    const net = ref(n?.network);
    if (!net) return;
    const { namespace: nns, name: nname } = parseRef(net);
    tasks.push(client.networks.get(nname, nns).then(async (nad) => {
      if (!nad) return void missing(networkMissing(`networks[${i}].network`, net));
      // Harvester pins VMs of this network to hosts labelled network.harvesterhci.io/<cluster network>=true; for a
      // NAD its network controller has not labelled, its VM mutator adds no rule (docs/design/capacity.md §hosts).
      const clusterNetwork = nad.metadata.labels?.[CLUSTER_NETWORK_LABEL];
      if (!clusterNetwork) return;
      clusterNetworks.add(clusterNetwork);
      const attached = (await listHosts()).some((h) => h.metadata.labels?.[`${CLUSTER_NETWORK_KEY_PREFIX}${clusterNetwork}`] === 'true');
      if (!attached) failures.push(clusterNetworkUnreachable(`networks[${i}].network`, net, clusterNetwork));
    }));
  });
  const keys = Array.isArray(raw.sshKeys) ? (raw.sshKeys as unknown[]) : [];
  keys.forEach((k, i) => {
    const kp = ref(k);
    if (!kp) return;
    const { namespace: kns, name: kname } = parseRef(kp);
    tasks.push(client.keyPairs.get(kname, kns).then((pair) => {
      if (!pair) return void missing(keyPairMissing(`sshKeys[${i}]`, kp));
      const validated = pair.status?.conditions?.find((c) => c.type === 'validated')?.status === 'True';
      if (!validated || !pair.spec?.publicKey) return void failures.push(keyPairNotValidated(`sshKeys[${i}]`, kp));
      context.keyPairPublicKeys[kp] = pair.spec.publicKey;
    }));
  });
  const zones = Array.isArray(raw.zones) ? (raw.zones as unknown[]).filter(known) : [];
  if (zones.length) {
    tasks.push(listHosts().then((nodes) => {
      const hostZones = [...new Set(nodes.map((n) => n.metadata.labels?.[ZONE_KEY]).filter((z): z is string => Boolean(z)))].sort();
      (raw.zones as unknown[]).forEach((z, i) => {
        if (known(z) && !hostZones.includes(z)) failures.push(zoneMissing(`zones[${i}]`, z, hostZones));
      });
    }));
  }
  await Promise.all(tasks);
  failures.sort((a, b) => naturalCompare(a.property, b.property));
  return { failures, context, deferred: deferred.sort(naturalCompare), clusterNetworks: [...clusterNetworks].sort() };
}
