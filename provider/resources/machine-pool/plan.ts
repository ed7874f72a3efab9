/**
 * Pure: from the desired pool and what observe saw, the ordered steps that converge the cluster.
 *
 * 1. VMs being deleted are not members, but their indexes stay taken until they are gone.
 * 2. Each member is compared with the VM we would build for its index where it is (differences.ts: both read
 *    back, as refresh reads a VM): user label/annotation changes are patched in place; anything else makes it
 *    outdated. Scale-down then removes members beyond `count`: outdated ones first (so an interrupted roll
 *    resumes instead of removing the replacements it made), then the highest index (zone-aware, zones.ts rule 2).
 * 3. Kept members are placed in zones; one that must move is compared again for its new zone. A kept
 *    member's cloud-init Secret that is missing or whose content differs is written again (no restart).
 * 4. Missing members (scale-up, or a VM lost out of band) are created first at the indexes recorded for
 *    the pool that no longer exist (so healing recreates the missing index), then at the lowest free ones.
 * 5. Outdated members roll in waves of maxSurge + maxUnavailable: up to maxUnavailable old VMs go first,
 *    the wave's new VMs are created (fresh indexes, same zone), awaited ready, then the rest of the old
 *    VMs go. With the defaults (surge 1, unavailable 0) each new VM is ready before an old one goes; the
 *    pool itself is never replaced. New indexes never reuse one removed in the same plan, so no name,
 *    Secret or PVC collides with one still terminating.
 * 6. Finally every member is awaited ready and every removed VM awaited gone.
 */
import type { Secret, VirtualMachine, VirtualMachineInstance } from '../../client/objects';
import { naturalCompare } from '../../core/natural-order';
import type { DesiredMachine, DesiredPool } from './desired';
import { splitAffinity } from './affinity';
import { cloudInitDataDiffers } from './cloud-init-secret';
import { DRIVER_LABELS, POOL_INDEX_LABEL } from './labels';
import { judgeMachine, type MachineDifference, type MetadataPatch } from './differences';
import { claimNamesOf } from './read-back';
import { isInitMachine } from './desired';
import { assignZones, selectRemovals } from './zones';

/** One VM as observe saw it. */
export interface ObservedMachine {
  name: string;
  /** Pool index (label `harvester-iac.io/pool-index`, else the name's suffix); NaN if neither. */
  index: number;
  vm: VirtualMachine;
  vmi?: VirtualMachineInstance;
  /** Whether its cloud-init Secret exists. */
  secretExists: boolean;
  /** Its cloud-init Secret, when observe listed Secrets (`withSecrets`) and it exists. */
  secret?: Secret;
  /** VMI Running with an IPv4 address on its first interface. */
  ready: boolean;
  /** Marked for deletion (deletionTimestamp set). */
  deleting: boolean;
}

/** One step of a plan. Consecutive steps of the same action may run in parallel. */
export type PlanStep =
  | { action: 'delete'; name: string; index: number; claimNames: string[]; reason: string }
  | { action: 'create'; machine: DesiredMachine; reason: string }
  | { action: 'patch'; name: string; patch: MetadataPatch; differences: MachineDifference[]; reason: string }
  | { action: 'ensureSecret'; machine: DesiredMachine; reason: string }
  | { action: 'awaitReady'; names: string[]; reason: string }
  | { action: 'awaitGone'; names: string[]; reason: string }
  | { action: 'awaitGuestReady'; names: string[]; reason: string }
  | { action: 'leaveGuest'; names: string[]; reason: string };

/** A member that must be replaced, and why. */
export interface MachineReplacement {
  name: string;
  differences: MachineDifference[];
}

/** The result of planPool. */
export interface Plan {
  /** Nothing to create, delete or patch (awaits may remain while VMs become ready). */
  upToDate: boolean;
  /** Members rolled because their spec differs, with the differences per property. */
  replaces: MachineReplacement[];
  /** One human line per change, for logs and errors. */
  changes: string[];
  steps: PlanStep[];
}

/** indexOf reads a VM's pool index from its label, else from its name `<pool>-<index>`. */
export function indexOf(vm: VirtualMachine, poolName: string): number {
  const label = vm.metadata.labels?.[POOL_INDEX_LABEL];
  if (label !== undefined && /^\d+$/.test(label)) return Number(label);
  const name = vm.metadata.name ?? '';
  const m = new RegExp(`^${poolName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-(\\d+)$`).exec(name);
  return m ? Number(m[1]) : Number.NaN;
}

/** zoneOfVm returns the zone a live VM is pinned to by its required node affinity, if any. */
export function zoneOfVm(vm: VirtualMachine): string | undefined {
  const affinity = (vm.spec?.template?.spec as Record<string, unknown> | undefined)?.affinity as Record<string, unknown> | undefined;
  return splitAffinity(affinity, vm.metadata.labels?.[DRIVER_LABELS.machineSetName] ?? '').zone;
}

