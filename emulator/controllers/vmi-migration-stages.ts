/**
 * The VMI side of a live migration (KubeVirt virt-handler on the source and target hosts), as rows of the VMI
 * stage table (vmi-stages.ts). The migration object's side is migration-stages.ts.
 *
 * 1. `vmi-migration-abort`    migrating, its migration object gone, deleting or failed
 *                             → migrationState abortRequested, abortStatus Succeeded, failed, completed; stays put
 * 2. `vmi-migration-start`    Running, a migration of it reached phase Running
 *                             → migrationState {migrationUid, sourceNode, targetNode, startTimestamp, mode PreCopy},
 *                               label `kubevirt.io/migrationTargetNodeName`                       (no delay)
 * 3. `vmi-migration-complete` migrating → status.nodeName and label `kubevirt.io/nodeName` = target,
 *                             migrationState completed + endTimestamp                        (delays.migration)
 *
 * A completed migration is a VMI change, so Harvester's host-label mirroring (vmi-host-labels.ts) copies the
 * new host's topology labels, and a guest cloud provider ≥ v0.2.0 re-syncs its Node.
 */
import { KubeObject } from '../api/types';
import { LABEL_KUBEVIRT_NODE_NAME, LABEL_MIGRATION_TARGET_NODE } from '../util/names';
import { field, isDeleting, labelsOf, statusOf, timestamp } from '../util/objects';
import { isUnfinished, MigrationStageContext, migrationInFlight, migrationsOfVmi } from './migration-stages';
import { Stage } from './stages';

function stateOf(vmi: KubeObject): Record<string, unknown> | undefined {
  return field<Record<string, unknown>>(vmi, 'status', 'migrationState');
}

function isRunning(vmi: KubeObject): boolean {
  return !isDeleting(vmi) && field(vmi, 'status', 'phase') === 'Running';
}

/** The migration object a VMI is (or should start) migrating for. */
function runningMigration(ctx: MigrationStageContext, vmi: KubeObject): KubeObject | undefined {
  return migrationsOfVmi(ctx, vmi).find((m) => !isDeleting(m) && field(m, 'status', 'phase') === 'Running' && field(m, 'status', 'migrationState', 'targetNode'));
}

/** The live migration rows of the VMI stage table. */
export function vmiMigrationStages(ctx: MigrationStageContext): { abort: Stage; start: Stage; complete: Stage } {
  const now = (): string => timestamp(ctx.clock.now());
  const ownMigration = (vmi: KubeObject): KubeObject | undefined => {
    const uid = stateOf(vmi)?.migrationUid;
    return migrationsOfVmi(ctx, vmi).find((m) => m.metadata.uid === uid);
  };
  return {
    abort: {
      name: 'vmi-migration-abort',
      when: (vmi) => {
        if (!isUnfinished(stateOf(vmi))) return false;
        const migration = ownMigration(vmi);
        return !migration || isDeleting(migration) || !migrationInFlight(migration);
      },
      delayMs: () => 0,
      next: (vmi) => {
        const at = now();
        statusOf(vmi).migrationState = { ...stateOf(vmi), abortRequested: true, abortStatus: 'Succeeded', failed: true, completed: true, endTimestamp: at };
        delete labelsOf(vmi)[LABEL_MIGRATION_TARGET_NODE];
        return vmi;
      },
    },
    start: {
      name: 'vmi-migration-start',
      when: (vmi) => {
        if (!isRunning(vmi) || isUnfinished(stateOf(vmi))) return false;
        const migration = runningMigration(ctx, vmi);
        return Boolean(migration) && stateOf(vmi)?.migrationUid !== migration!.metadata.uid;
      },
      delayMs: () => 0,
      next: (vmi) => {
        const migration = runningMigration(ctx, vmi);
        if (!migration) return undefined;
        const planned = field<Record<string, unknown>>(migration, 'status', 'migrationState') ?? {};
        const status = statusOf(vmi);
        status.migrationState = {
          migrationUid: migration.metadata.uid,
          sourceNode: status.nodeName,
          targetNode: planned.targetNode,
          targetPod: planned.targetPod,
          startTimestamp: now(),
          mode: 'PreCopy',
        };
        status.migrationMethod = 'LiveMigration';
        status.migrationTransport = 'Unix';
        labelsOf(vmi, true)[LABEL_MIGRATION_TARGET_NODE] = String(planned.targetNode);
        return vmi;
      },
    },
    complete: {
      name: 'vmi-migration-complete',
      when: (vmi) => isRunning(vmi) && isUnfinished(stateOf(vmi)) && Boolean(stateOf(vmi)?.targetNode),
      delayMs: () => ctx.options.delays.migration,
      next: (vmi) => {
        const state = { ...stateOf(vmi) };
        const target = String(state.targetNode);
        const status = statusOf(vmi);
        status.nodeName = target;
        const labels = labelsOf(vmi, true);
        labels[LABEL_KUBEVIRT_NODE_NAME] = target;
        delete labels[LABEL_MIGRATION_TARGET_NODE];
        status.migrationState = { ...state, completed: true, endTimestamp: now(), targetNodeDomainDetected: true };
        return vmi;
      },
    },
  };
}
