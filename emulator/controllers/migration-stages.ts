/**
 * KubeVirt's migration controller (virt-controller pkg/virt-controller/watch/migration), one stage per row over
 * VirtualMachineInstanceMigration objects. The VMI side (virt-handler moving the domain) is in
 * vmi-migration-stages.ts; the two meet through the VMI's `status.migrationState.migrationUid`.
 *
 * 1. `vmim-finalize`      deleting, the VMI no longer migrating for it → drop `kubevirt.io/migrationJobFinalize`
 * 2. `vmim-pending`       new                                    → phase Pending
 * 3. `vmim-failed`        in flight, VMI gone/deleting/final, or its migration aborted → phase Failed
 * 4. `vmim-scheduling`    Pending, VMI Running                   → phase Scheduling (target pod created)
 * 5. `vmim-unschedulable` Scheduling, no other host fits         → phase Failed    (delays.migrationUnschedulableTimeout)
 * 6. `vmim-scheduled`     Scheduling, a target host fits         → phase Scheduled + migrationState (delays.vmiSchedule)
 * 7. `vmim-preparing`     Scheduled                              → phase PreparingTarget
 * 8. `vmim-target-ready`  PreparingTarget                        → phase TargetReady
 * 9. `vmim-running`       TargetReady                            → phase Running (virt-handler starts copying)
 * 10. `vmim-succeeded`    Running, the VMI reports it completed  → phase Succeeded + the VMI's migrationState
 *
 * The target is picked like the target virt-launcher pod: the launcher pod's node selector, affinity and
 * requests (plus `spec.addedNodeSelector`, which cannot override them), never the source host, least loaded
 * first; while the migration runs the target host holds the VMI's requests too (node-usage.ts).
 */
import { KubeObject, Store } from '../api/types';
import { fnv1a } from '../util/hashing';
import { HarvesterKinds } from './kinds';
import { FINALIZER_MIGRATION, LABEL_MIGRATION_VMI } from '../util/names';
import { enterPhase, field, hasFinalizer, isDeleting, removeFinalizer, specOf, statusOf, timestamp } from '../util/objects';
import { ResolvedHarvesterOptions } from './options';
import { placeVmi } from './scheduler';
import { launcherPodOf, nodeUsage, podsPerNode } from './node-usage';
import { podRequests } from './launcher-pod';
import { Stage } from './stages';
import { Clock } from '../clock';

/** What the migration stages need. */
export interface MigrationStageContext {
  store: Store;
  kinds: HarvesterKinds;
  options: ResolvedHarvesterOptions;
  clock: Clock;
}

/** Phases after which a migration is no longer in flight. */
export const FINAL_MIGRATION_PHASES = ['Succeeded', 'Failed'];

function phaseOf(o: KubeObject | undefined): string {
  return String(field(o, 'status', 'phase') ?? '');
}

/** The VMI a migration is for. */
export function vmiOfMigration(ctx: MigrationStageContext, migration: KubeObject): KubeObject | undefined {
  return ctx.store.get(ctx.kinds.vmi, migration.metadata.namespace, String(field(migration, 'spec', 'vmiName') ?? ''));
}

/** Migrations of one VMI, found by KubeVirt's selector label. */
export function migrationsOfVmi(ctx: Pick<MigrationStageContext, 'store' | 'kinds'>, vmi: KubeObject): KubeObject[] {
  return ctx.store
    .list(ctx.kinds.vmim, { namespace: vmi.metadata.namespace, labelSelector: `${LABEL_MIGRATION_VMI}=${vmi.metadata.name}` })
    .items.filter((m) => field(m, 'spec', 'vmiName') === vmi.metadata.name);
}

/** True while a migration has not reached Succeeded or Failed. */
export function migrationInFlight(migration: KubeObject): boolean {
  return !FINAL_MIGRATION_PHASES.includes(phaseOf(migration));
}

/** The VMI's migration state when it belongs to `migration`. */
function stateFor(vmi: KubeObject | undefined, migration: KubeObject): Record<string, unknown> | undefined {
  const state = field<Record<string, unknown>>(vmi, 'status', 'migrationState');
  return state && state.migrationUid === migration.metadata.uid ? state : undefined;
}

/**
 * Where the target virt-launcher pod would run, or undefined when no other host fits: the source pod's
 * constraints and requests must fit a host besides the other pods' requests.
 */
export function migrationTarget(ctx: MigrationStageContext, vmi: KubeObject, migration: KubeObject): KubeObject | undefined {
  const source = field<string>(vmi, 'status', 'nodeName');
  const pod = launcherPodOf(ctx.store, ctx.kinds, vmi);
  const podSpec = { ...((pod?.spec as Record<string, unknown> | undefined) ?? specOf(vmi)) };
  const added = field<Record<string, string>>(migration, 'spec', 'addedNodeSelector') ?? {};
  // addedNodeSelector only restricts: on a key collision the VMI's own value is kept.
  podSpec.nodeSelector = { ...added, ...((podSpec.nodeSelector as Record<string, string> | undefined) ?? {}) };
  const nodes = ctx.store.list(ctx.kinds.node).items.filter((n) => n.metadata.name !== source);
  const used = nodeUsage(ctx.store, ctx.kinds);
  return placeVmi(podSpec, nodes, podsPerNode(used), { request: pod ? podRequests(pod) : { pods: 1 }, used }).node;
}

