/**
 * Read-back: the one inverse of desired.ts (docs/design/harvester-vms.md §"Reading a VM back: one inverse", which
 * lists the field each input is read from). `readMachine` reads a VM — a live one, or one desired.ts built — into
 * the inputs it reflects, and gives what it left unread: the VM without every field an input was read from, that is
 * what we write that no input reads back (the names pairing list items, our system labels, the run and eviction
 * strategies, the cloud-init volume, the claim templates' access and volume modes…).
 *
 * Refresh compares the inputs read back with the record (reconstruct.ts), the planner with those read back from the VM
 * it would build (differences.ts), both with the same comparison (input-differences.ts), so they always agree about
 * which inputs differ. The planner also compares what is left unread, so an out-of-band edit of such a field is still
 * healed by a roll; nothing maps object paths to inputs by hand: a field belongs to an input because that input's
 * read takes it.
 *
 * Both read a view of the VM: volumes hot-plugged later (e.g. by the guest CSI driver) left out, and the
 * volumeClaimTemplates annotation parsed, so each of its fields is read or compared on its own. Harvester's additions
 * never show: read-back reads only what we write, and what is left unread is compared pruned to the shape we send
 * (pulumi-kubernetes pruneLiveState; docs/design/harvester-vms.md §"What Harvester and KubeVirt add").
 */
import type { VirtualMachine } from '../../client/objects';
import { isReservedKey } from '../../core/labels';
import { splitAffinity } from './affinity';
import { isInitMachine } from './desired';
import { DRIVER_LABELS, HARVESTER_ANNOTATIONS, NETWORK_DATA_HASH, USER_DATA_HASH } from './labels';
import type { AffinityInputs, DiskInputs, NetworkInputs } from './model';

type Obj = Record<string, unknown>;
type Path = readonly (string | number)[];

/** The inputs one VM reflects. */
export interface MachineReadback {
  name: string;
  cpu?: number;
  memory?: string;
  disks: DiskInputs[];
  networks: NetworkInputs[];
  sshKeys: string[];
  zone?: string;
  affinity?: AffinityInputs;
  /** The user labels on the VM. */
  labels: Record<string, string>;
  /** The user labels on its template (so on its VMI): the labels input is written to both. */
  templateLabels: Record<string, string>;
  annotations: Record<string, string>;
  guestCluster?: string;
  nodePool?: string;
  userDataHash?: string;
  networkDataHash?: string;
  /**
   * Made from initUserData (its annotation, desired.ts INIT_ANNOTATION): its user-data digest is that input's. Only
   * looked at, so the annotation stays among what is compared as written.
   */
  init: boolean;
}

/** get reads a nested field without throwing. */
export function get<T = unknown>(root: unknown, ...path: Path): T | undefined {
  let cur: unknown = root;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[key];
  }
  return cur as T | undefined;
}

/** Claim names of a VM's non-hot-plugged PVC volumes, in volume order. */
export function claimNamesOf(vm: VirtualMachine): string[] {
  const volumes = get<Obj[]>(vm, 'spec', 'template', 'spec', 'volumes') ?? [];
  return volumes
    .filter((v) => get(v, 'persistentVolumeClaim', 'claimName') !== undefined && get(v, 'persistentVolumeClaim', 'hotpluggable') !== true)
    .map((v) => String(get(v, 'persistentVolumeClaim', 'claimName')));
}

const SPEC = ['spec', 'template', 'spec'] as const;
const CLAIMS = ['metadata', 'annotations', HARVESTER_ANNOTATIONS.volumeClaimTemplates] as const;

