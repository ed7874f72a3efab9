/**
 * Pure: when the readiness wait may stop waiting for a VM that no host can take (issue 35, docs/design/capacity.md
 * §during up), and what it then says.
 *
 * What a real Harvester shows: kube-scheduler leaves the launcher pod Pending with condition PodScheduled=False,
 * reason Unschedulable and its FitError as the message ("0/3 nodes are available: 3 Insufficient cpu. preemption:
 * …"), with a FailedScheduling event; KubeVirt's VMI controller copies that condition onto the VMI while it is
 * Scheduling, and its VM controller derives the VM's printableStatus ErrorUnschedulable from exactly that VMI
 * condition. So the VMI, which the wait already watches, carries both the verdict and the scheduler's words: no
 * other watch is needed.
 *
 * The condition is only a verdict on the room at the scheduler's last attempt. Room of our own on its way back (a VM
 * this operation deleted, a pool VMI still terminating) makes it temporary: the scheduler tries again when a pod
 * goes and places the VM. So a VM counts as stuck only when nothing of the pool is being deleted and its condition
 * was written after the last such deletion finished (a condition seen while room was coming back is stale until it
 * changes); and even then apply.ts reads the capacity afresh and keeps waiting when the hosts have room by now.
 */
import type { VirtualMachineInstance } from '../../client/objects';
import { ProviderError } from '../../core/errors';
import { splitAffinity } from './affinity';
import { DRIVER_LABELS } from './labels';

/** A VM the scheduler could not place. */
export interface Unplaced {
  name: string;
  /** kube-scheduler's message, as KubeVirt copied it onto the VMI. */
  message: string;
  /** The zone the VM is pinned to, if any. */
  zone?: string;
  /** Identifies this verdict: the VMI and the message. */
  signature: string;
}

/** The scheduler's message when the VMI's pod cannot be placed (PodScheduled=False, reason Unschedulable). */
export function unschedulableMessage(vmi: VirtualMachineInstance): string | undefined {
  const c = vmi.status?.conditions?.find((x) => x.type === 'PodScheduled');
  return c?.status === 'False' && c.reason === 'Unschedulable' ? (c.message ?? 'no host can take it') : undefined;
}

/** The zone a VMI is pinned to (its required node affinity, as the pool built it). */
function zoneOfVmi(vmi: VirtualMachineInstance): string | undefined {
  return splitAffinity(vmi.spec?.affinity as Record<string, unknown> | undefined, vmi.metadata.labels?.[DRIVER_LABELS.machineSetName] ?? '').zone;
}

/** Follows the VMIs a readiness wait sees and says which awaited VMs are stuck (see the file header). */
export class PlacementWatch {
  /** Per VMI, the verdict seen while room was on its way back: not trusted until it changes. */
  private readonly stale = new Map<string, string>();
  /** Verdicts already explained while the hosts had room: the scheduler is left to place those. */
  private readonly judged = new Set<string>();
  private first = true;

  /** `released`: the VMs this operation deleted so far (apply adds to it as it deletes). */
  constructor(private readonly released: ReadonlySet<string>) {}

  /** The awaited VMs (`names`) no host can take, as far as the VMIs tell. */
  stuck(names: readonly string[], vmis: readonly VirtualMachineInstance[]): Unplaced[] {
    const releasing = vmis.some((v) => Boolean(v.metadata.deletionTimestamp) || this.released.has(v.metadata.name ?? ''));
    // Before the first look, VMs deleted earlier in this operation may have freed room after the verdicts were written.
    const untrusted = releasing || (this.first && this.released.size > 0);
    this.first = false;
    const byName = new Map(vmis.map((v) => [v.metadata.name ?? '', v]));
    const out: Unplaced[] = [];
    for (const name of names) {
      const vmi = byName.get(name);
      const message = vmi && !vmi.metadata.deletionTimestamp ? unschedulableMessage(vmi) : undefined;
      if (!vmi || message === undefined) {
        this.stale.delete(name);
        continue;
      }
      const signature = `${vmi.metadata.uid ?? ''}\n${message}`;
      if (untrusted) this.stale.set(name, signature);
      else if (this.stale.get(name) !== signature && !this.judged.has(signature)) out.push({ name, message, zone: zoneOfVmi(vmi), signature });
    }
    return out;
  }

