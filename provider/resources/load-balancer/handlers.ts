/**
 * HarvesterLoadBalancer on the reconciler (core/reconciler), in two shapes (workloadType):
 * - `vm`: one Harvester LoadBalancer in front of VMs (apply.ts convergeLoadBalancer).
 * - `cluster`: a LoadBalancer Service in a guest cluster, which the guest's Harvester cloud provider turns into a
 *   Harvester LoadBalancer (guest-service.ts); the guest is reached with the resource's own (secret) inputs.
 * - check: every input rule at once; against the cluster: the namespace, the named ipPool and network exist (a pool
 *   this program creates is known to exist at up), some IP pool would serve a load balancer that names none
 *   (pool-choice.ts; at preview too, with what is known); for `cluster`, the guest's cloud-provider version reads
 *   health checks. The reconciler refuses an object of that name we do not own.
 * - diff: ipam (Harvester refuses changing it in place), name and namespace replace, the old one deleted first.
 * - remove: deletes it and waits until it is gone (Harvester's finalizer releases the address first); for
 *   `cluster`, the Service, then waits until the cloud provider removed the Harvester side.
 */
import { waitForDeletion } from '../../await';
import type { LoadBalancer, Service } from '../../client/objects';
import { isOwnedBy } from '../../client/ownership';
import { driftValue, stableStringify } from '../../core/hash';
import { parseRef, qualify, spellLike } from '../../core/object-ref';
import { reconciledProvider, type ReconcilerOptions } from '../../core/reconciler/reconciler';
import type { ManagedResource, ResourceContext } from '../../core/reconciler/resource';
import { timeoutMs } from '../../core/timeouts';
import type { CheckFailure } from '../../core/types';
import { onCluster } from '../../core/unreachable';
import { isUnknown } from '../../core/unknowns';
import { isHarvesterError } from '../../client/errors';
import { chosenPool } from './pool-choice';
import { convergeLoadBalancer, convergeService } from './apply';
import { deleteService, guestVersion, harvesterSide, healthCheckRefusal, serviceInputs, serviceOutputs } from './guest-service';
import { OUTPUT_ONLY, loadBalancerOutputsSchema, loadBalancerSchema, type LoadBalancerInputs, type LoadBalancerOutputs } from './model';
import { diffInputs, driftOf, lbOwner, liveInputs, toOutputs } from './plan';
import { validateInputs } from './validate';

export type LoadBalancerProviderOptions = ReconcilerOptions;
export { explainNotReady } from './apply';

/** What exists: the Harvester LoadBalancer (`vm`), or the guest Service and the Harvester side made for it. */
export type ObservedLoadBalancer = { shape: 'vm'; lb: LoadBalancer } | { shape: 'cluster'; svc: Service; lb?: LoadBalancer };

type Inputs = LoadBalancerInputs;
type Outputs = LoadBalancerOutputs;

const guestOf = (ctx: ResourceContext, values: Partial<Inputs>) => onCluster('guestKubeconfig', () => ctx.connect({ kubeconfig: values.guestKubeconfig, context: values.guestContext }));
const objectOf = (live: ObservedLoadBalancer) => (live.shape === 'vm' ? live.lb : live.svc);
const timeoutsOf = (recorded: Partial<Outputs>) => loadBalancerSchema.shape.timeouts.parse(recorded.timeouts);

/** The inputs recorded in a state (outputs left out). */
function recordedInputsOf(recorded: Partial<Outputs>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(recorded).filter(([k]) => !OUTPUT_ONLY.includes(k)));
}

/** The guest's refusals: a health check its cloud-provider version ignores. */
async function guestFailures(ctx: ResourceContext, inputs: Inputs): Promise<CheckFailure[]> {
  const version = await onCluster('guestKubeconfig', async () => guestVersion(await guestOf(ctx, inputs), inputs));
  const refusal = inputs.healthCheck ? healthCheckRefusal(version) : undefined;
  return refusal ? [{ property: 'healthCheck', reason: refusal }] : [];
}