function parseJson(text: unknown): unknown {
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The template spec without volumes hot-plugged later and their disks (they are not ours); shallow copies. */
function withoutHotplug(spec: Obj): Obj {
  const volumes = get<Obj[]>(spec, 'volumes') ?? [];
  const hot = new Set(volumes.filter((v) => get(v, 'persistentVolumeClaim', 'hotpluggable') === true).map((v) => v.name));
  if (hot.size === 0) return spec;
  const out: Obj = { ...spec, volumes: volumes.filter((v) => !hot.has(v.name)) };
  const devices = get<Obj>(spec, 'domain', 'devices');
  if (devices && Array.isArray(devices.disks)) {
    out.domain = { ...(spec.domain as Obj), devices: { ...devices, disks: (devices.disks as Obj[]).filter((d) => !hot.has(d.name)) } };
  }
  return out;
}

/** The VM as read-back sees it (see the top of the file); shallow copies, the VM is not modified. */
function viewOf(vm: VirtualMachine): Obj {
  const view: Obj = { ...vm };
  const annotations = vm.metadata?.annotations;
  const claims = parseJson(annotations?.[HARVESTER_ANNOTATIONS.volumeClaimTemplates]);
  // Left as written when it is not a list: it then reads back as no claim and stays among what is compared.
  if (Array.isArray(claims)) view.metadata = { ...vm.metadata, annotations: { ...annotations, [HARVESTER_ANNOTATIONS.volumeClaimTemplates]: claims } };
  const spec = get<Obj>(vm, ...SPEC);
  const kept = spec && withoutHotplug(spec);
  if (spec && kept !== spec) view.spec = { ...vm.spec, template: { ...vm.spec!.template, spec: kept } };
  return view;
}

/** A VM being read: each field an input is read from is taken; the rest is what is left unread. */
class Reading {
  private readonly taken: Path[] = [];
  constructor(readonly view: Obj) {}

  /** A field an input is read from. */
  take<T>(...path: Path): T | undefined {
    this.taken.push(path);
    return get<T>(this.view, ...path);
  }

  /** A field only looked at (to pair list items, to split the affinity): it stays among what is compared as written. */
  peek<T>(...path: Path): T | undefined {
    return get<T>(this.view, ...path);
  }

  /** The non-system entries of a label or annotation map, each taken. */
  userEntries(...path: Path): Record<string, string> {
    const map = this.peek<Record<string, string>>(...path) ?? {};
    return Object.fromEntries(Object.keys(map).filter((k) => !isReservedKey(k)).map((k) => [k, this.take<string>(...path, k) as string]));
  }

  /** The view without the fields taken (objects holding one copied, the rest shared: never modify it). */
  unread(): Obj {
    const trie = new Map<string, Trie>();
    for (const path of this.taken) {
      let node = trie;
      for (const [i, key] of path.entries()) {
        const k = String(key);
        const next = node.get(k);
        if (next === TAKEN) break; // taken whole already
        if (i === path.length - 1) {
          node.set(k, TAKEN);
          break;
        }
        const child = next ?? new Map<string, Trie>();
        node.set(k, child);
        node = child;
      }
    }
    return without(this.view, trie) as Obj;
  }
}

const TAKEN = Symbol('taken');
type Trie = Map<string, Trie> | typeof TAKEN;

function without(value: unknown, trie: Map<string, Trie>): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item, i) => (trie.has(String(i)) ? withoutAt(item, trie.get(String(i))!) : item));
  const out: Obj = {};
  for (const [k, v] of Object.entries(value as Obj)) {
    const sub = trie.get(k);
    if (sub === undefined) out[k] = v;
    else if (sub !== TAKEN) out[k] = without(v, sub);
  }
  return out;
}

function withoutAt(value: unknown, trie: Trie): unknown {
  return trie === TAKEN ? undefined : without(value, trie);
}

/** The key pairs of the sshNames annotation: none when absent, the text itself when it is not a JSON list. */
function keyPairNames(text: string | undefined): string[] {
  if (text === undefined) return [];
  const list = parseJson(text);
  return Array.isArray(list) ? list.map(String) : [text];
}

