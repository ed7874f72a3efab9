/**
 * KubeVirt's virt-controller creating a VMI's virt-launcher pod (kubevirt pkg/virt-controller/watch/vmi/vmi.go
 * sync, v1.5.0): the pod is rendered by launcher-pod.ts and created through the store, so the apiserver's
 * admission runs, the ResourceQuota one included. A refused create leaves the VMI Pending with condition
 * `Synchronized=False`, reason `FailedCreate`, message `failed to create virtual machine pod: <error>`
 * (the condition keeps its first message while the reason stays the same: CheckFailure), and a Warning event
 * FailedCreate "Error creating pod: <error>" from `virtualmachine-controller`; a later attempt that succeeds
 * drops the condition and records SuccessfulCreate "Created virtual machine pod <name>".
 *
 * After a live migration completes, the VMI's pod on the source host finishes (phase Succeeded) and a pod
 * bound to the target host takes over (`handOverAfterMigration`).
 */
import { StatusError } from '../api/errors';
import { KubeObject, Store } from '../api/types';
import { clone, Condition, dropCondition, field, findCondition, setCondition, statusOf, timestamp, writeChanges } from '../util/objects';
import { Clock } from '../clock';
import { EventRecorder } from './events';
import { HarvesterKinds } from './kinds';
import { renderLauncherPod } from './launcher-pod';
import { launcherPodOf } from './node-usage';
import { kubevirtMinor, liveOverheadRatio, serverVersion } from './overcommit';

const COMPONENT = 'virtualmachine-controller';
const MANAGER = 'virt-controller';

/** What launching needs. */
export interface LaunchContext {
  store: Store;
  kinds: HarvesterKinds;
  clock: Clock;
  events: EventRecorder;
}

/** The pod KubeVirt would create for the VMI now (live settings). */
export function launcherPodFor(ctx: Pick<LaunchContext, 'store' | 'kinds'>, vmi: KubeObject): KubeObject {
  return renderLauncherPod(vmi, { kubevirtMinor: kubevirtMinor(serverVersion(ctx.store, ctx.kinds)), overheadRatio: liveOverheadRatio(ctx.store, ctx.kinds) });
}

/** Would creating the pod be refused now? The refusal's message, else undefined (a dry-run create). */
export function podCreateRefusal(ctx: Pick<LaunchContext, 'store' | 'kinds'>, vmi: KubeObject): string | undefined {
  try {
    ctx.store.create(ctx.kinds.pod, launcherPodFor(ctx, vmi), { dryRun: true, fieldManager: MANAGER });
    return undefined;
  } catch (err) {
    if (err instanceof StatusError) return err.status.message ?? err.message;
    throw err;
  }
}

/**
 * Creates a pod. The store keeps no status sent with a create of a kind with a status subresource; the phase
 * (Pending) and QoS class the apiserver's pod strategy sets on create arrive with the scheduler's first status
 * write (pod-scheduler.ts), one write fewer per VM. A pod created bound (after a migration) gets them here.
 */
function createPod(ctx: Pick<LaunchContext, 'store' | 'kinds'>, pod: KubeObject): KubeObject {
  const created = ctx.store.create(ctx.kinds.pod, pod, { fieldManager: MANAGER });
  if (!field(created, 'spec', 'nodeName')) return created;
  return writeChanges(ctx.store, ctx.kinds.pod, created, { ...clone(created), status: { ...(pod.status as object) } }, { fieldManager: MANAGER });
}

/** The VMI's FailedCreate condition, if it has one. */
export function failedCreate(vmi: KubeObject): Condition | undefined {
  const c = findCondition(vmi, 'Synchronized');
  return c?.status === 'False' && c.reason === 'FailedCreate' ? c : undefined;
}

/**
 * Creates the VMI's launcher pod. On success returns the VMI copy to write (Synchronized condition dropped);
 * on a refusal, the VMI copy with the FailedCreate condition (and records the event).
 */
export function launch(ctx: LaunchContext, vmi: KubeObject): { pod?: KubeObject; vmi: KubeObject } {
  const now = timestamp(ctx.clock.now());
  const conditions = field<Condition[]>(vmi, 'status', 'conditions');
  try {
    const pod = createPod(ctx, launcherPodFor(ctx, vmi));
    statusOf(vmi).conditions = dropCondition(conditions, 'Synchronized');
    ctx.events.record({ regarding: vmi, type: 'Normal', reason: 'SuccessfulCreate', message: `Created virtual machine pod ${pod.metadata.name}`, component: COMPONENT });
    return { pod, vmi };
  } catch (err) {
    if (!(err instanceof StatusError)) throw err;
    const message = err.status.message ?? err.message;
    ctx.events.record({ regarding: vmi, type: 'Warning', reason: 'FailedCreate', message: `Error creating pod: ${message}`, component: COMPONENT });
    if (!failedCreate(vmi)) {
      statusOf(vmi).conditions = setCondition(conditions, { type: 'Synchronized', status: 'False', reason: 'FailedCreate', message: `failed to create virtual machine pod: ${message}` }, now);
    }
    return { vmi };
  }
}

/**
 * After a completed live migration: the source pod finishes and a pod bound to the VMI's new host takes over.
 * The source pod finishes first, so a namespace quota never sees both (Harvester raises the quota during a
 * migration for the same reason: pkg/controller/master/migration).
 */
export function handOverAfterMigration(ctx: LaunchContext, vmi: KubeObject): void {
  const host = field<string>(vmi, 'status', 'nodeName');
  const state = field<Record<string, unknown>>(vmi, 'status', 'migrationState');
  const pod = launcherPodOf(ctx.store, ctx.kinds, vmi);
  if (!host || !pod || state?.completed !== true || field(pod, 'spec', 'nodeName') === host) return;
  const finished = clone(pod);
  statusOf(finished).phase = 'Succeeded';
  writeChanges(ctx.store, ctx.kinds.pod, pod, finished, { fieldManager: 'kubelet' });
  const target = launcherPodFor(ctx, vmi);
  (target.spec as Record<string, unknown>).nodeName = host;
  createPod(ctx, target);
}
