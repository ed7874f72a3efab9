/**
 * The machine pool's provider handlers in the shape of Pulumi's dynamic.ResourceProvider:
 * model (zod) → plan (pure) → apply (API through the client layer).
 *
 * - check: every invalid input with its fix, then the inputs against the cluster (images, ISO, networks,
 *   key pairs, namespace, zones, names the plan takes): what up would refuse, refused first; unknown values
 *   (preview) are skipped, never failed.
 * - diff: input-level (diff.ts); name/namespace replace, everything else updates in place.
 * - create/update: observe → plan → apply → wait until every VM is Running with an IPv4 address. A failure
 *   part-way is recorded with what exists (ResourceInitError) and a drift line saying it did not finish, so
 *   the next run plans it again and converges from there.
 * - read: outputs per VM and inputs rebuilt from the cluster, secret ones included (read.ts).
 * - delete: every VM of the pool (volumes per policy), waits until gone; only objects with our labels.
 * The kubeconfig travels as an input (secret) and in outputs (kept secret by Pulumi under the same name),
 * because read and delete receive only outputs.
 */
import { userInputs as withoutHiddenInputs } from '../../core/check-flow';
import { HarvesterClient } from '../../client/harvester-client';
import { unchangedReferencesDropped } from '../../core/input-errors';
import { connectionFor } from '../../core/connection';
import { registerSecret } from '../../client/redact';
import type { Clock } from '../../await/clock';
import { systemClock } from '../../await/clock';
import { mapLimit } from '../../core/concurrency';
import { ProviderError, errorMessage } from '../../core/errors';
import { recordPartial, type WriteOperation } from '../../core/partial';
import { parseDuration } from '../../core/duration';
import type { CheckResult, CreateResult, DiffResult, ReadResult, UpdateResult } from '../../core/types';
import { declaredInProgram } from '../../core/program-refs';
import { isUnknown } from '../../core/unknowns';
import { progressFor, type ProgressSink } from '../../core/progress';
import { WRITE_PARALLELISM, applyAndObserve, awaitGone, deleteMachine, deleteVolumes, type PoolTarget } from './apply';
import { guestAgentIn } from './cloud-config';
import { checkAgainstCluster } from './cluster-checks';
import { clusterUnreachable } from './errors';
import { desiredVirtualMachines, suffixFrom, type DesiredPool } from './desired';
import { diffInputs } from './diff';
import { poolIdentity, poolOwner, poolSelector } from './labels';
import { SECRET_INPUTS, type MachinePoolInputs } from './model';
import { claimNamesOf } from './normalize';
import { plannedNameConflicts, previewNameConflicts } from './name-conflicts';
import { listPoolObjects, observationOf, observePool } from './observe';
import { toOutputs, type MachinePoolOutputs } from './outputs';
import { planPool } from './plan';
import { readPool, recordedOrNamed } from './read';
import { validateInputs } from './validate';
import { randomBytes } from 'node:crypto';

/** Injection points for tests and the SDK. */
export interface MachinePoolProviderOptions {
  /** How to reach the cluster. @default HarvesterClient.connect with connectionFor (override, stack config, $KUBECONFIG) */
  connect?: (options: { kubeconfig?: string; context?: string }) => Promise<HarvesterClient>;
  /** Clock of deadlines and waits. @default the system clock */
  clock?: Clock;
  /** Progress lines ("2/3 VMs ready; …") and the pool they are about. @default dropped */
  onProgress?: ProgressSink;
  /** Writes in flight at most. @default WRITE_PARALLELISM (apply.ts) */
  parallelism?: number;
}

type Raw = Record<string, unknown>;

/**
 * The user's inputs (keys starting with "__", such as `__provider`, dropped). Their secret values are
 * registered for redaction on the way in, so no error or log line of any layer can quote them (the
 * kubeconfig is registered by the client layer when it is loaded).
 */
function userInputs(raw: Raw | undefined): Raw {
  const inputs = withoutHiddenInputs(raw);
  for (const key of SECRET_INPUTS) {
    const value = inputs[key];
    // A kubeconfig may be a file path, which must stay readable in messages: kube-config.ts registers its content.
    if (key !== 'kubeconfig' && typeof value === 'string' && !isUnknown(value)) registerSecret(value);
  }
  return inputs;
}

/** parseInputs validates handler inputs (already checked by the engine) and fills defaults. */
function parseInputs(raw: Raw): MachinePoolInputs {
  const v = validateInputs(raw);
  if (v.inputs) return v.inputs;
  const lines = v.failures.map((f) => `  - ${f.reason}`).join('\n');
  throw new ProviderError('InvalidInputs', `The machine pool inputs are invalid:\n${lines}\n`, { fix: 'Fix the inputs above and run again.' });
}