  /** The hosts had room for these after all: wait for the scheduler rather than report them again. */
  judge(unplaced: readonly Unplaced[]): void {
    for (const u of unplaced) this.judged.add(u.signature);
  }
}

/** Thrown by the readiness check to stop the wait; apply.ts explains it or waits on. */
export class UnplacedSignal extends Error {
  /** `vmis`: the pool's VMIs as the wait saw them then. */
  constructor(readonly unplaced: Unplaced[], readonly vmis: readonly VirtualMachineInstance[]) {
    super(`${unplaced.map((u) => u.name).join(', ')} cannot be placed`);
    this.name = 'UnplacedSignal';
  }
}

/** VMs per zone (zone unset: not pinned, or the pool has no zones). */
export interface ZoneCount {
  zone?: string;
  count: number;
}

function tally(zones: (string | undefined)[]): ZoneCount[] {
  const counts = new Map<string | undefined, number>();
  for (const z of zones) counts.set(z, (counts.get(z) ?? 0) + 1);
  return [...counts.entries()].map(([zone, count]) => (zone === undefined ? { count } : { zone, count }));
}

/**
 * The pool's VMs as the capacity check counts them while some wait for a host: those not placed yet (demand: the
 * stuck ones and any other still waiting), and those placed (they stay; the count a message suggests includes them).
 * `bound`: the VMs whose launcher pod is bound to a host, as just read (a VMI shows its host only once the pod
 * runs); without it, the VMIs' own nodeName.
 */
export function placementOf(vmis: readonly VirtualMachineInstance[], zoned: boolean, bound?: ReadonlySet<string>): { waiting: ZoneCount[]; placed: ZoneCount[] } {
  const live = vmis.filter((v) => !v.metadata.deletionTimestamp);
  const zone = (v: VirtualMachineInstance) => (zoned ? zoneOfVmi(v) : undefined);
  const isPlaced = (v: VirtualMachineInstance) => (bound ? bound.has(v.metadata.name ?? '') : Boolean(v.status?.nodeName));
  return { waiting: tally(live.filter((v) => !isPlaced(v)).map(zone)), placed: tally(live.filter(isPlaced).map(zone)) };
}

/**
 * The failure of a wait for VMs no host can take: each VM with the scheduler's own message, then the capacity as
 * read just now (the library's messages: what one VM asks, what each zone or quota has free) and any read that could
 * not be made.
 */
export function unplacedError(pool: string, unplaced: readonly Unplaced[], capacity: { problems: string[]; warnings: string[] }): ProviderError {
  const lines = unplaced.map((u) => `  - VirtualMachine ${pool.split('/')[0]}/${u.name}${u.zone ? ` (zone ${u.zone})` : ''}: ${u.message}`);
  const now = capacity.problems.length ? ['Capacity now:', ...capacity.problems.map((p) => `  - ${p}`)] : [];
  const unread = capacity.warnings.map((w) => `  - ${w}`);
  const vms = unplaced.length === 1 ? '1 VM' : `${unplaced.length} VMs`;
  return new ProviderError(
    'Unschedulable',
    [`Machine pool ${pool}: ${vms} cannot be placed on any host (the scheduler's reason below), so waiting for ${unplaced.length === 1 ? 'it' : 'them'} would only run out the timeout:`, ...lines, ...now, ...(unread.length ? ['Not read:', ...unread] : [])].join('\n'),
    {
      object: `MachinePool ${pool}`,
      fix: 'Make room (the options above: fewer or smaller VMs, more hosts, a higher overcommit-config, or stop other VMs), then run up again: what was made so far is recorded, and the next up carries on from it.',
    },
  );
}
