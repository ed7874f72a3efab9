/**
 * HarvesterMachinePool on the reconciler (core/reconciler): guest-node VMs built as Rancher's node driver builds
 * them, each with its cloud-init Secret and volumes, all found by the pool's ownership labels (never by name).
 * - check: every invalid input with its fix, then the inputs against the cluster (images, ISO, networks, key pairs,
 *   namespace, zones: cluster-checks.ts), the names the plan would take (name-conflicts.ts, always reported) and
 *   whether its VMs fit on the hosts and in the quotas (capacity-check.ts); unknown values (preview) are skipped,
 *   never failed.
 * - diff: input-level (diff.ts); name/namespace replace (a new pool's VMs are made before the old ones go).
 * - converge and remove: converge.ts. A failure part-way is recorded with whatever of the pool exists, its
 *   cloud-init Secrets included (a VM create refused after its Secret was written leaves that Secret recorded, so
 *   destroy removes it), with a drift line saying it did not finish, so the next run converges from there.
 * - read: outputs per VM and inputs rebuilt from the cluster, secret ones included (read.ts).
 */
import { reconciledProvider, type ReconcilerOptions } from '../../core/reconciler/reconciler';
import type { ManagedResource } from '../../core/reconciler/resource';
import { sameUserInputs } from '../../core/input-errors';
import { isUnknown } from '../../core/unknowns';
import { checkPoolCapacity, poolShapeOf } from './capacity-check';
import { checkAgainstCluster } from './cluster-checks';
import { convergePool, randomSuffix, removePool, type ObservedPool } from './converge';
import { diffInputs } from './diff';
import { poolIdentity, poolOwner, type PoolIdentity } from './labels';
import { machinePoolSchema, type MachinePoolInputs } from './model';
import { previewNameConflicts } from './name-conflicts';
import { previewPool } from './preview-plan';
import { listPoolObjects, observationOf } from './observe';
import { machinePoolOutputsSchema, toOutputs, type MachinePoolOutputs } from './outputs';
import { liveMachines, readBack } from './read';
import { reconstructInputs } from './reconstruct';
import { validateInputs } from './validate';
import { isInitMachine } from './desired';
import { USER_DATA_HASH } from './labels';

/** Injection points for tests and the SDK. */
export interface MachinePoolProviderOptions extends ReconcilerOptions {
  /** Writes in flight at most. @default WRITE_PARALLELISM (apply.ts) */
  parallelism?: number;
}

type Inputs = MachinePoolInputs;
type Outputs = MachinePoolOutputs;

const timeoutsOf = (recorded: Partial<Outputs>) => machinePoolSchema.shape.timeouts.parse(recorded.timeouts);