/** PVC suffixes are random per VM incarnation (see desired.ts for why). */
function randomSuffix(): string {
  return suffixFrom(randomBytes(16).toString('hex'));
}

/** createMachinePoolProvider returns the handlers, with injection points for tests. */
export function createMachinePoolProvider(options: MachinePoolProviderOptions = {}) {
  const connect = options.connect ?? ((o: { kubeconfig?: string; context?: string }) => HarvesterClient.connect(connectionFor(o)));
  const clock = options.clock ?? systemClock;

  async function converge(inputs: MachinePoolInputs, client: HarvesterClient, op: 'create' | 'update', recorded?: Partial<MachinePoolOutputs>): Promise<MachinePoolOutputs> {
    const timeout = inputs.timeouts[op];
    const deadline = clock.now().getTime() + (parseDuration(timeout) ?? 0);
    const checked = await checkAgainstCluster(client, inputs as unknown as Raw);
    if (checked.failures.length) {
      throw new ProviderError('InvalidInputs', `Machine pool ${inputs.namespace}/${inputs.name} cannot be ${op}d:\n${checked.failures.map((f) => `  - ${f.reason}`).join('\n')}\n`, {
        fix: 'Fix the inputs above and run again.',
      });
    }
    const desired: DesiredPool = desiredVirtualMachines(inputs, { ...checked.context, volumeSuffix: randomSuffix });
    const observed = await observePool(client, desired.identity, { withSecrets: true });
    const plan = planPool(desired, observed.machines, { recordedIndexes: (recorded?.machines ?? []).map((m) => m.index) });
    const taken = await plannedNameConflicts(client, desired, plan.steps);
    if (taken.length) {
      throw new ProviderError('NameTaken', `Machine pool ${inputs.namespace}/${inputs.name} cannot be ${op}d:\n${taken.map((f) => `  - ${f.reason}`).join('\n')}\n`, {
        fix: 'Delete or import the objects above and run again.',
      });
    }
    const applyOptions = {
      client,
      desired,
      deadline,
      timeoutOption: op,
      timeoutText: timeout,
      guestAgent: inputs.guestAgent,
      agentInUserData: inputs.guestAgent === 'install' ? 'yes' : guestAgentIn(inputs.userData),
      clock,
      parallelism: options.parallelism,
      onProgress: progressFor(options.onProgress, inputs),
    };
    // The outputs and, with volumeDeletion "delete", the disks of VMs deleted out of band (nothing named them for
    // removal, found by the pool's labels) come from one observation, made while the last readiness wait runs.
    const deletesVolumes = inputs.volumeDeletion === 'delete';
    const final = await applyAndObserve(plan.steps, applyOptions, { withVolumes: deletesVolumes });
    if (deletesVolumes) await deleteVolumes(final.strayVolumes, applyOptions);
    return toOutputs(inputs, final.statuses, [], desired.cloudInitHash);
  }

  /**
   * A create/update recorded with whatever exists when it fails (core/partial.ts), so the next run converges. The
   * record carries a drift line saying the operation did not finish: diff then plans it again even when every VM
   * on record is ready (an update that failed before its first step, or between two waves of a roll). An update
   * is recorded even with no VM left; a create that made no VM has nothing to record, unless a cloud-init Secret
   * of the pool is left (apply.ts removes a failed VM's Secret; one whose removal failed too is recorded here,
   * so destroy sweeps it).
   */
  function recorded(id: string, inputs: MachinePoolInputs, client: HarvesterClient, op: WriteOperation, apply: () => Promise<MachinePoolOutputs>) {
    return recordPartial(apply, {
      id,
      op,
      object: `pool ${inputs.namespace}/${inputs.name}`,
      observe: async (drift) => {
        const { vms, vmis, secrets = [] } = await listPoolObjects(client, poolIdentity(inputs), { withVmis: true, withSecrets: true });
        const { statuses } = observationOf(poolIdentity(inputs), { vms, vmis: vmis ?? [] });
        return op === 'create' && statuses.length === 0 && secrets.length === 0 ? undefined : toOutputs(inputs, statuses, drift);
      },
    });
  }

  return {
    /** check validates inputs and checks them against the cluster; see the file header. */
    async check(olds: Raw, news: Raw): Promise<CheckResult<Raw>> {
      const raw = userInputs(news);
      const v = validateInputs(raw);
      const failures = [...v.failures];
      if (!isUnknown(raw.kubeconfig) && !isUnknown(raw.context)) {
        try {
          const client = await connect({ kubeconfig: raw.kubeconfig as string | undefined, context: raw.context as string | undefined });
          const seen = new Set(failures.map((f) => f.property));
          const cluster = await checkAgainstCluster(client, raw, declaredInProgram(news));
          const recorded = userInputs(olds);
          const found = unchangedReferencesDropped(cluster.failures, (validateInputs(recorded).inputs ?? recorded) as Raw, (v.inputs ?? raw) as Raw);
          for (const f of found) if (!seen.has(f.property)) failures.push(f);
          // Names on the plan converge makes (its context complete only without cluster failures), never dropped:
          // up refuses them whether or not the inputs changed. v.inputs exists only when every input is known.
          if (v.inputs) {
            const context = cluster.failures.length === 0 && cluster.deferred.length === 0 ? cluster.context : undefined;
            failures.push(...(await previewNameConflicts(client, v.inputs, context, randomSuffix)));
          }
        } catch (err) {
          failures.push(clusterUnreachable(errorMessage(err)));
        }
      }
      if (failures.length) return { inputs: news, failures };
      return { inputs: (v.inputs as unknown as Raw) ?? v.previewInputs ?? raw };
    },

    /** diff compares recorded outputs with new inputs (diff.ts). */
    async diff(_id: string, olds: Raw, news: Raw): Promise<DiffResult> {
      const d = diffInputs(olds as Partial<MachinePoolOutputs>, userInputs(news));
      return { changes: d.changes, replaces: d.replaces, deleteBeforeReplace: false };
    },

    /** create builds the pool and waits until every VM is ready. */
    async create(raw: Raw): Promise<CreateResult<MachinePoolOutputs>> {
      const inputs = parseInputs(userInputs(raw));
      const id = `${inputs.namespace}/${inputs.name}`;
      const client = await connect({ kubeconfig: inputs.kubeconfig, context: inputs.context });
      return { id, outs: await recorded(id, inputs, client, 'create', () => converge(inputs, client, 'create')) };
    },

    /** read reports the pool as it is, with inputs reconstructed for drift (read.ts). */
    async read(id: string, props?: Raw): Promise<ReadResult<MachinePoolOutputs>> {
      const previous = recordedOrNamed(id, props);
      return readPool(await connect({ kubeconfig: previous.kubeconfig, context: previous.context }), id, previous);
    },

    /** update scales, heals and rolls the pool to the new inputs. */
    async update(id: string, olds: Raw, news: Raw): Promise<UpdateResult<MachinePoolOutputs>> {
      const inputs = parseInputs(userInputs(news));
      const client = await connect({ kubeconfig: inputs.kubeconfig, context: inputs.context });
      return { outs: await recorded(id, inputs, client, 'update', () => converge(inputs, client, 'update', olds as Partial<MachinePoolOutputs>)) };
    },

    /** delete removes every VM of the pool (volumes per policy) and waits until they are gone. */
    async delete(_id: string, props: Raw): Promise<void> {
      const recorded = props as unknown as MachinePoolOutputs;
      const identity = poolIdentity(recorded);
      const timeout = recorded.timeouts?.delete ?? '10m';
      const client = await connect({ kubeconfig: recorded.kubeconfig, context: recorded.context });
      const target: PoolTarget = { identity, selector: poolSelector(identity), volumeDeletion: recorded.volumeDeletion ?? 'delete' };
      const observed = await observePool(client, identity, { withSecrets: true });
      const o = {
        client,
        desired: target,
        deadline: clock.now().getTime() + (parseDuration(timeout) ?? 600_000),
        timeoutOption: 'delete' as const,
        timeoutText: timeout,
        guestAgent: recorded.guestAgent ?? 'install',
        agentInUserData: 'unknown' as const,
        clock,
        onProgress: progressFor(options.onProgress, identity),
      };
      const parallelism = options.parallelism ?? WRITE_PARALLELISM;
      await mapLimit(observed.machines.filter((m) => !m.deleting), parallelism, (m) => deleteMachine(m.name, claimNamesOf(m.vm), o));
      await awaitGone(observed.machines.map((m) => m.name), o);
      if (target.volumeDeletion === 'delete') {
        // Every disk of the pool, found by its labels: also those of VMs deleted out of band.
        const claims = await client.persistentVolumeClaims.list({ namespace: identity.namespace, labelSelector: target.selector });
        await deleteVolumes(claims.items.filter((c) => !c.metadata.deletionTimestamp).map((c) => c.metadata.name as string), o);
      }
      // Secrets go with their VM (ownerReference); one left by a create that failed in between goes here.
      const secrets = await client.secrets.list({ namespace: identity.namespace, labelSelector: target.selector });
      await mapLimit(secrets.items, parallelism, (s) => client.secrets.delete(s.metadata.name as string, { namespace: identity.namespace, owner: poolOwner(identity) }));
    },
  };
}

/** The handler object type. */
export type MachinePoolProvider = ReturnType<typeof createMachinePoolProvider>;
