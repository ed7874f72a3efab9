/**
 * Drift normalisation: compares a live VirtualMachine with the one we would build for it, reporting only real
 * differences, each named by the input it comes from. Fields Harvester and KubeVirt add never count: the live spec
 * is pruned to the shape we send (pulumi-kubernetes pruneLiveState), after removing what lands inside fields we do
 * set (hot-plugged volumes, the management-network affinity term). Known server additions
 * (docs/design/harvester-vms.md §"What Harvester and KubeVirt add"): annotations mac-address, vmRunStrategy,
 * kubevirt.io/*; finalizers; resources.requests, memory.guest, cpu.maxSockets, terminationGracePeriodSeconds,
 * architecture, machine type, interface macAddress, the mgmt nodeAffinity term. Quantities compare by value,
 * references qualified, JSON annotations parsed.
 */
import type { VirtualMachine } from '../../client/objects';
import { describeValue } from '../../core/input-errors';
import { diffPaths, pruneLive } from '../../core/prune';
import { sameQuantity } from '../../core/quantity';
import { splitAffinity } from './affinity';
import { isReservedKey, userEntries } from '../../core/labels';
import { DRIVER_LABELS, HARVESTER_ANNOTATIONS, NETWORK_DATA_HASH, USER_DATA_HASH } from './labels';
import { stableStringify } from '../../core/hash';

type Obj = Record<string, unknown>;

/** One difference between a live VM and its desired form. */
export interface MachineDifference {
  /** The input it comes from (`cpu`, `disks`, `labels`, …), or `spec` for fields no input sets. */
  input: string;
  /** Object path where it was seen. */
  path: string;
  /** Human text: live vs desired, never a secret value. */
  detail: string;
  /** True when a metadata patch fixes it without restarting the VM. */
  inPlace: boolean;
}

/** get reads a nested field without throwing. */
export function get<T = unknown>(root: unknown, ...path: (string | number)[]): T | undefined {
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

/** The live VM's template spec with volumes hot-plugged later (e.g. by the guest CSI driver) removed; a shallow copy. */
function withoutHotplug(spec: Obj | undefined): Obj {
  const s = spec ?? {};
  const volumes = (get<Obj[]>(s, 'volumes') ?? []);
  const hot = new Set(volumes.filter((v) => get(v, 'persistentVolumeClaim', 'hotpluggable') === true).map((v) => v.name));
  if (hot.size === 0) return s;
  const out: Obj = { ...s, volumes: volumes.filter((v) => !hot.has(v.name)) };
  const devices = get<Obj>(s, 'domain', 'devices');
  if (devices && Array.isArray(devices.disks)) {
    out.domain = { ...(s.domain as Obj), devices: { ...devices, disks: (devices.disks as Obj[]).filter((d) => !hot.has(d.name)) } };
  }
  return out;
}

/**
 * The part of a VM spec compared field by field: without the template's metadata and affinity (compared by
 * meaning before) and, on the live side, without hot-plugged volumes. Shallow copies: the VM is not modified.
 */
function comparableSpec(spec: Obj | undefined, live: boolean): Obj {
  const s = spec ?? {};
  const t = s.template as Obj | undefined;
  if (!t) return s;
  const { metadata: _metadata, ...template } = t;
  let inner = t.spec as Obj | undefined;
  if (inner) {
    const { affinity: _affinity, ...rest } = inner;
    inner = rest;
  }
  if (live) template.spec = withoutHotplug(inner);
  else if (inner) template.spec = inner;
  return { ...s, template };
}

/** Semantic form of a volumeClaimTemplates annotation (sizes by value, key order irrelevant). */
function claimTemplatesOf(text: string | undefined): { name: unknown; storage: unknown; sc: unknown; image: unknown; mode: unknown; access: unknown }[] | 'invalid' {
  if (text === undefined) return [];
  try {
    const list = JSON.parse(text) as Obj[];
    return list.map((t) => ({
      name: get(t, 'metadata', 'name'),
      storage: get(t, 'spec', 'resources', 'requests', 'storage'),
      sc: get(t, 'spec', 'storageClassName'),
      image: get(t, 'metadata', 'annotations', HARVESTER_ANNOTATIONS.imageId),
      mode: get(t, 'spec', 'volumeMode'),
      access: get(t, 'spec', 'accessModes'),
    }));
  } catch {
    return 'invalid';
  }
}

function sameClaimTemplates(a: string | undefined, b: string | undefined): boolean {
  // The usual case: the annotation is exactly as we wrote it (ours is always valid JSON).
  if (a === b) return true;
  const x = claimTemplatesOf(a);
  const y = claimTemplatesOf(b);
  if (x === 'invalid' || y === 'invalid' || x.length !== y.length) return false;
  return x.every((t, i) => {
    const u = y[i];
    return t.name === u.name && sameQuantity(t.storage as string, u.storage as string) && t.sc === u.sc && t.image === u.image &&
      t.mode === u.mode && stableStringify(t.access) === stableStringify(u.access);
  });
}

function mapDiff(input: string, where: string, desired: Record<string, string>, live: Record<string, string>, inPlace: boolean): MachineDifference[] {
  const out: MachineDifference[] = [];
  for (const key of [...new Set([...Object.keys(desired), ...Object.keys(live)])].sort()) {
    if (desired[key] === live[key]) continue;
    const detail = live[key] === undefined ? `${key} is missing` : desired[key] === undefined ? `${key} is set but not in inputs` : `${key} is ${describeValue(live[key])}, inputs say ${describeValue(desired[key])}`;
    out.push({ input, path: `${where}["${key}"]`, detail, inPlace });
  }
  return out;
}

const SYSTEM_LABEL_INPUT: Record<string, string> = {
  [DRIVER_LABELS.guestCluster]: 'guestCluster',
  [DRIVER_LABELS.nodePool]: 'poolName',
  [DRIVER_LABELS.machineSetName]: 'guestCluster',
};

function systemLabels(labels: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(labels ?? {}).filter(([k]) => isReservedKey(k)));
}