function readDisks(r: Reading): DiskInputs[] {
  const claimsRead = r.peek<unknown>(...CLAIMS);
  const templates = Array.isArray(claimsRead) ? (claimsRead as Obj[]) : [];
  const templateAt = new Map(templates.map((t, j) => [String(get(t, 'metadata', 'name')), j]));
  const claimOf = new Map((r.peek<Obj[]>(...SPEC, 'volumes') ?? [])
    .filter((v) => get(v, 'persistentVolumeClaim', 'claimName') !== undefined)
    .map((v) => [String(v.name), String(get(v, 'persistentVolumeClaim', 'claimName'))]));
  const disks: DiskInputs[] = [];
  (r.peek<Obj[]>(...SPEC, 'domain', 'devices', 'disks') ?? []).forEach((d, i) => {
    const claim = claimOf.get(String(d.name));
    if (claim === undefined) return; // the cloud-init disk
    const j = templateAt.get(claim);
    const template = <T>(...path: Path): T | undefined => (j === undefined ? undefined : r.take<T>(...CLAIMS, j, ...path));
    const disk: DiskInputs = {
      size: String(template('spec', 'resources', 'requests', 'storage') ?? ''),
      bus: (r.take<string>(...SPEC, 'domain', 'devices', 'disks', i, 'disk', 'bus') ?? 'virtio') as DiskInputs['bus'],
    };
    const image = template<string>('metadata', 'annotations', HARVESTER_ANNOTATIONS.imageId);
    // An image disk's storage class is the image's: not read back (compared as written).
    if (image) disk.image = image;
    else if (template('spec', 'storageClassName') !== undefined) disk.storageClass = String(template('spec', 'storageClassName'));
    disks.push(disk);
  });
  return disks;
}

function readNetworks(r: Reading): NetworkInputs[] {
  const interfaceAt = new Map((r.peek<Obj[]>(...SPEC, 'domain', 'devices', 'interfaces') ?? []).map((n, k) => [String(n.name), k]));
  return (r.peek<Obj[]>(...SPEC, 'networks') ?? []).map((n, i) => {
    const k = interfaceAt.get(String(n.name));
    const nic = <T>(field: string): T | undefined => (k === undefined ? undefined : r.take<T>(...SPEC, 'domain', 'devices', 'interfaces', k, field));
    const masquerade = nic('masquerade') !== undefined;
    nic('bridge');
    return {
      network: String(r.take(...SPEC, 'networks', i, 'multus', 'networkName') ?? ''),
      model: (nic<string>('model') ?? 'virtio') as NetworkInputs['model'],
      type: masquerade ? 'masquerade' : 'bridge',
    };
  });
}

/** A VM read back: the inputs it reflects, and what it leaves unread. */
export interface MachineRead {
  inputs: MachineReadback;
  /** The VM (as viewed) without the fields its inputs were read from. */
  unread(): Obj;
}

/** readMachine reads one VM into the inputs it reflects. */
export function readMachine(vm: VirtualMachine): MachineRead {
  const r = new Reading(viewOf(vm));
  const cores = r.take(...SPEC, 'domain', 'cpu', 'cores');
  const split = splitAffinity(r.take<Obj>(...SPEC, 'affinity'), r.peek<string>('metadata', 'labels', DRIVER_LABELS.machineSetName) ?? '');
  const inputs: MachineReadback = {
    name: vm.metadata?.name ?? '',
    // The cores, as desired.ts writes the cpu input (the CPU limit, written from it too, is compared as written).
    cpu: typeof cores === 'number' ? cores : undefined,
    memory: r.take<string>(...SPEC, 'domain', 'resources', 'limits', 'memory'),
    disks: readDisks(r),
    networks: readNetworks(r),
    sshKeys: keyPairNames(r.take<string>('spec', 'template', 'metadata', 'annotations', HARVESTER_ANNOTATIONS.sshNames)),
    zone: split.zone,
    affinity: split.raw as AffinityInputs | undefined,
    labels: r.userEntries('metadata', 'labels'),
    templateLabels: r.userEntries('spec', 'template', 'metadata', 'labels'),
    annotations: r.userEntries('metadata', 'annotations'),
    guestCluster: r.take<string>('metadata', 'labels', DRIVER_LABELS.guestCluster),
    nodePool: r.take<string>('metadata', 'labels', DRIVER_LABELS.nodePool),
    userDataHash: r.take<string>('metadata', 'annotations', USER_DATA_HASH),
    networkDataHash: r.take<string>('metadata', 'annotations', NETWORK_DATA_HASH),
    init: isInitMachine(vm),
  };
  return { inputs, unread: () => r.unread() };
}

/** readBackMachine reads one VM into the inputs it reflects. */
export function readBackMachine(vm: VirtualMachine): MachineReadback {
  return readMachine(vm).inputs;
}
