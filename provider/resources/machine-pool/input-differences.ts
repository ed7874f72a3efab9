/**
 * The one comparison of a VM's inputs, read back (read-back.ts), with what they should be: the recorded inputs
 * (refresh, reconstruct.ts) or the inputs read back from the VM the planner would build (differences.ts). Values
 * compare by meaning (equivalence.ts: quantities by value, references qualified, defaults filled in), secret inputs
 * by their digest annotations only. So refresh reports drift of exactly the inputs the planner sees differ.
 */
import { stableStringify } from '../../core/hash';
import { describeValue } from '../../core/input-errors';
import { sameInput } from './equivalence';
import { formatLabelValue } from './labels';
import type { AffinityInputs, DiskInputs, NetworkInputs } from './model';
import type { MachinePoolOutputs } from './outputs';
import type { MachineReadback } from './read-back';

/** The inputs compared as they are, value for value. */
export const VALUE_INPUTS = ['cpu', 'memory', 'disks', 'networks', 'sshKeys', 'affinity', 'labels', 'annotations', 'guestCluster'] as const;
type ValueInput = (typeof VALUE_INPUTS)[number];

/** Every input a VM can differ in, in the order differences are reported. */
export type MachineInput = ValueInput | 'poolName' | 'zones' | 'userData' | 'initUserData' | 'networkData';

/** What a VM's read-back is compared with. */
export interface MachineReference {
  cpu?: number;
  memory?: string;
  disks?: DiskInputs[];
  networks?: NetworkInputs[];
  sshKeys?: string[];
  affinity?: AffinityInputs;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  guestCluster?: string;
  /** The node-pool label value (none without a guest cluster). */
  nodePool?: string;
  /** The zones the VM may be pinned to; empty: pinned to none. */
  zones: string[];
  /** The user-data digest annotation; undefined: not compared (a record older than the digest). */
  userDataHash?: string;
  /**
   * The user-data digest of the VM made from initUserData (desired.ts INIT_ANNOTATION), which that VM is judged
   * against instead; undefined: no VM is made from it, so every VM is judged against userDataHash.
   */
  initUserDataHash?: string;
  /** The network-data digest annotation; undefined: no network data. */
  networkDataHash?: string;
}

/** One input a VM reads back differently. */
export interface InputDifference {
  input: MachineInput;
  /** What the VM says (for labels: the map that differs, the VM's or its template's); never shown for digests. */
  live?: unknown;
  /** What it should say. */
  reference?: unknown;
}

/** The reference of refresh: the recorded inputs (outputs). */
export function recordedReference(previous: MachinePoolOutputs): MachineReference {
  return {
    cpu: previous.cpu,
    memory: previous.memory,
    disks: previous.disks,
    networks: previous.networks,
    sshKeys: previous.sshKeys,
    affinity: previous.affinity,
    labels: previous.labels,
    annotations: previous.annotations,
    guestCluster: previous.guestCluster,
    // poolName is only visible through its label, written with guestCluster (labels.ts machineLabelsOf).
    nodePool: previous.guestCluster ? formatLabelValue(previous.poolName ?? previous.name) : undefined,
    zones: previous.zones ?? [],
    userDataHash: previous.cloudInitHash,
    initUserDataHash: previous.initCloudInitHash,
    networkDataHash: previous.networkDataHash,
  };
}

/** The reference of the planner: the inputs read back from the VM it would build, where it would place it. */
export function builtReference(built: MachineReadback): MachineReference {
  const { zone, nodePool, userDataHash, networkDataHash, init } = built;
  return { ...pick(built), nodePool, zones: zone === undefined ? [] : [zone], userDataHash, initUserDataHash: init ? userDataHash : undefined, networkDataHash };
}

function pick(m: MachineReadback): Pick<MachineReference, ValueInput> {
  return Object.fromEntries(VALUE_INPUTS.map((key) => [key, m[key]]));
}