/** The machine pool resource; `parallelism` bounds its writes in flight. */
export function machinePoolResource(parallelism?: number): ManagedResource<Inputs, Outputs, ObservedPool> {
  return {
    type: 'HarvesterMachinePool',
    model: { inputs: machinePoolSchema, outputs: machinePoolOutputsSchema, validate: validateInputs, notOnCluster: ['rollingUpdate', 'volumeDeletion', 'capacityCheck'] },
    scope: 'namespaced',
    ref: (v) => ({ namespace: v.namespace ?? 'default', name: v.name as string }),
    describe: (ref) => `pool ${ref.namespace}/${ref.name}`,
    owner: (ref) => poolOwner(poolIdentity({ namespace: ref.namespace as string, name: ref.name })),

    async observe(ctx, ref, values) {
      // Check reads what it needs itself (cluster-checks.ts); every other call works from one observation.
      if (ctx.operation === 'check') return undefined;
      const identity = poolIdentity({ ...(values as Partial<Inputs>), namespace: ref.namespace as string, name: ref.name });
      const withVolumes = ctx.operation === 'read' && (values.volumeDeletion ?? 'delete') === 'delete';
      const listed = await listPoolObjects(ctx.client, identity, { withVmis: true, withSecrets: true, withVolumes });
      const recorded = (ctx.operation === 'read' && !ctx.importing) || ctx.operation === 'update';
      return { identity, observation: observationOf(identity, { ...listed, vmis: listed.vmis ?? [] }), secrets: listed.secrets ?? [], recorded };
    },
    // A refresh keeps a pool whose VMs are all gone (to be healed), an import needs a VM; a failed create is recorded
    // when anything of it was written (a VM, or a Secret written before its VM was refused), a failed update always.
    exists: (live) => live.recorded === true || live.observation.machines.length > 0 || live.secrets.length > 0,
    owns: () => true, // everything observed was listed by the pool's ownership labels
    foreign: () => [], // names the plan takes are checked as such (name-conflicts.ts)

    async checkCluster(ctx, { inputs, raw, recorded, inProgram }) {
      const cluster = await checkAgainstCluster(ctx.client, raw, inProgram);
      const identity = knownIdentity(raw);
      if (!identity) return { references: cluster.failures, always: [] };
      // The plan converge would make (its context complete only without cluster failures; inputs exist only when every
      // input is known), from one observation of the pool shared by the name and capacity checks.
      const context = cluster.failures.length === 0 && cluster.deferred.length === 0 ? cluster.context : undefined;
      // Capacity only when the cluster checks pass (a missing image already stops up) and something changed (below).
      const pool = poolShapeOf(raw, inputs);
      const capacityDue = pool !== undefined && pool.capacityCheck !== 'off' && cluster.failures.length === 0 && !unchanged(recorded, inputs);
      if (!inputs && !capacityDue) return { references: cluster.failures, always: [] };
      const preview = await previewPool(ctx.client, identity, inputs && context ? { inputs, context, volumeSuffix: randomSuffix } : undefined);
      const [always, capacity] = await Promise.all([
        inputs ? previewNameConflicts(ctx.client, inputs, preview) : [],
        pool && capacityDue ? checkPoolCapacity(ctx.client, { pool, preview, clusterNetworks: cluster.clusterNetworks }) : undefined,
      ]);
      for (const line of capacity?.warnings ?? []) ctx.warn(`pool ${identity.namespace}/${identity.name}: ${line}`);
      // A capacity shortfall goes with the references, which check leaves to read while every input is unchanged since
      // the last deployment (trap 10 of docs/design/dynamic-host-contract.md), not with the always-reported names: it is a fact of the cluster, not of the
      // inputs (others take and free room), and with unchanged inputs the engine's diff finds nothing to do unless a
      // refresh recorded drift, so up creates nothing and a full cluster must not fail every preview of the stack.
      // When a refresh did record a lost VM, up recreates it, and a VM that cannot be placed fails up's readiness wait
      // at once with the scheduler's own message (unschedulable.ts) rather than being refused here.
      return { references: [...cluster.failures, ...(capacity?.failures ?? [])], always };
    },

    converge: (ctx, inputs, live, op, recorded) => convergePool(ctx, inputs, live ?? emptyPool(inputs), op, recorded, parallelism),

    liveInputs: (live, recorded) => reconstructInputs(recorded as Outputs, liveMachines(live).map((m) => m.vm)).inputs as Partial<Inputs>,
    drift: (recorded, live) => reconstructInputs(recorded as unknown as Outputs, liveMachines(live).map((m) => m.vm)).drift,
    readBack: (live, recorded, importing) => readBack(live, { ...recorded, namespace: live.identity.namespace, name: live.identity.name } as Outputs, importing),
    diff: (olds, news) => ({ ...diffInputs(olds, news as Record<string, unknown>), deleteBeforeReplace: false }),
    outputs: (inputs, live, drift) => toOutputs(inputs, live.observation.statuses, drift, live.cloudInitHash, initOf(live)),

    remove: (ctx, live, _ref, recorded) => removePool(ctx, live, recorded, timeoutsOf(recorded), parallelism),
  };
}

/** The VM made from initUserData, while it lives, and what it was rendered to. */
function initOf(live: ObservedPool): { machine: string; cloudInitHash: string } | undefined {
  const vm = live.observation.machines.find((m) => !m.deleting && isInitMachine(m.vm));
  const hash = vm?.vm.metadata.annotations?.[USER_DATA_HASH];
  return vm && hash ? { machine: vm.name, cloudInitHash: live.initCloudInitHash ?? hash } : undefined;
}

/** The pool's namespace and name when both are known (a preview may not know them yet). */
function knownIdentity(raw: Record<string, unknown>): PoolIdentity | undefined {
  const { name, namespace = 'default' } = raw;
  return typeof name === 'string' && !isUnknown(name) && typeof namespace === 'string' && !isUnknown(namespace) ? { namespace, name } : undefined;
}

/** Every input the same as at the last deployment (check then reports no reference failure: see checkCluster). */
function unchanged(recorded: Partial<Outputs>, inputs: Inputs | undefined): boolean {
  const olds = validateInputs(recorded as Record<string, unknown>).inputs;
  return inputs !== undefined && olds !== undefined && sameUserInputs(olds, inputs);
}

/** The observation of a pool of which nothing exists yet. */
function emptyPool(inputs: Inputs): ObservedPool {
  const identity = poolIdentity(inputs);
  return { identity, observation: { machines: [], statuses: [], strayVolumes: [] }, secrets: [] };
}

export function createMachinePoolProvider(options: MachinePoolProviderOptions = {}) {
  return reconciledProvider(machinePoolResource(options.parallelism), options);
}

export type MachinePoolProvider = ReturnType<typeof createMachinePoolProvider>;