function vmiGoneOrFinal(vmi: KubeObject | undefined): boolean {
  return !vmi || isDeleting(vmi) || FINAL_MIGRATION_PHASES.includes(phaseOf(vmi));
}

/** The stage table of the migration controller. Delays are read live from `ctx.options.delays`. */
export function migrationStages(ctx: MigrationStageContext): Stage[] {
  const now = (): string => timestamp(ctx.clock.now());
  const step = (name: string, from: string, to: string): Stage => ({
    name,
    when: (m) => !isDeleting(m) && phaseOf(m) === from,
    delayMs: () => 0,
    next: (m) => enterPhase(m, to, now()),
  });
  return [
    {
      name: 'vmim-finalize',
      // An in-flight migration is aborted first (vmi-migration-abort), then released.
      when: (m) => isDeleting(m) && hasFinalizer(m, FINALIZER_MIGRATION) && !isUnfinished(stateFor(vmiOfMigration(ctx, m), m)),
      delayMs: () => 0,
      next: (m) => {
        removeFinalizer(m, FINALIZER_MIGRATION);
        return m;
      },
    },
    {
      name: 'vmim-pending',
      when: (m) => !isDeleting(m) && phaseOf(m) === '',
      delayMs: () => 0,
      next: (m) => enterPhase(m, 'Pending', now()),
    },
    {
      name: 'vmim-failed',
      when: (m) => {
        if (isDeleting(m) || !migrationInFlight(m) || phaseOf(m) === '') return false;
        const vmi = vmiOfMigration(ctx, m);
        return vmiGoneOrFinal(vmi) || stateFor(vmi, m)?.failed === true;
      },
      delayMs: () => 0,
      next: (m) => {
        const state = stateFor(vmiOfMigration(ctx, m), m);
        if (state) statusOf(m).migrationState = state;
        return enterPhase(m, 'Failed', now());
      },
    },
    {
      name: 'vmim-scheduling',
      when: (m) => !isDeleting(m) && phaseOf(m) === 'Pending' && phaseOf(vmiOfMigration(ctx, m)) === 'Running',
      delayMs: () => 0,
      next: (m) => enterPhase(m, 'Scheduling', now()),
    },
    {
      name: 'vmim-unschedulable',
      when: (m) => {
        if (isDeleting(m) || phaseOf(m) !== 'Scheduling') return false;
        const vmi = vmiOfMigration(ctx, m);
        return Boolean(vmi) && !migrationTarget(ctx, vmi!, m);
      },
      delayMs: () => ctx.options.delays.migrationUnschedulableTimeout,
      next: (m) => enterPhase(m, 'Failed', now()),
    },
    {
      name: 'vmim-scheduled',
      when: (m) => {
        if (isDeleting(m) || phaseOf(m) !== 'Scheduling') return false;
        const vmi = vmiOfMigration(ctx, m);
        return Boolean(vmi && migrationTarget(ctx, vmi, m));
      },
      delayMs: () => ctx.options.delays.vmiSchedule,
      next: (m) => {
        const vmi = vmiOfMigration(ctx, m);
        const target = vmi && migrationTarget(ctx, vmi, m);
        if (!vmi || !target) return undefined;
        statusOf(m).migrationState = {
          migrationUid: m.metadata.uid,
          sourceNode: field(vmi, 'status', 'nodeName'),
          targetNode: target.metadata.name,
          targetPod: `virt-launcher-${vmi.metadata.name}-${(fnv1a(String(m.metadata.uid)) % 36 ** 5).toString(36).padStart(5, '0')}`,
        };
        return enterPhase(m, 'Scheduled', now());
      },
    },
    step('vmim-preparing', 'Scheduled', 'PreparingTarget'),
    step('vmim-target-ready', 'PreparingTarget', 'TargetReady'),
    {
      name: 'vmim-running',
      when: (m) => !isDeleting(m) && phaseOf(m) === 'TargetReady',
      delayMs: () => 0,
      next: (m) => {
        const state = statusOf(m).migrationState as Record<string, unknown> | undefined;
        if (state) state.startTimestamp = now();
        return enterPhase(m, 'Running', now());
      },
    },
    {
      name: 'vmim-succeeded',
      when: (m) => {
        if (isDeleting(m) || phaseOf(m) !== 'Running') return false;
        const state = stateFor(vmiOfMigration(ctx, m), m);
        return state?.completed === true && state.failed !== true;
      },
      delayMs: () => 0,
      next: (m) => {
        const state = stateFor(vmiOfMigration(ctx, m), m);
        if (state) statusOf(m).migrationState = state;
        return enterPhase(m, 'Succeeded', now());
      },
    },
  ];
}

/** A VMI migration state that started and has not completed (or aborted) yet. */
export function isUnfinished(state: Record<string, unknown> | undefined): boolean {
  return Boolean(state) && state!.completed !== true;
}
