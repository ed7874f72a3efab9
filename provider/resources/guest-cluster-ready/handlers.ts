/**
 * GuestClusterReady on the reconciler (core/reconciler): a wait with a verdict; it writes nothing.
 * - check: the model's rules; against the cluster, the namespace exists. The guest cluster is never contacted at
 *   check (at a first preview, and while its servers boot, it does not exist yet).
 * - converge: the VMs of the expected nodes are read once; a node whose user data carries another token than the
 *   cluster's fails the wait at once (diagnose.ts); then the guest's Nodes are watched until every one is Ready and
 *   initialised by the cloud provider, a progress line per change; when the time runs out each node left says why.
 *   A failure is recorded (partial failure) with every node's status, so the next up resumes the wait.
 * - read: the nodes that are up now; one that is not shows as drift (the next up waits for it).
 * - remove: nothing to remove.
 */
import { waitFor, WaitTimeoutError } from '../../await';
import type { HarvesterClient } from '../../client/harvester-client';
import type { Node } from '../../client/objects';
import { ProviderError, errorMessage } from '../../core/errors';
import { reconciledProvider, type ReconcilerOptions } from '../../core/reconciler/reconciler';
import type { ManagedResource, ResourceContext } from '../../core/reconciler/resource';
import { timeoutMs } from '../../core/timeouts';
import { onCluster } from '../../core/unreachable';
import { guestClusterReadyOutputsSchema, guestClusterReadySchema, type GuestClusterReadyInputs as Inputs, type GuestClusterReadyOutputs as Outputs } from './model';
import { timeoutReasons, wrongTokens } from './diagnose';
import { validateInputs } from './validate';
import { allUp, nodeStatuses, progressLine, type ClusterView } from './verdict';

export type GuestClusterReadyProviderOptions = ReconcilerOptions;

/** A guest API still coming up is retried by the watch (quickly), not by every request. */
const GUEST_RETRY = { maxAttempts: 1 };

async function harvesterView(client: HarvesterClient, inputs: Pick<Inputs, 'namespace' | 'nodes'>): Promise<Pick<ClusterView, 'vms' | 'vmis'>> {
  const wanted = new Set(inputs.nodes.map((n) => n.name));
  const [vms, vmis] = await Promise.all([client.virtualMachines.list({ namespace: inputs.namespace }), client.virtualMachineInstances.list({ namespace: inputs.namespace })]);
  return { vms: vms.items.filter((v) => wanted.has(v.metadata.name ?? '')), vmis: vmis.items.filter((v) => wanted.has(v.metadata.name ?? '')) };
}

async function view(ctx: ResourceContext, inputs: Pick<Inputs, 'namespace' | 'nodes' | 'guestKubeconfig'>): Promise<ClusterView> {
  const harvester = await harvesterView(ctx.client, inputs);
  try {
    const guest = await ctx.connect({ kubeconfig: inputs.guestKubeconfig, retry: GUEST_RETRY });
    return { ...harvester, nodes: (await guest.nodes.list({})).items };
  } catch (err) {
    return { ...harvester, nodes: [], guestError: errorMessage(err) };
  }
}

const describeOf = (v: Pick<Inputs, 'namespace' | 'clusterName'>) => `GuestClusterReady ${v.namespace}/${v.clusterName}`;

function notReady(inputs: Inputs, reasons: Map<string, string>): ProviderError {
  const lines = [...reasons].map(([name, reason]) => `  - ${name}: ${reason}`).join('\n');
  return new ProviderError('NodesNotReady', `${describeOf(inputs)}: ${reasons.size} of ${inputs.nodes.length} node(s) cannot come up:\n${lines}\n`, {
    object: describeOf(inputs),
    fix: 'Fix the cause above and run `up` again: the wait resumes where it stopped.',
  });
}

