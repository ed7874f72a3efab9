/**
 * The machine pool's writes: converge (the cluster checks again, with the context the plan needs; observe → plan →
 * apply → wait until every VM is Running with an IPv4 address, a VM no host can take failing the wait at once) and remove (every VM of the pool, volumes per
 * policy, then the pool's leftovers found by its labels). Waits watch, never sleep; every write carries the pool's
 * ownership (apply.ts).
 */
import { randomBytes } from 'node:crypto';
import type { Secret } from '../../client/objects';
import { mapLimit } from '../../core/concurrency';
import { ProviderError } from '../../core/errors';
import type { WriteOperation } from '../../core/partial';
import { failureLines } from '../../core/reconciler/reconciler';
import type { ResourceContext } from '../../core/reconciler/resource';
import { timeoutMs } from '../../core/timeouts';
import { WRITE_PARALLELISM, applyAndObserve, awaitGone, deleteMachine, deleteVolumes, type ApplyOptions, type PoolTarget } from './apply';
import { guestAgentIn } from './cloud-config';
import { checkAgainstCluster } from './cluster-checks';
import { desiredVirtualMachines, isInitMachine, suffixFrom, type DesiredPool } from './desired';
import { poolOwner, poolSelector, type PoolIdentity } from './labels';
import type { MachinePoolInputs } from './model';
import { plannedNameConflicts } from './name-conflicts';
import { claimNamesOf } from './read-back';
import type { PoolObservation } from './observe';
import { clearCapacityCache } from '../../capacity';
import { fitBaseOf } from './capacity-check';
import type { MachinePoolOutputs } from './outputs';
import { planPool } from './plan';

/** `make` called once, its promise shared. */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
}

/** PVC suffixes are random per VM incarnation (see desired.ts for why). */
export function randomSuffix(): string {
  return suffixFrom(randomBytes(16).toString('hex'));
}

/** What a pool call works on: the pool's objects, observed, and the Secrets listed by its labels. */
export interface ObservedPool {
  identity: PoolIdentity;
  observation: PoolObservation;
  /** Every cloud-init Secret of the pool (its labels), a VM's or one a failed create left without its VM. */
  secrets: Secret[];
  /** The rendered cloud-init digest of a converge (what every VM now carries). */
  cloudInitHash?: string;
  /** The rendered initUserData's digest of a converge (what the VM made from it carries). */
  initCloudInitHash?: string;
  /**
   * The pool stands even with nothing of it on the cluster: a refresh of a recorded pool (its VMs lost, to be healed)
   * and a failed update (the program's inputs recorded, to resume).
   */
  recorded?: boolean;
}

