/**
 * KubeVirt's VirtualMachine status, derived from the VM and its VMI (kubevirt pkg/virt-controller/watch/vm.go
 * semantics, reduced): `created`, `ready`, `printableStatus` (Migrating while a live migration runs),
 * `runStrategy`, generations and the conditions Ready / PodScheduled / LiveMigratable / AgentConnected /
 * Synchronized copied from the VMI.
 */
import { KubeObject } from '../api/types';
import { Condition, dropCondition, field, findCondition, isDeleting, setCondition, specOf } from '../util/objects';

/** KubeVirt's effective run strategy of a VM (spec.runStrategy, else spec.running). */
export function runStrategyOf(vm: KubeObject): string {
  const spec = specOf(vm);
  if (typeof spec.runStrategy === 'string' && spec.runStrategy) return spec.runStrategy;
  return spec.running === true ? 'Always' : 'Halted';
}

/** Does the strategy ask for a running VMI? `undefined` = leave as is (Manual). */
export function wantsRunning(strategy: string): boolean | undefined {
  switch (strategy) {
    case 'Always':
    case 'RerunOnFailure':
    case 'Once':
      return true;
    case 'Halted':
      return false;
    default:
      return undefined;
  }
}

/** printableStatus as `kubectl get vm` shows it. */
export function printableStatus(vm: KubeObject, vmi: KubeObject | undefined): string {
  if (isDeleting(vm)) return 'Terminating';
  if (!vmi) return wantsRunning(runStrategyOf(vm)) ? 'Starting' : 'Stopped';
  if (isDeleting(vmi)) return 'Stopping';
  const phase = field<string>(vmi, 'status', 'phase');
  const migration = field<Record<string, unknown>>(vmi, 'status', 'migrationState');
  if (phase === 'Running' && migration && migration.completed !== true) return 'Migrating';
  if (phase === 'Running') return 'Running';
  if (findCondition(vmi, 'PodScheduled')?.status === 'False') return 'ErrorUnschedulable';
  if (phase === 'Failed') return 'CrashLoopBackOff';
  return 'Starting';
}

/** The VM status the controller wants, merged over the current one (unknown fields kept). */
export function desiredVmStatus(vm: KubeObject, vmi: KubeObject | undefined, now: string): Record<string, unknown> {
  const status = { ...((vm.status ?? {}) as Record<string, unknown>) };
  const ready = Boolean(
    vmi && !isDeleting(vmi) && field<string>(vmi, 'status', 'phase') === 'Running' && findCondition(vmi, 'Ready')?.status === 'True',
  );
  status.created = Boolean(vmi);
  status.ready = ready;
  status.printableStatus = printableStatus(vm, vmi);
  status.runStrategy = runStrategyOf(vm);
  const generation = vm.metadata.generation;
  if (typeof generation === 'number') {
    status.observedGeneration = generation;
    status.desiredGeneration = generation;
  }
  let conditions = (status.conditions as Condition[] | undefined) ?? [];
  if (ready) {
    conditions = setCondition(conditions, { type: 'Ready', status: 'True' }, now);
  } else if (!vmi) {
    conditions = setCondition(conditions, { type: 'Ready', status: 'False', reason: 'VMINotExists', message: 'VMI does not exist' }, now);
  } else {
    conditions = setCondition(conditions, { type: 'Ready', status: 'False', reason: 'PodNotReady' }, now);
  }
  // KubeVirt copies the VMI's conditions (a refused launcher pod shows as Synchronized=False/FailedCreate).
  for (const type of ['PodScheduled', 'LiveMigratable', 'AgentConnected', 'Synchronized']) {
    const fromVmi = vmi ? findCondition(vmi, type) : undefined;
    if (fromVmi && !(type === 'PodScheduled' && fromVmi.status === 'True')) {
      conditions = setCondition(conditions, { type, status: fromVmi.status, reason: fromVmi.reason, message: fromVmi.message }, now);
    } else {
      conditions = dropCondition(conditions, type);
    }
  }
  status.conditions = conditions;
  return status;
}
