/**
 * Read-back: inputs reconstructed from live VMs, so `pulumi preview --refresh` shows drift per property.
 * Each VM is read into the inputs it would have been built from; a property takes the recorded value
 * while every VM agrees with it (compared by meaning: quantities by value, references qualified, the
 * user's spelling kept), and the first deviating VM's value otherwise, with one drift line per deviation.
 * Harvester's additions never show: read-back inverts only what we write (see normalize.ts).
 */
import type { VirtualMachine } from '../../client/objects';
import { stableStringify } from '../../core/hash';
import { naturalCompare } from '../../core/natural-order';
import { describeValue } from '../../core/input-errors';
import { sameQuantity } from '../../core/quantity';
import { sameInput } from './equivalence';
import { splitAffinity } from './affinity';
import { userEntries } from '../../core/labels';
import { DRIVER_LABELS, HARVESTER_ANNOTATIONS, USER_DATA_HASH, NETWORK_DATA_HASH, formatLabelValue } from './labels';
import type { AffinityInputs, DiskInputs, NetworkInputs } from './model';
import { get } from './normalize';
import { isInitMachine } from './desired';
import type { MachinePoolOutputs } from './outputs';
import { qualify, spellLike } from '../../core/object-ref';

type Obj = Record<string, unknown>;

/** The inputs one live VM reflects. */
export interface MachineReadback {
  name: string;
  cpu?: number;
  memory?: string;
  disks: DiskInputs[];
  networks: NetworkInputs[];
  sshKeys: string[];
  zone?: string;
  affinity?: AffinityInputs;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  guestCluster?: string;
  nodePool?: string;
  userDataHash?: string;
  networkDataHash?: string;
  /** Made from initUserData (judged against its rendered hash). */
  init: boolean;
}

/** readBackMachine reads one live VM into the inputs it reflects. */
export function readBackMachine(vm: VirtualMachine): MachineReadback {
  const spec = get<Obj>(vm, 'spec', 'template', 'spec') ?? {};
  const annotations = vm.metadata.annotations ?? {};
  const templates = parseList(annotations[HARVESTER_ANNOTATIONS.volumeClaimTemplates]);
  const byClaim = new Map(templates.map((t) => [String(get(t, 'metadata', 'name')), t]));
  const volumes = (get<Obj[]>(spec, 'volumes') ?? []);
  const claimOf = new Map(volumes.filter((v) => get(v, 'persistentVolumeClaim', 'hotpluggable') !== true && get(v, 'persistentVolumeClaim', 'claimName'))
    .map((v) => [String(v.name), String(get(v, 'persistentVolumeClaim', 'claimName'))]));
  const disks: DiskInputs[] = [];
  for (const d of get<Obj[]>(spec, 'domain', 'devices', 'disks') ?? []) {
    const claim = claimOf.get(String(d.name));
    if (claim === undefined) continue; // cloud-init disk, hot-plugged volumes
    const t = byClaim.get(claim);
    const image = get<string>(t, 'metadata', 'annotations', HARVESTER_ANNOTATIONS.imageId);
    const disk: DiskInputs = { size: String(get(t, 'spec', 'resources', 'requests', 'storage') ?? ''), bus: (get<string>(d, 'disk', 'bus') ?? 'virtio') as DiskInputs['bus'] };
    if (image) disk.image = image;
    else if (get(t, 'spec', 'storageClassName') !== undefined) disk.storageClass = String(get(t, 'spec', 'storageClassName'));
    disks.push(disk);
  }
  const interfaces = new Map((get<Obj[]>(spec, 'domain', 'devices', 'interfaces') ?? []).map((i) => [String(i.name), i]));
  const networks: NetworkInputs[] = (get<Obj[]>(spec, 'networks') ?? []).map((n) => {
    const nic = interfaces.get(String(n.name)) ?? {};
    return {
      network: String(get(n, 'multus', 'networkName') ?? ''),
      model: (nic.model ?? 'virtio') as NetworkInputs['model'],
      type: ('masquerade' in nic ? 'masquerade' : 'bridge') as NetworkInputs['type'],
    };
  });
  const labels = vm.metadata.labels ?? {};
  const split = splitAffinity(get<Obj>(spec, 'affinity'), labels[DRIVER_LABELS.machineSetName] ?? '');
  const cores = get<number>(spec, 'domain', 'cpu', 'cores');
  const limitCpu = get<string>(spec, 'domain', 'resources', 'limits', 'cpu');
  return {
    name: vm.metadata.name ?? '',
    cpu: typeof cores === 'number' ? cores : limitCpu !== undefined ? Number(limitCpu) : undefined,
    memory: get<string>(spec, 'domain', 'resources', 'limits', 'memory'),
    disks,
    networks,
    sshKeys: parseList(get<Obj>(vm, 'spec', 'template', 'metadata', 'annotations')?.[HARVESTER_ANNOTATIONS.sshNames] as string | undefined).map(String),
    zone: split.zone,
    affinity: split.raw as AffinityInputs | undefined,
    labels: userEntries(labels),
    annotations: userEntries(annotations),
    guestCluster: labels[DRIVER_LABELS.guestCluster],
    nodePool: labels[DRIVER_LABELS.nodePool],
    userDataHash: annotations[USER_DATA_HASH],
    networkDataHash: annotations[NETWORK_DATA_HASH],
    init: isInitMachine(vm),
  };
}

function parseList(text: string | undefined): Obj[] {
  if (!text) return [];
  try {
    const v = JSON.parse(text) as unknown;
    return Array.isArray(v) ? (v as Obj[]) : [];
  } catch {
    return [];
  }
}