async function networkFailures(ctx: ResourceContext, inputs: Inputs): Promise<CheckFailure[]> {
  if (!inputs.network) return [];
  const ref = parseRef(inputs.network, inputs.workloadType === 'cluster' ? inputs.cloudProviderNamespace : inputs.namespace);
  return (await ctx.client.networks.get(ref.name, ref.namespace)) ? [] : [{ property: 'network', reason: `VM network ${inputs.network} does not exist: name an existing NetworkAttachmentDefinition` }];
}

/**
 * A vm load balancer with ipam "pool" and no ipPool takes the pool Harvester chooses (pool-choice.ts); when no pool
 * on the cluster would serve it and the program declares none (the SDK names `ipPool` then, core/program-refs.ts),
 * up would only learn it when timeouts.create runs out ("no matched IPPool"): refused here instead. Inputs not known
 * yet (a preview) match anything; a user who may not list IP pools is left to up.
 */
async function poolServingFailures(ctx: ResourceContext, inputs: Record<string, unknown>, inProgram: ReadonlySet<string>): Promise<CheckFailure[]> {
  if (inputs.workloadType !== 'vm' || inputs.ipam !== 'pool' || inputs.ipPool !== undefined || inProgram.has('ipPool')) return [];
  const requirement = {
    network: isUnknown(inputs.network) || isUnknown(inputs.namespace) ? undefined : inputs.network ? qualify(inputs.network as string, inputs.namespace as string) : '',
    namespace: isUnknown(inputs.namespace) ? undefined : (inputs.namespace as string),
  };
  let pools;
  try {
    pools = (await ctx.client.ipPools.list({})).items;
  } catch (err) {
    if (isHarvesterError(err, 'Forbidden')) return [];
    throw err;
  }
  if (chosenPool(pools, requirement)) return [];
  const network = requirement.network === undefined ? 'the network' : requirement.network ? `network ${requirement.network}` : 'no network';
  const namespace = requirement.namespace ?? 'its namespace';
  return [{
    property: 'ipPool',
    reason: `no IP pool would serve this load balancer, so up would wait out timeouts.create for an address ("no matched IPPool"): with ipPool unset, Harvester takes the highest-priority pool whose selector names ${network} and whose scope covers namespace ${namespace}, else the global pool, and the cluster has neither. Create such a pool (a HarvesterIPPool in this program counts), set ipPool to an existing one, or use ipam "dhcp"`,
  }];
}

