/**
 * Apply: runs a plan's steps against the cluster through the client layer. Consecutive steps of the same
 * kind run in parallel (bounded); waits watch, never sleep. Every write carries the pool's ownership, so
 * nothing we do not own is ever changed (the client refuses with NotOwned). Idempotent: a step repeated
 * after a crash finds its own objects (deterministic VM names; create returns our equivalent object).
 *
 * - ensureSecret: a kept VM's cloud-init Secret created when missing, its data written back when it differs.
 * - create: the cloud-init Secret first (so a VM never boots on a Secret we do not own), then the VM, then
 *   the Secret's ownerReference to the VM (garbage-collected with it, as the node driver's Secret is,
 *   docs/design/harvester-vms.md §"Create order").
 * - delete: with volumeDeletion "delete", first the annotation harvesterhci.io/removedPersistentVolumeClaims
 *   naming the VM's own (non-hot-plugged) claims, which Harvester's VM controller deletes with the VM
 *   (docs/design/harvester-vms.md §"Delete"); then a foreground delete.
 * - patch: user labels/annotations, merge-patched in place (null removes a key).
 */
import type { HarvesterClient } from '../../client/harvester-client';
import type { Secret, VirtualMachine, VirtualMachineInstance } from '../../client/objects';
import { waitFor } from '../../await/awaiter';
import type { Clock } from '../../await/clock';
import { WaitTimeoutError } from '../../await/errors';
import { AlreadyExistsError } from '../../client/errors';
import { mapLimit } from '../../core/concurrency';
import type { DesiredMachine, DesiredPool } from './desired';
import { readyTimeout } from './errors';
import { HARVESTER_ANNOTATIONS, poolOwner } from './labels';
import type { PlanStep } from './plan';
import { readinessOf, poolReadiness } from './ready';
import { withoutCloudInitData } from './cloud-init-secret';
import { claimNamesOf } from './read-back';
import { listPoolObjects, observationOf, observePool, type PoolObservation } from './observe';
import { awaitGuestReady, leaveGuest, type GuestWaitOptions } from './guest-nodes';
import { computeCapacity, fit, ineligibility, readCapacity, type FitPlan } from '../../capacity';
import { PlacementWatch, UnplacedSignal, placementOf, unplacedError } from './unschedulable';

/** The part of the desired pool that removals and waits need (delete has no full desired pool). */
export type PoolTarget = Pick<DesiredPool, 'identity' | 'selector' | 'volumeDeletion'>;

/** How apply runs. */
export interface ApplyOptions {
  client: HarvesterClient;
  desired: PoolTarget;
  /** Absolute deadline (ms since epoch, on `clock`) of the whole operation. */
  deadline: number;
  /** The timeout option governing this operation, for messages: `create`, `update` or `delete`. */
  timeoutOption: 'create' | 'update' | 'delete';
  /** The whole timeout, for messages (e.g. "15m"). */
  timeoutText: string;
  /** Guest-agent facts for the readiness error. */
  guestAgent: 'install' | 'none';
  agentInUserData: 'yes' | 'no' | 'unknown';
  clock?: Clock;
  /** Writes in flight at most. @default WRITE_PARALLELISM */
  parallelism?: number;
  onProgress?: (line: string) => void;
  /** The guest cluster the VMs are nodes of (guestKubeconfig), connected on first use: plans with guest steps only. */
  guest?: () => Promise<HarvesterClient>;
  /** Stop a readiness wait as soon as a VM cannot be placed (unschedulable.ts); unset: wait out the timeout. */
  placement?: PlacementCheck;
  /** The machine again on other volume claim names (DesiredPool.build): lets a create take our VM made concurrently. */
  rebuild?: (machine: DesiredMachine, claimNames: string[]) => DesiredMachine;
}