/** Which input an object path of the VM spec belongs to. */
export function inputForPath(path: string): string {
  if (/^template\.spec\.domain\.cpu\b/.test(path) || path === 'template.spec.domain.resources.limits.cpu') return 'cpu';
  if (path === 'template.spec.domain.resources.limits.memory') return 'memory';
  if (/^template\.spec\.(domain\.devices\.disks|volumes)\b/.test(path)) return 'disks';
  if (/^template\.spec\.(domain\.devices\.interfaces|networks)\b/.test(path)) return 'networks';
  return 'spec';
}

/**
 * vmDifferences lists how a live VM differs from the desired one (built for the same index and zone with
 * the live VM's claim names). An empty list means up to date.
 */
export function vmDifferences(live: VirtualMachine, desired: VirtualMachine): MachineDifference[] {
  const out: MachineDifference[] = [];
  const liveMeta = live.metadata ?? {};
  const wantMeta = desired.metadata;
  // 1. User labels and annotations: patched in place.
  out.push(...mapDiff('labels', 'metadata.labels', userEntries(wantMeta.labels), userEntries(liveMeta.labels), true));
  out.push(...mapDiff('annotations', 'metadata.annotations', userEntries(wantMeta.annotations), userEntries(liveMeta.annotations), true));
  const liveTemplateMeta = live.spec?.template?.metadata ?? {};
  const wantTemplateMeta = desired.spec?.template?.metadata ?? {};
  out.push(...mapDiff('labels', 'spec.template.metadata.labels', userEntries(wantTemplateMeta.labels), userEntries(liveTemplateMeta.labels), true));
  // 2. Our system labels (driver-compatible, ownership, index): a change rolls the VM.
  for (const [where, want, have] of [
    ['metadata.labels', wantMeta.labels, liveMeta.labels],
    ['spec.template.metadata.labels', wantTemplateMeta.labels, liveTemplateMeta.labels],
  ] as const) {
    const desiredSystem = systemLabels(want);
    const liveSystem = Object.fromEntries(Object.entries(systemLabels(have)).filter(([k]) => k in desiredSystem || k in SYSTEM_LABEL_INPUT));
    for (const d of mapDiff('labels', where, desiredSystem, liveSystem, false)) {
      const key = /\["(.*)"\]$/.exec(d.path)?.[1] ?? '';
      out.push({ ...d, input: SYSTEM_LABEL_INPUT[key] ?? 'labels' });
    }
  }
  // 3. Annotations we set, compared by meaning.
  const la = liveMeta.annotations ?? {};
  const da = wantMeta.annotations ?? {};
  if (!sameClaimTemplates(la[HARVESTER_ANNOTATIONS.volumeClaimTemplates], da[HARVESTER_ANNOTATIONS.volumeClaimTemplates])) {
    out.push({ input: 'disks', path: `metadata.annotations["${HARVESTER_ANNOTATIONS.volumeClaimTemplates}"]`, detail: 'volume claim templates (disk size, image or storage class) differ', inPlace: false });
  }
  if (la[USER_DATA_HASH] !== da[USER_DATA_HASH]) {
    out.push({ input: 'userData', path: `metadata.annotations["${USER_DATA_HASH}"]`, detail: 'cloud-init user data differs (userData, guestAgent or sshKeys)', inPlace: false });
  }
  if (la[NETWORK_DATA_HASH] !== da[NETWORK_DATA_HASH]) {
    out.push({ input: 'networkData', path: `metadata.annotations["${NETWORK_DATA_HASH}"]`, detail: 'cloud-init network data differs', inPlace: false });
  }
  const liveSsh = parseJsonList(liveTemplateMeta.annotations?.[HARVESTER_ANNOTATIONS.sshNames]);
  const wantSsh = parseJsonList(wantTemplateMeta.annotations?.[HARVESTER_ANNOTATIONS.sshNames]);
  if (liveSsh === undefined || wantSsh === undefined ? liveSsh !== wantSsh : liveSsh.length !== wantSsh.length || liveSsh.some((k, i) => k !== wantSsh[i])) {
    out.push({ input: 'sshKeys', path: `spec.template.metadata.annotations["${HARVESTER_ANNOTATIONS.sshNames}"]`, detail: `key pairs are ${describeValue((liveSsh ?? []).join(', '))}, inputs say ${describeValue((wantSsh ?? []).join(', '))}`, inPlace: false });
  }
  // 4. Affinity: split into zone and raw affinity, so Harvester's added term and our own terms never show.
  const machineSet = wantMeta.labels?.[DRIVER_LABELS.machineSetName] ?? '';
  const liveAff = splitAffinity(get<Obj>(live, 'spec', 'template', 'spec', 'affinity'), machineSet);
  const wantAff = splitAffinity(get<Obj>(desired, 'spec', 'template', 'spec', 'affinity'), machineSet);
  if (liveAff.zone !== wantAff.zone) {
    out.push({ input: 'zones', path: 'spec.template.spec.affinity', detail: `zone is ${describeValue(liveAff.zone ?? 'none')}, should be ${describeValue(wantAff.zone ?? 'none')}`, inPlace: false });
  }
  if (stableStringify(liveAff.raw ?? {}) !== stableStringify(wantAff.raw ?? {})) {
    out.push({ input: 'affinity', path: 'spec.template.spec.affinity', detail: 'affinity differs', inPlace: false });
  }
  // 5. The rest of the spec, pruned to the shape we send (pruneLive copies, so the memory respelling below
  // touches only the copy).
  const wantSpec = comparableSpec(desired.spec as Obj | undefined, false);
  const pruned = pruneLive(comparableSpec(live.spec as Obj | undefined, true), wantSpec);
  const wantMemory = get<string>(wantSpec, 'template', 'spec', 'domain', 'resources', 'limits', 'memory');
  const liveLimits = get<Obj>(pruned, 'template', 'spec', 'domain', 'resources', 'limits');
  if (liveLimits && typeof liveLimits === 'object' && liveLimits.memory !== undefined && sameQuantity(liveLimits.memory as string, wantMemory)) {
    liveLimits.memory = wantMemory;
  }
  for (const d of diffPaths(wantSpec, pruned)) {
    const leaf = typeof d.desired !== 'object' && typeof d.live !== 'object';
    const detail = leaf ? `${d.path} is ${describeValue(d.live)}, inputs say ${describeValue(d.desired)}` : `${d.path} differs`;
    out.push({ input: inputForPath(d.path), path: `spec.${d.path}`, detail, inPlace: false });
  }
  return out;
}

function parseJsonList(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  try {
    const v = JSON.parse(text) as unknown;
    return Array.isArray(v) ? v.map(String) : undefined;
  } catch {
    return undefined;
  }
}