/**
 * Inputs read from one field desired.ts always writes: that field gone is a difference, not the input's default
 * (which sameInput fills in for values recorded before defaults existed).
 */
const ALWAYS_WRITTEN: ReadonlySet<string> = new Set(['cpu', 'memory']);

function same(key: ValueInput, live: unknown, reference: unknown, ns: string): boolean {
  if (live === undefined && reference !== undefined && ALWAYS_WRITTEN.has(key)) return false;
  return sameInput(key, live, reference, ns);
}

/** differingInputs lists the inputs VM `m` reads back differently from `reference`, in pool namespace `ns`. */
export function differingInputs(m: MachineReadback, reference: MachineReference, ns: string): InputDifference[] {
  const out: InputDifference[] = [];
  for (const key of VALUE_INPUTS) {
    const readings = key === 'labels' ? [m.labels, m.templateLabels] : [m[key]];
    const deviant = readings.findIndex((value) => !same(key, value, reference[key], ns));
    if (deviant >= 0) out.push({ input: key, live: readings[deviant], reference: reference[key] });
  }
  if (m.nodePool !== reference.nodePool) out.push({ input: 'poolName', live: m.nodePool, reference: reference.nodePool });
  const zones = reference.zones;
  if (zones.length === 0 ? m.zone !== undefined : m.zone === undefined || !zones.includes(m.zone)) out.push({ input: 'zones', live: m.zone, reference: zones });
  const init = m.init && reference.initUserDataHash !== undefined;
  const userDataHash = init ? reference.initUserDataHash : reference.userDataHash;
  if (userDataHash !== undefined && m.userDataHash !== userDataHash) out.push({ input: init ? 'initUserData' : 'userData' });
  if (m.networkDataHash !== reference.networkDataHash) out.push({ input: 'networkData' });
  return out;
}

/** Whose values a difference is told against: the record (refresh) or the inputs (the planner). */
export type Against = 'record' | 'inputs';

/** describeDifference says how the VM differs, naming the input and never a secret value. */
export function describeDifference(d: InputDifference, against: Against): string {
  const record = against === 'record';
  const says = record ? 'recorded' : 'inputs say';
  switch (d.input) {
    case 'poolName':
      return `node pool label is ${describeValue(d.live ?? 'missing')}, ${says} ${describeValue(d.reference ?? 'none')}`;
    case 'zones': {
      const zones = d.reference as string[];
      const where = record ? `recorded zones ${describeValue(zones.join(', ') || 'none')}` : `inputs place it in zone ${describeValue(zones[0] ?? 'none')}`;
      return `pinned to zone ${describeValue(d.live ?? 'none')}, ${where}`;
    }
    case 'userData':
    case 'initUserData':
      return record ? `cloud-init user data differs from the recorded ${d.input}` : `cloud-init user data differs from the inputs (${d.input}, guestAgent, sshKeys or guestCredentials)`;
    case 'networkData':
      return `booted from other cloud-init network data than the ${record ? 'recorded' : 'inputs\''} networkData`;
    default:
      return `${d.input} is ${summarise(d.input, d.live)}, ${says} ${summarise(d.input, d.reference)}`;
  }
}

/** summarise shows an input's value in one line. */
export function summarise(key: string, value: unknown): string {
  if (key === 'disks') return ((value as DiskInputs[] | undefined) ?? []).map((d) => `${d.image ?? d.storageClass ?? 'blank'} ${d.size} ${d.bus ?? 'virtio'}`).join('; ') || 'none';
  if (key === 'networks') return ((value as NetworkInputs[] | undefined) ?? []).map((n) => `${n.network} (${n.model ?? 'virtio'}, ${n.type ?? 'bridge'})`).join('; ') || 'none';
  if (key === 'sshKeys') return ((value as string[] | undefined) ?? []).join(', ') || 'none';
  if (key === 'affinity' || key === 'labels' || key === 'annotations') return stableStringify(value ?? {});
  return describeValue(value);
}