/** Options of planPool. */
export interface PlanOptions {
  /** Indexes the pool is recorded to have (outputs of the last run); missing ones are recreated first. */
  recordedIndexes?: number[];
  /** The pool is born (no VM exists or is recorded): its first new VM is made from initUserData. */
  initFirst?: boolean;
  /**
   * The VMs are nodes of a guest cluster the provider can reach (guestKubeconfig): each VM leaves the guest before it
   * is deleted, and a roll waits for its replacements' Nodes to be Ready before removing the old VMs.
   */
  guest?: boolean;
}

/** planPool computes the steps converging `observed` to `desired` (rules 1–6 above). */
export function planPool(desired: DesiredPool, observed: ObservedMachine[], options: PlanOptions = {}): Plan {
  const steps: PlanStep[] = [];
  const changes: string[] = [];
  const replaces: MachineReplacement[] = [];
  const ns = desired.identity.namespace;
  const pool = `${ns}/${desired.identity.name}`;
  const taken = new Set(observed.filter((m) => Number.isInteger(m.index)).map((m) => m.index));
  const deleting = observed.filter((m) => m.deleting);
  const members = observed.filter((m) => !m.deleting);
  const gone: string[] = deleting.map((m) => m.name);

  // Members without a valid index cannot be placed; they go first.
  const strays = members.filter((m) => !Number.isInteger(m.index));
  const indexed = members.filter((m) => Number.isInteger(m.index));
  const zoneOf = new Map(indexed.map((m) => [m.index, zoneOfVm(m.vm)]));

  // Rule 2: judge every member where it is, then scale down (outdated members first).
  const judged = new Map(indexed.map((m) => {
    const want = desired.build(m.index, zoneOf.get(m.index), claimNamesOf(m.vm), isInitMachine(m.vm));
    return [m.index, { want, ...judgeMachine(m.vm, want.vm, ns) }] as const;
  }));
  const rolls = (diffs: MachineDifference[]) => diffs.some((d) => !d.inPlace);
  const excess = Math.max(0, indexed.length - desired.count);
  const candidates = indexed.map((m) => ({ index: m.index, zone: zoneOf.get(m.index), outdated: rolls(judged.get(m.index)!.differences) }));
  const removedIdx = new Set(selectRemovals(candidates, excess, desired.zones));
  const scaledDown = [...strays, ...indexed.filter((x) => removedIdx.has(x.index)).sort((a, b) => b.index - a.index)];
  if (options.guest && scaledDown.length) steps.push({ action: 'leaveGuest', names: scaledDown.map((m) => m.name), reason: `remove ${scaledDown.map((m) => m.name).join(', ')} from the guest cluster before deleting them` });
  for (const m of scaledDown) {
    const reason = Number.isInteger(m.index)
      ? `scale down ${pool} to ${desired.count}: remove ${m.name}`
      : `remove ${m.name}: it carries the pool's labels but no pool index`;
    steps.push({ action: 'delete', name: m.name, index: m.index, claimNames: claimNamesOf(m.vm), reason });
    changes.push(reason);
    gone.push(m.name);
  }
  const kept = indexed.filter((m) => !removedIdx.has(m.index)).sort((a, b) => a.index - b.index);

  // Rule 3: place kept members; one that must move to another zone is judged again for that zone.
  const assignment = assignZones(kept.map((m) => ({ index: m.index, zone: zoneOf.get(m.index) })), desired.count, desired.zones);
  const outdated: { member: ObservedMachine; zone: string | undefined }[] = [];
  const waitFor: string[] = [];
  for (const m of kept) {
    const zone = assignment.zoneOf.get(m.index);
    let { want, differences, patch } = judged.get(m.index)!;
    if (zone !== zoneOf.get(m.index)) {
      want = desired.build(m.index, zone, claimNamesOf(m.vm), isInitMachine(m.vm));
      ({ differences, patch } = judgeMachine(m.vm, want.vm, ns));
    }
    if (rolls(differences)) {
      outdated.push({ member: m, zone });
      replaces.push({ name: m.name, differences });
      for (const d of differences) changes.push(`roll ${m.name}: ${d.detail}`);
      continue;
    }
    waitFor.push(m.name);
    if (differences.length) {
      const reason = `update ${m.name} in place: ${differences.map((d) => d.detail).join('; ')}`;
      steps.push({ action: 'patch', name: m.name, patch, differences, reason });
      changes.push(reason);
    }
    const secretFault = !m.secretExists ? 'missing' : m.secret && cloudInitDataDiffers(m.secret, want.secret) ? 'its content differs from the inputs' : undefined;
    if (secretFault) {
      const reason = `${m.secretExists ? 'rewrite' : 'recreate'} the cloud-init Secret of ${m.name} (${secretFault})`;
      steps.push({ action: 'ensureSecret', machine: want, reason });
      changes.push(reason);
    }
  }

  // Rule 4: healing at the recorded indexes that are missing, then scale-up at the lowest free ones.
  const missing = [...new Set(options.recordedIndexes ?? [])].filter((i) => Number.isInteger(i) && i >= 0 && !taken.has(i)).sort((a, b) => a - b);
  // Indexes are only ever taken within a plan, so the lowest free one never moves down: search on from it.
  let lowestFree = 0;
  const nextIndex = (): number => {
    const recorded = missing.shift();
    if (recorded !== undefined) {
      taken.add(recorded);
      return recorded;
    }
    while (taken.has(lowestFree)) lowestFree++;
    taken.add(lowestFree);
    return lowestFree;
  };
  let init = options.initFirst === true && members.length === 0;
  for (const zone of assignment.newZones) {
    const machine = desired.build(nextIndex(), zone, undefined, init);
    init = false;
    const reason = `create ${machine.name}${zone ? ` in zone ${zone}` : ''}: ${pool} has ${kept.length} of ${desired.count} VMs`;
    steps.push({ action: 'create', machine, reason });
    changes.push(reason);
    waitFor.push(machine.name);
  }

  // Rule 5: rolling waves. Replacements take the lowest free indexes, not recorded ones.
  missing.length = 0;
  const differencesOf = new Map(replaces.map((r) => [r.name, r.differences]));
  const { maxSurge, maxUnavailable } = desired.rolling;
  const waveSize = Math.max(1, maxSurge + maxUnavailable);
  for (let start = 0; start < outdated.length; start += waveSize) {
    const wave = outdated.slice(start, start + waveSize);
    const early = wave.slice(0, Math.min(maxUnavailable, wave.length));
    const late = wave.slice(early.length);
    if (options.guest && early.length) steps.push({ action: 'leaveGuest', names: early.map(({ member }) => member.name), reason: `roll: remove ${early.map(({ member }) => member.name).join(', ')} from the guest cluster first (maxUnavailable ${maxUnavailable})` });
    for (const { member } of early) {
      steps.push({ action: 'delete', name: member.name, index: member.index, claimNames: claimNamesOf(member.vm), reason: `roll ${member.name}: remove it before its replacement (maxUnavailable ${maxUnavailable})` });
    }
    const created: string[] = [];
    for (const { member, zone } of wave) {
      const machine = desired.build(nextIndex(), zone);
      const why = rollCause(differencesOf.get(member.name) ?? []);
      steps.push({ action: 'create', machine, reason: `roll ${member.name} (${why} changed): create its replacement ${machine.name}` });
      created.push(machine.name);
    }
    steps.push({ action: 'awaitReady', names: created, reason: `roll: wait for ${created.join(', ')} to be ready` });
    if (options.guest) {
      steps.push({ action: 'awaitGuestReady', names: created, reason: `roll: wait for ${created.join(', ')} to be Ready nodes of the guest cluster` });
      if (late.length) steps.push({ action: 'leaveGuest', names: late.map(({ member }) => member.name), reason: `roll: remove ${late.map(({ member }) => member.name).join(', ')} from the guest cluster (its replacement is Ready)` });
    }
    for (const { member } of late) {
      steps.push({ action: 'delete', name: member.name, index: member.index, claimNames: claimNamesOf(member.vm), reason: `roll ${member.name}: its replacement is ready` });
    }
    for (const { member } of wave) gone.push(member.name);
    waitFor.push(...created);
  }

  const upToDate = steps.length === 0;
  // Rule 6.
  if (waitFor.length) steps.push({ action: 'awaitReady', names: [...new Set(waitFor)].sort(byIndex), reason: `wait for ${pool} to be ready` });
  if (gone.length) steps.push({ action: 'awaitGone', names: [...new Set(gone)].sort(byIndex), reason: `wait for removed VMs of ${pool} to be gone` });
  return { upToDate, replaces, changes, steps };
}

const byIndex = naturalCompare;

/**
 * What a roll is for, in a few words: the inputs that differ, or, when none does, the fields no input reads back (an
 * input's change can move such a field too, e.g. an image its storage class: the change lines list every one).
 */
function rollCause(differences: MachineDifference[]): string {
  const rolled = differences.filter((d) => !d.inPlace);
  const inputs = rolled.filter((d) => d.input !== undefined).map((d) => d.input as string);
  return [...new Set(inputs.length ? inputs : rolled.map((d) => d.field as string))].join(', ');
}