/** Brings the pool to the inputs from `live` (observed with its Secrets), waiting until every VM is ready. */
export async function convergePool(
  ctx: ResourceContext, inputs: MachinePoolInputs, live: ObservedPool, op: WriteOperation, recorded: Partial<MachinePoolOutputs>, parallelism?: number,
): Promise<ObservedPool> {
  const { client, clock } = ctx;
  const timeout = inputs.timeouts[op];
  const deadline = clock.now().getTime() + timeoutMs(inputs.timeouts, op);
  // What check refuses, up refuses before its first write; the same reads give the plan its context.
  const checked = await checkAgainstCluster(client, inputs as unknown as Record<string, unknown>);
  if (checked.failures.length) {
    throw new ProviderError('InvalidInputs', `Machine pool ${inputs.namespace}/${inputs.name} cannot be ${op}d:\n${failureLines(checked.failures)}\n`, { fix: 'Fix the inputs above and run again.' });
  }
  const desired: DesiredPool = desiredVirtualMachines(inputs, { ...checked.context, volumeSuffix: randomSuffix });
  // Born: no VM of the pool exists or is recorded, so its first VM initialises the cluster (initUserData).
  const born = live.observation.machines.length === 0 && (recorded.machines ?? []).length === 0;
  const plan = planPool(desired, live.observation.machines, {
    recordedIndexes: (recorded.machines ?? []).map((m) => m.index),
    initFirst: born && inputs.initUserData !== undefined,
    guest: inputs.guestKubeconfig !== undefined,
  });
  const taken = await plannedNameConflicts(client, desired, plan.steps);
  if (taken.length) {
    throw new ProviderError('NameTaken', `Machine pool ${inputs.namespace}/${inputs.name} cannot be ${op}d:\n${failureLines(taken)}\n`, { fix: 'Delete or import the objects above and run again.' });
  }
  const options: ApplyOptions = {
    client,
    desired,
    deadline,
    timeoutOption: op,
    timeoutText: timeout,
    guestAgent: inputs.guestAgent,
    agentInUserData: inputs.guestAgent === 'install' ? 'yes' : guestAgentIn(inputs.userData),
    clock,
    parallelism,
    onProgress: ctx.progress,
    guest: inputs.guestKubeconfig === undefined ? undefined : once(() => ctx.connect({ kubeconfig: inputs.guestKubeconfig })),
    rebuild: (machine, claimNames) => desired.build(machine.index, machine.zone, claimNames, isInitMachine(machine.vm)),
    // capacityCheck "off" waits out the timeout as before: the user expects room the check cannot see (hosts joining).
    placement: inputs.capacityCheck === 'off' ? undefined : { released: new Set(), fitBase: fitBaseOf(inputs, checked.clusterNetworks), zoned: inputs.zones.length > 0 },
  };
  // The outputs and, with volumeDeletion "delete", the disks of VMs deleted out of band (nothing named them for
  // removal, found by the pool's labels) come from one observation, made while the last readiness wait runs.
  const deletesVolumes = inputs.volumeDeletion === 'delete';
  let final: PoolObservation;
  try {
    final = await applyAndObserve(plan.steps, options, { withVolumes: deletesVolumes });
  } finally {
    // This process changed what the hosts hold: the next check (another pool of the program, at up) reads afresh.
    if (!plan.upToDate) clearCapacityCache();
  }
  if (deletesVolumes) await deleteVolumes(final.strayVolumes, options);
  return { identity: live.identity, observation: final, secrets: live.secrets, cloudInitHash: desired.cloudInitHash, initCloudInitHash: desired.initCloudInitHash };
}

/** Removes every VM of the pool (volumes per policy) and waits until they are gone; then the pool's leftovers. */
export async function removePool(ctx: ResourceContext, live: ObservedPool, recorded: Partial<MachinePoolOutputs>, timeouts: MachinePoolInputs['timeouts'], parallelism = WRITE_PARALLELISM): Promise<void> {
  const { client, clock } = ctx;
  const { identity } = live;
  const target: PoolTarget = { identity, selector: poolSelector(identity), volumeDeletion: recorded.volumeDeletion ?? 'delete' };
  const o: ApplyOptions = {
    client,
    desired: target,
    deadline: clock.now().getTime() + timeoutMs(timeouts, 'delete'),
    timeoutOption: 'delete',
    timeoutText: timeouts.delete,
    guestAgent: recorded.guestAgent ?? 'install',
    agentInUserData: 'unknown',
    clock,
    parallelism,
    onProgress: ctx.progress,
  };
  const machines = live.observation.machines;
  await mapLimit(machines.filter((m) => !m.deleting), parallelism, (m) => deleteMachine(m.name, claimNamesOf(m.vm), o));
  await awaitGone(machines.map((m) => m.name), o);
  if (target.volumeDeletion === 'delete') {
    // Every disk of the pool, found by its labels: also those of VMs deleted out of band.
    const claims = await client.persistentVolumeClaims.list({ namespace: identity.namespace, labelSelector: target.selector });
    await deleteVolumes(claims.items.filter((c) => !c.metadata.deletionTimestamp).map((c) => c.metadata.name as string), o);
  }
  // Secrets go with their VM (ownerReference); one left by a create that failed in between goes here.
  const secrets = await client.secrets.list({ namespace: identity.namespace, labelSelector: target.selector });
  await mapLimit(secrets.items, parallelism, (s) => client.secrets.delete(s.metadata.name as string, { namespace: identity.namespace, owner: poolOwner(identity) }));
}