/** What the readiness wait needs to tell a VM no host can take (unschedulable.ts) and to say why. */
export interface PlacementCheck {
  /** The VMs this operation deleted so far (the delete steps add to it): their room is coming back. */
  released: Set<string>;
  /** The pool's VM and the hosts it may use, without the demand (capacity-check.ts fitBaseOf). */
  fitBase: Omit<FitPlan, 'create'>;
  /** The pool spreads over zones: VMs are counted against their zone's hosts. */
  zoned: boolean;
}

/**
 * Writes in flight at most. 16 measured best for a 50-VM pool at 10 ms RTT (`npm run bench`, figure 1: 1.23x one
 * VM's time, against 1.34x at 8 and 1.39x at 32, where the emulator and provider share two cores).
 */
export const WRITE_PARALLELISM = 16;

/** Steps that wait (or, leaving the guest, go one VM at a time): never batched with their neighbours. */
const WAITS = new Set<PlanStep['action']>(['awaitReady', 'awaitGone', 'awaitGuestReady', 'leaveGuest']);

/** applySteps runs the steps in order; see the file header. */
export async function applySteps(steps: PlanStep[], options: ApplyOptions): Promise<void> {
  let i = 0;
  while (i < steps.length) {
    const action = steps[i].action;
    let j = i;
    while (j < steps.length && steps[j].action === action && !WAITS.has(action)) j++;
    const batch = j === i ? [steps[i]] : steps.slice(i, j);
    await mapLimit(batch, options.parallelism ?? WRITE_PARALLELISM, (step) => runStep(step, options));
    i += batch.length;
  }
}

async function runStep(step: PlanStep, o: ApplyOptions): Promise<void> {
  o.onProgress?.(step.reason);
  switch (step.action) {
    case 'create':
      return createMachine(step.machine, o);
    case 'ensureSecret': {
      const vm = await o.client.virtualMachines.get(step.machine.name, step.machine.vm.metadata.namespace);
      if (vm) await ensureSecret(step.machine, vm, o);
      return;
    }
    case 'patch': {
      const patch = {
        metadata: { labels: step.patch.labels, annotations: step.patch.annotations },
        spec: { template: { metadata: { labels: step.patch.templateLabels } } },
      };
      await o.client.virtualMachines.mergePatch(step.name, patch, { namespace: o.desired.identity.namespace, owner: poolOwner(o.desired.identity) });
      return;
    }
    case 'delete':
      o.placement?.released.add(step.name);
      return deleteMachine(step.name, step.claimNames, o);
    case 'awaitReady':
      await awaitReady(step.names, o);
      return;
    case 'awaitGone':
      return awaitGone(step.names, o);
    case 'awaitGuestReady':
      return awaitGuestReady(step.names, await guestOptions(o));
    case 'leaveGuest':
      return leaveGuest(step.names, await guestOptions(o));
  }
}

/** The guest waits' options; a plan has guest steps only when the pool has a guest cluster. */
async function guestOptions(o: ApplyOptions): Promise<GuestWaitOptions> {
  if (!o.guest) throw new Error('machine pool: a guest step without guestKubeconfig (plan and apply disagree)');
  return { guest: await o.guest(), remainingMs: () => remaining(o), timeoutOption: o.timeoutOption, onProgress: o.onProgress, clock: o.clock };
}

/**
 * applyAndObserve runs the steps, then observes the pool for the outputs (and, with `withVolumes`, its stray
 * volumes). When the last step waits for readiness, that wait's watch already holds every VMI of the pool as it
 * was when the last VM became ready (the source orders events by resourceVersion and re-lists after a 410), so
 * only the VMs (and PVCs) are listed, while the wait runs: every write is done by then, and nothing the outputs
 * take from a VM (name, index, zone, deletion) changes without a write. Otherwise one observation after the steps.
 */
