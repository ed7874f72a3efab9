/**
 * The machine pool's capacity check (issue 35; docs/design/capacity.md §the pool's check): will the VMs this run
 * creates fit, on the hosts and in the namespace's ResourceQuotas, at the plan's peak?
 *
 * - The VM: `cpu` and `memory` (the pool has no dedicated-CPU input), turned into requests by the library from the
 *   live overcommit-config (capacity/formulas.ts).
 * - The hosts it may use: per zone for a pool with `zones` (each VM is pinned to its zone), the required node
 *   affinity of `affinity`, the cluster networks of the VM networks, and what every launcher pod needs (Ready, not
 *   cordoned, taints, KubeVirt's node selector) (capacity/eligibility.ts).
 * - The peak: with every input known and the cluster context resolved, converge's own plan (planPool, which alone
 *   decides which VMs are outdated): its creates in their zones, the replaced VMs' room given back while
 *   `maxSurge` of them are still alive (count + maxSurge during a roll), the scale-down's deletions first. With
 *   inputs unknown until up (a preview), the VMs already there count as kept: the creates that fill `count` (a
 *   lower bound, so a shortfall is still certain; up's own check sees the whole plan).
 * - The reads (hosts, pods, settings, the namespace's quotas) are shared by every resource of the program for a few
 *   seconds (capacity/reads.ts), so a preview reads once however many pools it has; the pool itself costs one LIST
 *   each of its VMs and VMIs (preview-plan.ts), never a request per VM.
 *
 * A certain shortfall is a check failure in the library's message shape (property `count`, or the zone or
 * `affinity` when no host is eligible at all); one that rests on a read the credentials could not make, and every
 * shortfall with `capacityCheck: "warn"`, is a warning; `"off"` reads nothing.
 */
import type { HarvesterClient } from '../../client/harvester-client';
import { capacityOf, fit, peakOfRoll, type FitPlan, type FitResult, type HostRules, type PoolPeak, type VmShape, type ZoneDemand } from '../../capacity';
import { amountOf } from '../../capacity/amounts';
import type { CheckFailure } from '../../core/types';
import { containsUnknown } from '../../core/unknowns';
import type { RollingLimits } from './desired';
import { resolveRolling } from './desired';
import { machinePoolSchema, type AffinityInputs, type MachinePoolInputs } from './model';
import type { ObservedMachine, Plan } from './plan';
import { zoneOfVm } from './plan';
import type { PoolPreview } from './preview-plan';
import { readBackMachine } from './read-back';

type Obj = Record<string, unknown>;

/** What the check needs of the inputs. */
const SHAPE_KEYS = ['namespace', 'name', 'count', 'cpu', 'memory', 'zones', 'affinity', 'rollingUpdate', 'capacityCheck'] as const;
const shapeSchema = machinePoolSchema.pick(Object.fromEntries(SHAPE_KEYS.map((k) => [k, true])) as { [K in (typeof SHAPE_KEYS)[number]]: true });

/** The inputs the capacity check reads. */
export type PoolShape = Pick<MachinePoolInputs, (typeof SHAPE_KEYS)[number]>;

/**
 * The inputs the check needs, with defaults: from the checked inputs, else from raw inputs (a preview) when every one
 * of them is known; undefined otherwise (nothing to check until up).
 */
export function poolShapeOf(raw: Obj, inputs?: MachinePoolInputs): PoolShape | undefined {
  if (inputs) return inputs;
  const picked = Object.fromEntries(SHAPE_KEYS.filter((k) => raw[k] !== undefined).map((k) => [k, raw[k]]));
  if (containsUnknown(picked)) return undefined;
  const parsed = shapeSchema.safeParse(picked);
  return parsed.success ? (parsed.data as PoolShape) : undefined;
}

/** One VM of the pool as the library sizes it. */
export function vmShapeOf(pool: Pick<PoolShape, 'cpu' | 'memory'>): VmShape {
  return { cpu: pool.cpu, memoryBytes: amountOf('memory', pool.memory) ?? 0 };
}

/** The required node affinity terms of the pool's `affinity` (zones are fitted per zone, not as terms). */
function requiredTerms(affinity: AffinityInputs | undefined): HostRules['nodeSelectorTerms'] {
  return affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms as HostRules['nodeSelectorTerms'];
}

/** The pool's plan without its demand: the VM, the namespace and the hosts' rules. */
export function fitBaseOf(pool: PoolShape, clusterNetworks: string[]): Omit<FitPlan, 'create'> {
  const terms = requiredTerms(pool.affinity);
  return {
    pool: pool.name,
    namespace: pool.namespace,
    vm: vmShapeOf(pool),
    rules: { clusterNetworks, ...(terms?.length ? { nodeSelectorTerms: terms } : {}) },
  };
}

function tally(zones: (string | undefined)[]): ZoneDemand[] {
  const counts = new Map<string | undefined, number>();
  for (const z of zones) counts.set(z, (counts.get(z) ?? 0) + 1);
  return [...counts.entries()].map(([zone, count]) => (zone === undefined ? { count } : { zone, count }));
}

/** The largest size among live VMs (the old size a roll keeps alive at its peak). */
function largestOf(machines: ObservedMachine[]): VmShape | undefined {
  let out: VmShape | undefined;
  for (const m of machines) {
    const read = readBackMachine(m.vm);
    const shape = { cpu: read.cpu ?? 0, memoryBytes: amountOf('memory', read.memory ?? '0') ?? 0 };
    out = out ? { cpu: Math.max(out.cpu, shape.cpu), memoryBytes: Math.max(out.memoryBytes, shape.memoryBytes) } : shape;
  }
  return out;
}