export const loadBalancerResource: ManagedResource<Inputs, Outputs, ObservedLoadBalancer> = {
  type: 'HarvesterLoadBalancer',
  model: { inputs: loadBalancerSchema, outputs: loadBalancerOutputsSchema, validate: validateInputs, notOnCluster: ['waitForBackends'] },
  scope: 'namespaced',
  ref: (v) => ({ namespace: v.namespace ?? 'default', name: v.name as string }),
  describe: (ref, values) => `${values?.workloadType === 'cluster' ? 'guest Service' : 'LoadBalancer'} ${ref.namespace}/${ref.name}`,
  owner: (ref) => lbOwner(ref.name),

  async observe(ctx, ref, values) {
    if (values.workloadType === 'cluster') {
      const guest = await guestOf(ctx, values);
      const svc = await onCluster('guestKubeconfig', () => guest.services.get(ref.name, ref.namespace));
      if (!svc) return undefined;
      const inputs = { ...values, name: ref.name, namespace: ref.namespace } as Inputs;
      return { shape: 'cluster', svc, lb: isOwnedBy(svc, lbOwner(ref.name)) ? await harvesterSide(ctx.client, inputs, svc) : undefined };
    }
    const lb = await ctx.client.loadBalancers.get(ref.name, ref.namespace);
    return lb && { shape: 'vm', lb };
  },
  owns: (live, ref) => isOwnedBy(objectOf(live), lbOwner(ref.name)),
  foreign: (live, ref) => (isOwnedBy(objectOf(live), lbOwner(ref.name)) ? [] : [objectOf(live)]),
  // A guest Service cannot be imported by id (the guest's kubeconfig is a secret input, not in an id).
  foreignFix: (obj) => (obj.kind === 'Service' ? 'Or delete it in the guest cluster if nothing uses it.' : undefined),

  async checkCluster(ctx, { inputs, raw, inProgram }) {
    // The pool rule needs only what is known: at a preview it runs on the inputs given, unknown values matching anything.
    if (!inputs) return poolServingFailures(ctx, { workloadType: 'vm', ipam: 'pool', namespace: 'default', ...raw }, inProgram);
    if (inputs.workloadType === 'cluster') return [...(await guestFailures(ctx, inputs)), ...(await networkFailures(ctx, inputs))];
    const out = [...(await networkFailures(ctx, inputs)), ...(await poolServingFailures(ctx, inputs, inProgram))];
    if (!(await ctx.client.namespaces.get(inputs.namespace))) out.push({ property: 'namespace', reason: `namespace ${inputs.namespace} does not exist: create it, or choose an existing one` });
    // A pool this program creates does not exist yet at preview; up checks again once it does.
    if (inputs.ipPool && !inProgram.has('ipPool') && !(await ctx.client.ipPools.get(inputs.ipPool))) {
      out.push({ property: 'ipPool', reason: `IPPool ${inputs.ipPool} does not exist: create it (a HarvesterIPPool), or leave ipPool out to let Harvester choose` });
    }
    return out;
  },

  async converge(ctx, inputs, live, op) {
    if (inputs.workloadType === 'cluster') {
      const guest = await guestOf(ctx, inputs);
      const { svc, lb } = await convergeService(ctx, guest, inputs, live?.shape === 'cluster' ? live.svc : undefined, op);
      return { shape: 'cluster', svc, lb };
    }
    return { shape: 'vm', lb: await convergeLoadBalancer(ctx, inputs, live?.shape === 'vm' ? live.lb : undefined, op) };
  },

  liveInputs(live, recorded) {
    if (live.shape === 'vm') return liveInputs(live.lb, recorded);
    // The Service records its own fields; the rest (the guest's connection, names) are the recorded inputs.
    const service = serviceInputs(live.svc);
    if (service.network) service.network = spellLike(service.network, recorded.network, recorded.cloudProviderNamespace);
    return { ...recordedInputsOf(recorded), description: undefined, network: undefined, podSelector: undefined, healthCheck: undefined, ...service } as Partial<Inputs>;
  },
  drift(recorded, live, now) {
    if (live.shape === 'vm') return driftOf(recorded, live.lb);
    const fields = Object.keys(serviceInputs(live.svc)).concat((['network', 'description', 'podSelector', 'healthCheck'] as const).filter((k) => recorded[k] !== undefined)) as (keyof Inputs)[];
    return [...new Set(fields)]
      .filter((k) => stableStringify(now[k]) !== stableStringify(recorded[k]))
      .map((k) => `Service ${recorded.namespace}/${recorded.name} (guest): ${k} is ${driftValue(now[k])}, this resource set ${driftValue(recorded[k])}`);
  },
  diff: diffInputs,
  outputs: (inputs, live, drift) => (live.shape === 'vm' ? toOutputs(inputs, live.lb, drift) : serviceOutputs(inputs, live.svc, live.lb, drift)),

  async remove(ctx, live, ref, recorded) {
    if (live.shape === 'cluster') {
      const inputs = loadBalancerSchema.parse(recordedInputsOf(recorded)) as Inputs;
      await deleteService(await guestOf(ctx, inputs), ctx.client, inputs, live.svc, ctx.progress);
      return;
    }
    await ctx.client.loadBalancers.delete(ref.name, { namespace: ref.namespace, owner: lbOwner(ref.name) });
    await waitForDeletion<LoadBalancer>({
      resource: ctx.client.loadBalancers,
      namespace: ref.namespace,
      name: ref.name,
      timeoutMs: timeoutMs(timeoutsOf(recorded), 'delete'),
      timeoutOption: 'timeouts.delete',
      what: `LoadBalancer ${ref.namespace}/${ref.name} to be deleted and its address released`,
      onProgress: ctx.progress,
    });
  },
};

export function createLoadBalancerProvider(options: LoadBalancerProviderOptions = {}) {
  return reconciledProvider(loadBalancerResource, options);
}

export type LoadBalancerProvider = ReturnType<typeof createLoadBalancerProvider>;