/** What reconstruction returns: the inputs to report and one line per deviation. */
export interface Reconstruction {
  inputs: Partial<MachinePoolOutputs>;
  drift: string[];
}

/**
 * reconstructInputs rebuilds the input properties from live VMs (not being deleted), starting from the
 * recorded outputs `previous` (whose `cloudInitHash` is the user-data hash every VM should carry).
 */
export function reconstructInputs(previous: MachinePoolOutputs, vms: VirtualMachine[], options: { importing?: boolean } = {}): Reconstruction {
  const expectedUserDataHash = previous.cloudInitHash;
  const ns = previous.namespace;
  const drift: string[] = [];
  const inputs: Partial<MachinePoolOutputs> = {};
  const machines = vms.map(readBackMachine).sort((a, b) => naturalCompare(a.name, b.name));
  const line = (m: MachineReadback, text: string) => drift.push(`VirtualMachine ${ns}/${m.name}: ${text}`);

  inputs.count = machines.length;
  if (machines.length !== previous.count) drift.push(`pool ${ns}/${previous.name}: ${machines.length} VMs exist, ${previous.count} recorded`);

  const keys = ['cpu', 'memory', 'disks', 'networks', 'sshKeys', 'affinity', 'labels', 'annotations', 'guestCluster'] as const;
  type Key = (typeof keys)[number];
  const same = (key: Key) => (a: unknown, b: unknown) => sameInput(key, a, b, ns);
  for (const key of keys as readonly Key[]) {
    const recorded = previous[key];
    // On import nothing is recorded: every property comes from the first VM.
    const deviant = options.importing ? machines[0] : machines.find((m) => !same(key)(m[key], recorded));
    if (!deviant) continue;
    (inputs as Record<string, unknown>)[key] = respell(key, deviant[key], recorded, ns);
    for (const m of machines) {
      if (!same(key)(m[key], recorded)) line(m, `${key} is ${summarise(key, m[key])}, recorded ${summarise(key, recorded)}`);
    }
  }
  // poolName is only visible through its label, written with guestCluster.
  const expectedPool = previous.guestCluster ? formatLabelValue(previous.poolName ?? previous.name) : undefined;
  const poolDeviant = machines.find((m) => m.nodePool !== expectedPool && (m.guestCluster ?? previous.guestCluster) !== undefined && !(options.importing && m.nodePool === formatLabelValue(previous.name)));
  if (poolDeviant) {
    inputs.poolName = poolDeviant.nodePool;
    line(poolDeviant, `node pool label is ${describeValue(poolDeviant.nodePool ?? 'missing')}, recorded ${describeValue(expectedPool ?? 'none')}`);
  }
  // Zones: the recorded list while every VM sits in a listed zone (or none are pinned when none listed).
  const recordedZones = previous.zones ?? [];
  const zoneDeviants = machines.filter((m) => (recordedZones.length === 0 ? m.zone !== undefined : m.zone === undefined || !recordedZones.includes(m.zone)));
  if (zoneDeviants.length) {
    const seen = [...new Set(machines.map((m) => m.zone).filter((z): z is string => z !== undefined))];
    inputs.zones = [...recordedZones.filter((z) => seen.includes(z)), ...seen.filter((z) => !recordedZones.includes(z))];
    for (const m of zoneDeviants) line(m, `pinned to zone ${describeValue(m.zone ?? 'none')}, recorded zones ${describeValue(recordedZones.join(', ') || 'none')}`);
  }
  // Secret inputs: only hashes can be compared; a mismatch is reported without any content.
  if (expectedUserDataHash !== undefined) {
    for (const m of machines) {
      const expected = m.init ? previous.initCloudInitHash : expectedUserDataHash;
      if (m.userDataHash !== expected) line(m, `cloud-init user data differs from the recorded ${m.init ? 'initUserData' : 'userData'}`);
    }
  }
  return { inputs, drift };
}

/** Writes a live value with the user's spelling where it means the same thing. */
function respell(key: string, live: unknown, recorded: unknown, ns: string): unknown {
  if (key === 'disks') {
    const prev = (recorded as DiskInputs[] | undefined) ?? [];
    return (live as DiskInputs[]).map((d, i) => {
      const p = prev[i];
      const out: DiskInputs = { ...d };
      if (d.image) out.image = spellLike(qualify(d.image, ns), p?.image, ns);
      if (p && sameQuantity(p.size, d.size)) out.size = p.size;
      return out;
    });
  }
  if (key === 'networks') {
    const prev = (recorded as NetworkInputs[] | undefined) ?? [];
    return (live as NetworkInputs[]).map((n, i) => ({ ...n, network: spellLike(qualify(n.network, ns), prev[i]?.network, ns) }));
  }
  if (key === 'sshKeys') {
    const prev = (recorded as string[] | undefined) ?? [];
    return (live as string[]).map((k, i) => spellLike(qualify(k, ns), prev[i], ns));
  }
  return live;
}

function summarise(key: string, value: unknown): string {
  if (key === 'disks') return (value as DiskInputs[] | undefined ?? []).map((d) => `${d.image ?? d.storageClass ?? 'blank'} ${d.size} ${d.bus ?? 'virtio'}`).join('; ') || 'none';
  if (key === 'networks') return (value as NetworkInputs[] | undefined ?? []).map((n) => `${n.network} (${n.model ?? 'virtio'}, ${n.type ?? 'bridge'})`).join('; ') || 'none';
  if (key === 'sshKeys') return (value as string[] | undefined ?? []).join(', ') || 'none';
  if (key === 'affinity' || key === 'labels' || key === 'annotations') return stableStringify(value ?? {});
  return describeValue(value);
}