/** A pool's peak, and its VMs that stay as they are (per zone, for the count a message suggests). */
export interface PoolDemand extends PoolPeak {
  kept: ZoneDemand[];
}

/** The live VMs that stay, per zone (`zoned`: counted in the zone each is pinned to). */
function keptOf(machines: ObservedMachine[], going: ReadonlySet<string>, zoned: boolean): ZoneDemand[] {
  return tally(machines.filter((m) => !m.deleting && !going.has(m.name)).map((m) => (zoned ? zoneOfVm(m.vm) : undefined)));
}

/**
 * The peak of converge's plan: every VM it creates, in the zone the planner gives it; the VMs it deletes (scale-down)
 * and those it replaces, whose room comes back; and, while rolling, the last `maxSurge` replaced VMs still alive at
 * the old size when the last replacements are made (the planner rolls them last, in index order). With waves of
 * maxSurge + maxUnavailable, each wave's early deletions before its creates, that is count + maxSurge VMs at most.
 */
export function peakOfPlan(plan: Plan, machines: ObservedMachine[], rolling: RollingLimits, zoned: boolean): { peak: PoolDemand; previousVm?: VmShape } {
  const replaced = plan.replaces.map((r) => r.name);
  const replacedSet = new Set(replaced);
  const create = tally(plan.steps.flatMap((s) => (s.action === 'create' ? [s.machine.zone] : [])));
  const removed = plan.steps.flatMap((s) => (s.action === 'delete' && !replacedSet.has(s.name) ? [s.name] : []));
  const byName = new Map(machines.map((m) => [m.name, m]));
  const outdated = replaced.map((n) => byName.get(n)).filter((m): m is ObservedMachine => m !== undefined);
  const alive = rolling.maxSurge > 0 ? outdated.slice(-Math.min(rolling.maxSurge, outdated.length)) : [];
  const release = [...removed, ...replaced];
  return {
    peak: { create, surge: tally(alive.map((m) => (zoned ? zoneOfVm(m.vm) : undefined))), release, kept: keptOf(machines, new Set(release), zoned) },
    previousVm: largestOf(alive),
  };
}

/** The peak when converge's plan cannot be made yet: the VMs there count as kept, the rest are created. */
export function peakOfKnownCounts(pool: PoolShape, machines: ObservedMachine[]): PoolDemand {
  const existing = machines.filter((m) => !m.deleting && Number.isInteger(m.index)).sort((a, b) => a.index - b.index)
    .map((m) => ({ name: m.name, zone: zoneOfVm(m.vm), outdated: false }));
  const peak = peakOfRoll({ count: pool.count, zones: pool.zones, existing, rolling: resolveRolling(pool.rollingUpdate, pool.count) });
  return { ...peak, kept: keptOf(machines.filter((m) => Number.isInteger(m.index)), new Set(peak.release), pool.zones.length > 0) };
}

/**
 * The property a shortfall is reported on: `count` (what lowering fixes), or, when no host of a zone is eligible at
 * all, that zone's entry (or `affinity`, which is then what rules every host out).
 */
function propertyOf(zone: FitResult['zones'][number], pool: PoolShape): string {
  if (zone.limiting !== 'no eligible host') return 'count';
  if (zone.zone !== undefined && pool.zones.includes(zone.zone)) return `zones[${pool.zones.indexOf(zone.zone)}]`;
  return requiredTerms(pool.affinity)?.length ? 'affinity' : 'count';
}

/** The check's verdict as check failures and warnings, by `capacityCheck`. */
export function findingsOf(verdict: FitResult, pool: PoolShape): { failures: CheckFailure[]; warnings: string[] } {
  const short = verdict.zones.filter((z) => z.fits < z.demand);
  const hostProblems = verdict.problems.filter((p) => p.scope === 'hosts');
  const failures: CheckFailure[] = [];
  const warnings = [...verdict.warnings];
  verdict.problems.forEach((p) => {
    if (!p.certain) return; // already among the warnings, marked uncertain
    const property = p.scope === 'hosts' ? propertyOf(short[hostProblems.indexOf(p)], pool) : 'count';
    if (pool.capacityCheck === 'error') failures.push({ property, reason: p.message });
    else warnings.push(`capacity: ${p.message}`);
  });
  return { failures, warnings };
}

/** What the pool's check knows besides its inputs. */
export interface CapacityCheckArgs {
  pool: PoolShape;
  /** The pool's objects and, when it could be made, converge's plan. */
  preview: PoolPreview;
  /** Cluster networks of the VM networks that were read (those unknown or deferred are not a rule: fewer rules, a lower bound). */
  clusterNetworks: string[];
}

/** The capacity check of one pool: failures (certain shortfalls, `capacityCheck: "error"`) and warnings. */
export async function checkPoolCapacity(client: HarvesterClient, args: CapacityCheckArgs): Promise<{ failures: CheckFailure[]; warnings: string[] }> {
  const { pool, preview } = args;
  if (pool.capacityCheck === 'off') return { failures: [], warnings: [] };
  const machines = preview.observation.machines;
  const { peak, previousVm } = preview.planned
    ? peakOfPlan(preview.planned.plan, machines, preview.planned.desired.rolling, pool.zones.length > 0)
    : { peak: peakOfKnownCounts(pool, machines), previousVm: undefined };
  // Nothing to place: no reads, no warnings (an unchanged pool, a scale-down, a change made in place).
  if (peak.create.every((d) => d.count === 0)) return { failures: [], warnings: [] };
  const capacity = await capacityOf(client, { namespace: pool.namespace, storage: false });
  const verdict = fit(capacity, { ...fitBaseOf(pool, args.clusterNetworks), ...peak, ...(previousVm ? { previousVm } : {}) });
  return findingsOf(verdict, pool);
}