export async function applyAndObserve(steps: PlanStep[], o: ApplyOptions, options: { withVolumes: boolean }): Promise<PoolObservation> {
  const last = steps[steps.length - 1];
  if (last?.action !== 'awaitReady' || last.names.length === 0) {
    await applySteps(steps, o);
    return observePool(o.client, o.desired.identity, options);
  }
  await applySteps(steps.slice(0, -1), o);
  o.onProgress?.(last.reason);
  const listing = listPoolObjects(o.client, o.desired.identity, options);
  listing.catch(() => undefined); // a failed list is reported after the wait, which must not be left running
  const vmis = await awaitReady(last.names, o);
  return observationOf(o.desired.identity, { ...(await listing), vmis });
}

/**
 * The Secret first: the VM boots from whatever Secret carries its name, so the VM is created only once the
 * Secret is ours (the client refuses, NotOwned, to take over a Secret without our labels). Then the
 * ownerReference to the VM, so the Secret is garbage-collected with it.
 *
 * A VM whose create fails (a webhook refusing it, a lost connection) leaves its Secret with nothing to own it:
 * the Secret is removed before the error returns rather than recorded as a partial failure. It holds the user
 * data (passwords, tokens) and is of no use without its VM; the next `up` writes it again; and a pool whose first
 * VM failed has nothing else to record, so a record would keep secrets on the cluster until the user thought of
 * `destroy`. It stays only when the VM exists after all (a create that succeeded behind an error): that VM is
 * recorded and boots from it. If the removal cannot be done, the failure is recorded (handlers.ts) and destroy
 * sweeps it.
 */
