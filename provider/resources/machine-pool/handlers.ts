/**
 * HarvesterMachinePool on the reconciler (core/reconciler): guest-node VMs built as Rancher's node driver builds
 * them, each with its cloud-init Secret and volumes, all found by the pool's ownership labels (never by name).
 * - check: every invalid input with its fix, then the inputs against the cluster (images, ISO, networks, key pairs,
 *   namespace, zones: cluster-checks.ts) and the names the plan would take (name-conflicts.ts, always reported);
 *   unknown values (preview) are skipped, never failed.
 * - diff: input-level (diff.ts); name/namespace replace (a new pool's VMs are made before the old ones go).
 * - converge and remove: converge.ts. A failure part-way is recorded with whatever of the pool exists, its
 *   cloud-init Secrets included (a VM create refused after its Secret was written leaves that Secret recorded, so
 *   destroy removes it), with a drift line saying it did not finish, so the next run converges from there.
 * - read: outputs per VM and inputs rebuilt from the cluster, secret ones included (read.ts).
 */
import { reconciledProvider, type ReconcilerOptions } from '../../core/reconciler/reconciler';
import type { ManagedResource } from '../../core/reconciler/resource';
import { checkAgainstCluster } from './cluster-checks';
import { convergePool, randomSuffix, removePool, type ObservedPool } from './converge';
import { diffInputs } from './diff';
import { poolIdentity, poolOwner } from './labels';
import { machinePoolSchema, type MachinePoolInputs } from './model';
import { previewNameConflicts } from './name-conflicts';
import { listPoolObjects, observationOf } from './observe';
import { machinePoolOutputsSchema, toOutputs, type MachinePoolOutputs } from './outputs';
import { liveMachines, readBack } from './read';
import { reconstructInputs } from './read-back';
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
    model: { inputs: machinePoolSchema, outputs: machinePoolOutputsSchema, validate: validateInputs, notOnCluster: ['rollingUpdate', 'volumeDeletion'] },
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

    async checkCluster(ctx, { inputs, raw, inProgram }) {
      const cluster = await checkAgainstCluster(ctx.client, raw, inProgram);
      // The names the plan makes (its context complete only without cluster failures); v.inputs exist only when every input is known.
      const context = cluster.failures.length === 0 && cluster.deferred.length === 0 ? cluster.context : undefined;
      const always = inputs ? await previewNameConflicts(ctx.client, inputs, context, randomSuffix) : [];
      return { references: cluster.failures, always };
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

/** The observation of a pool of which nothing exists yet. */
function emptyPool(inputs: Inputs): ObservedPool {
  const identity = poolIdentity(inputs);
  return { identity, observation: { machines: [], statuses: [], strayVolumes: [] }, secrets: [] };
}

export function createMachinePoolProvider(options: MachinePoolProviderOptions = {}) {
  return reconciledProvider(machinePoolResource(options.parallelism), options);
}

export type MachinePoolProvider = ReturnType<typeof createMachinePoolProvider>;