export const guestClusterReadyResource: ManagedResource<Inputs, Outputs, ClusterView> = {
  type: 'GuestClusterReady',
  model: { inputs: guestClusterReadySchema, outputs: guestClusterReadyOutputsSchema, validate: validateInputs, notOnCluster: ['guestKubeconfig', 'supervisorUrl', 'loadBalancer', 'serverToken', 'agentToken'] },
  scope: 'namespaced',
  nameInput: 'clusterName',
  ref: (v) => ({ namespace: v.namespace ?? 'default', name: v.clusterName as string }),
  refInputs: (ref) => ({ namespace: ref.namespace, clusterName: ref.name }),
  describe: (ref) => `GuestClusterReady ${ref.namespace}/${ref.name}`,
  owner: (ref) => ({ resourceType: 'guest-cluster-ready', resourceName: ref.name }),

  async observe(ctx, _ref, values) {
    // Nothing to check against the guest at check, nothing to delete; an import has no kubeconfig to read with.
    if (ctx.operation === 'check' || ctx.operation === 'delete' || !values.guestKubeconfig || !values.nodes) return undefined;
    return view(ctx, values as Inputs);
  },
  // The wait stands while a VM of its nodes does (a failed wait is recorded; one refused before it began is not).
  exists: (live) => live.vms.length > 0,
  owns: () => true,
  foreign: () => [],

  async checkCluster(ctx, { inputs, raw }) {
    const namespace = inputs?.namespace ?? (typeof raw.namespace === 'string' ? raw.namespace : undefined);
    if (!namespace || (await ctx.client.namespaces.get(namespace))) return [];
    return [{ property: 'namespace', reason: `namespace ${namespace} does not exist: give the namespace of the cluster's VMs` }];
  },
  // up refuses a namespace that does not exist before it waits for anything.
  checkBeforeWrite: true,

  async converge(ctx, inputs, _live, op) {
    const deadline = ctx.clock.now().getTime() + timeoutMs(inputs.timeouts, op);
    const harvester = await harvesterView(ctx.client, inputs);
    const vms = new Map(harvester.vms.map((v) => [v.metadata.name ?? '', v]));
    const first = await view(ctx, inputs);
    const wrong = await wrongTokens(ctx.client, inputs, nodeStatuses(inputs, first), vms);
    if (wrong.size) throw notReady(inputs, wrong);
    const guest = await ctx.connect({ kubeconfig: inputs.guestKubeconfig, retry: GUEST_RETRY });
    let last = nodeStatuses(inputs, first);
    try {
      const nodes = await onCluster('guestKubeconfig', () => waitFor<Node>({
        resource: guest.nodes,
        check: (nodes) => {
          last = nodeStatuses(inputs, { ...harvester, nodes });
          return { done: allUp(last), description: progressLine(last), pending: last.filter((s) => s.waitingFor).map((s) => `${s.name}: ${s.waitingFor}`) };
        },
        timeoutMs: Math.max(1, deadline - ctx.clock.now().getTime()),
        what: `the nodes of guest cluster ${inputs.clusterName} to be Ready and initialised`,
        timeoutOption: `timeouts.${op}`,
        onProgress: ctx.progress,
        clock: ctx.clock,
        // The API of a cluster being born refuses connections until its first server runs: retry soon.
        backoffInitialMs: 250,
        backoffMaxMs: 2000,
      }));
      // Hosts and zones as they are now (a VM may have moved while its Node came up).
      return { ...(await harvesterView(ctx.client, inputs)), nodes };
    } catch (err) {
      const timedOut = err instanceof WaitTimeoutError || (err as { cause?: unknown }).cause instanceof WaitTimeoutError;
      if (!timedOut) throw err;
      throw notReady(inputs, await timeoutReasons(ctx.client, inputs, last, inputs.timeouts[op]));
    }
  },

  liveInputs: (live, recorded) => {
    const up = new Set(nodeStatuses(recorded as Inputs, live).filter((s) => s.ready && s.initialised).map((s) => s.name));
    return { nodes: (recorded.nodes ?? []).filter((n) => up.has(n.name)) };
  },
  drift: (recorded, live) => nodeStatuses(recorded, live).filter((s) => s.waitingFor).map((s) => `${describeOf(recorded)}: node ${s.name} is ${s.waitingFor}`),
  outputs(inputs, live, drift) {
    const nodeStatus = nodeStatuses(inputs, live);
    return { ...inputs, nodeStatus, readyCount: nodeStatus.filter((s) => s.ready && s.initialised).length, drift };
  },

  async remove() {
    // A wait owns nothing.
  },
};

export function createGuestClusterReadyProvider(options: GuestClusterReadyProviderOptions = {}) {
  return reconciledProvider(guestClusterReadyResource, options);
}

export type GuestClusterReadyProvider = ReturnType<typeof createGuestClusterReadyProvider>;