async function createMachine(machine: DesiredMachine, o: ApplyOptions): Promise<void> {
  const owner = poolOwner(o.desired.identity);
  const ns = o.desired.identity.namespace;
  const secret = await o.client.secrets.create(machine.secret, { owner });
  let vm: VirtualMachine;
  try {
    vm = await o.client.virtualMachines.create(machine.vm, { owner }).catch(async (err: unknown) => {
      const ours = err instanceof AlreadyExistsError ? await ourConcurrentMachine(machine, o) : undefined;
      if (!ours) throw err;
      return ours;
    });
  } catch (err) {
    await removeUnusedSecret(machine, o).catch(() => undefined);
    throw err;
  }
  const ref = { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine', name: vm.metadata.name as string, uid: vm.metadata.uid as string };
  if (!(secret.metadata.ownerReferences ?? []).some((r) => r.uid === ref.uid)) {
    await o.client.secrets.mergePatch(secret.metadata.name as string, { metadata: { ownerReferences: [ref] } }, { namespace: ns, owner });
  }
}

/**
 * The VM another create of this same pool made between our observation and our create (two hosts running one
 * resource's create at once), when it is the machine we wanted but for its volume claim names, which are random per
 * VM incarnation (desired.ts): taken as ours, as the client takes an equal object of ours. The create is asked again
 * with the live VM's claim names, so anything else that differs is still refused with the path that differs.
 */
async function ourConcurrentMachine(machine: DesiredMachine, o: ApplyOptions): Promise<VirtualMachine | undefined> {
  if (!o.rebuild) return undefined;
  const live = await o.client.virtualMachines.get(machine.name, o.desired.identity.namespace);
  if (!live || live.metadata.deletionTimestamp) return undefined;
  const claims = claimNamesOf(live);
  if (claims.length !== machine.claimNames.length || claims.every((c, i) => c === machine.claimNames[i])) return undefined;
  return o.client.virtualMachines.create(o.rebuild(machine, claims).vm, { owner: poolOwner(o.desired.identity) });
}

/** Deletes a machine's cloud-init Secret when no VM of that name exists (createMachine says why). */
async function removeUnusedSecret(machine: DesiredMachine, o: ApplyOptions): Promise<void> {
  const ns = o.desired.identity.namespace;
  if (await o.client.virtualMachines.get(machine.name, ns)) return;
  await o.client.secrets.delete(machine.secret.metadata.name as string, { namespace: ns, owner: poolOwner(o.desired.identity) });
}

/** deleteVolumes removes PVCs of the pool by name (only ours: the client checks the ownership labels). */
export async function deleteVolumes(claims: string[], o: Pick<ApplyOptions, 'client' | 'desired' | 'parallelism'>): Promise<void> {
  const ns = o.desired.identity.namespace;
  const owner = poolOwner(o.desired.identity);
  await mapLimit(claims, o.parallelism ?? WRITE_PARALLELISM, (claim) => o.client.persistentVolumeClaims.delete(claim, { namespace: ns, owner }));
}

/**
 * A member's cloud-init Secret as the inputs render it: created when missing, its cloud-init data written back
 * when it differs (only ours: the client checks the ownership labels; other keys are left as they are).
 */
async function ensureSecret(machine: DesiredMachine, vm: VirtualMachine, o: ApplyOptions): Promise<void> {
  const owner = poolOwner(o.desired.identity);
  const ns = o.desired.identity.namespace;
  const name = machine.secret.metadata.name as string;
  if (await o.client.secrets.get(name, ns)) {
    await o.client.secrets.update(name, ns, (live) => ({ ...live, data: { ...withoutCloudInitData(live.data), ...machine.secret.data } }), { owner });
    return;
  }
  const secret: Secret = {
    ...machine.secret,
    metadata: {
      ...machine.secret.metadata,
      ownerReferences: [{ apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine', name: vm.metadata.name as string, uid: vm.metadata.uid as string }],
    },
  };
  await o.client.secrets.create(secret, { owner });
}

/** deleteMachine removes one VM of the pool (and its volumes, per policy). */
export async function deleteMachine(name: string, claimNames: string[], o: Pick<ApplyOptions, 'client' | 'desired'>): Promise<void> {
  const ns = o.desired.identity.namespace;
  const owner = poolOwner(o.desired.identity);
  if (o.desired.volumeDeletion === 'delete' && claimNames.length) {
    const live = await o.client.virtualMachines.get(name, ns);
    if (!live) return;
    if (!live.metadata.deletionTimestamp) {
      await o.client.virtualMachines.mergePatch(name, { metadata: { annotations: { [HARVESTER_ANNOTATIONS.removedPvcs]: claimNames.join(',') } } }, { namespace: ns, owner });
    }
  }
  await o.client.virtualMachines.delete(name, { namespace: ns, propagationPolicy: 'Foreground', owner });
}

function remaining(o: ApplyOptions): number {
  return Math.max(1, o.deadline - (o.clock?.now().getTime() ?? Date.now()));
}

/**
 * awaitReady waits until the named VMs are ready; resolves with every VMI of the pool the watch holds then. With
 * `placement`, a VM no host can take stops the wait at once (unschedulable.ts) unless the hosts have room by now.
 */
async function awaitReady(names: string[], o: ApplyOptions): Promise<VirtualMachineInstance[]> {
  if (names.length === 0) return [];
  const ns = o.desired.identity.namespace;
  const pool = `${ns}/${o.desired.identity.name}`;
  const watch = o.placement ? new PlacementWatch(o.placement.released) : undefined;
  for (;;) {
    try {
      return await waitFor<VirtualMachineInstance>({
        resource: o.client.virtualMachineInstances,
        namespace: ns,
        labelSelector: o.desired.selector,
        check: (vmis) => {
          const verdict = poolReadiness(names, vmis);
          const stuck = verdict.done ? [] : (watch?.stuck(names, vmis) ?? []);
          return stuck.length ? { ...verdict, error: new UnplacedSignal(stuck, vmis) } : verdict;
        },
        timeoutMs: remaining(o),
        what: `machine pool ${pool} to be ready (${names.join(', ')})`,
        timeoutOption: `timeouts.${o.timeoutOption}`,
        onProgress: o.onProgress,
        clock: o.clock,
      });
    } catch (err) {
      if (err instanceof UnplacedSignal && o.placement && watch) {
        await explainUnplaced(err, pool, o.placement, o);
        watch.judge(err.unplaced);
        continue;
      }
      if (!(err instanceof WaitTimeoutError)) throw err;
      const vmis = new Map((err.lastSeen as VirtualMachineInstance[]).map((v) => [v.metadata.name ?? '', v]));
      const machines = names.map((name) => {
        const vmi = vmis.get(name);
        const r = readinessOf(vmi);
        return { name: `${ns}/${name}`, phase: r.phase, host: vmi?.status?.nodeName, waitingFor: r.waitingFor, runningWithoutIp: r.runningWithoutIp };
      }).filter((m) => m.waitingFor !== 'ready');
      throw readyTimeout(pool, o.timeoutText, o.timeoutOption, machines, o.guestAgent, o.agentInUserData);
    }
  }
}

/**
 * VMs the scheduler could not place: the capacity read afresh (never the check's shared snapshot, which predates
 * this operation's writes) and every VM of the pool not placed yet fitted on it. Throws the failure with the
 * scheduler's words and these numbers, unless room is on its way back: a pod still terminating on a host the pool
 * may use (the pool's own deleted VM, when its VMI went first), or every read succeeded and the hosts have room by
 * now. Then the wait goes on, and the scheduler, which tries again whenever a pod goes, places them.
 */
async function explainUnplaced(signal: UnplacedSignal, pool: string, placement: PlacementCheck, o: ApplyOptions): Promise<void> {
  const { unplaced } = signal;
  const reads = await readCapacity(o.client, { namespace: placement.fitBase.namespace, storage: false });
  const capacity = computeCapacity(reads);
  const usable = new Set(capacity.hosts.filter((h) => !ineligibility(h, placement.fitBase.rules ?? {})).map((h) => h.name));
  const freeing = [...new Set((reads.pods ?? []).filter((p) => p.metadata.deletionTimestamp && usable.has(p.spec?.nodeName ?? '')).map((p) => p.spec?.nodeName))];
  const bound = capacity.launchers && new Set(capacity.launchers.filter((l) => l.host).map((l) => l.vm));
  const { waiting, placed } = placementOf(signal.vmis, placement.zoned, bound);
  const verdict = fit(capacity, { ...placement.fitBase, create: waiting, kept: placed });
  const them = unplaced.length === 1 ? 'it' : 'them';
  const names = unplaced.map((u) => u.name).join(', ');
  if (freeing.length) return o.onProgress?.(`${names}: not placed yet; room is being freed on ${freeing.join(', ')} (a pod terminating), waiting for the scheduler`);
  if (capacity.certain && verdict.fits) return o.onProgress?.(`${names}: not placed yet, but the hosts have room for ${them} now; waiting for the scheduler`);
  throw unplacedError(pool, unplaced, { problems: verdict.problems.map((p) => p.message), warnings: capacity.warnings });
}

/** awaitGone waits until the named VMs of the pool no longer exist. */
export async function awaitGone(names: string[], o: ApplyOptions): Promise<void> {
  if (names.length === 0) return;
  const ns = o.desired.identity.namespace;
  const wanted = new Set(names);
  await waitFor<VirtualMachine>({
    resource: o.client.virtualMachines,
    namespace: ns,
    labelSelector: o.desired.selector,
    check: (vms) => {
      const left = vms.filter((vm) => wanted.has(vm.metadata.name ?? ''));
      const fin = [...new Set(left.flatMap((vm) => vm.metadata.finalizers ?? []))];
      return {
        done: left.length === 0,
        description: left.length === 0
          ? `removed VMs are gone (${names.length})`
          : `waiting for ${left.map((vm) => vm.metadata.name).join(', ')} to be deleted${fin.length ? ` (finalizers: ${fin.join(', ')})` : ''}`,
        pending: left.map((vm) => `${vm.metadata.name} still exists`),
      };
    },
    timeoutMs: remaining(o),
    what: `removed VMs of machine pool ${ns}/${o.desired.identity.name} to be gone (${names.join(', ')})`,
    timeoutOption: `timeouts.${o.timeoutOption}`,
    onProgress: o.onProgress,
    clock: o.clock,
  });
}
