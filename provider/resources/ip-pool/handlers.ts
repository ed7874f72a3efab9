/**
 * HarvesterIPPool on the reconciler (core/reconciler): one cluster-scoped IPPool object.
 * - check: every input rule at once (validate.ts); against the cluster what the webhook would refuse at apply:
 *   ranges overlapping another pool, a second global pool, a non-zero priority already taken (conflicts.ts), a
 *   network that does not exist. The reconciler refuses a pool of that name we do not own.
 * - converge: the pool with our ownership labels, or a merge patch of `spec` only on ours; `status.allocated` (the
 *   IPAM record) is never written. Then a watch until Ready (its message on failure).
 * - remove: refused while addresses are allocated, naming the load balancers holding them; then waits until gone.
 */
import type { IPPool } from '../../client/objects';
import { ProviderError } from '../../core/errors';
import { parseRef } from '../../core/object-ref';
import { reconciledProvider, type ReconcilerOptions } from '../../core/reconciler/reconciler';
import type { ManagedResource } from '../../core/reconciler/resource';
import { singleObject } from '../../core/reconciler/single-object';
import { conflictsWithOthers } from './conflicts';
import { ipPoolOutputsSchema, ipPoolSchema, type IPPoolInputs, type IPPoolOutputs } from './model';
import { desiredPool, desiredSpec, driftOf, liveInputs, poolOwner, poolReadiness, toOutputs } from './plan';
import { validateInputs } from './validate';

export type IPPoolProviderOptions = ReconcilerOptions;

const timeoutsOf = (recorded: Partial<IPPoolOutputs>) => ipPoolSchema.shape.timeouts.parse(recorded.timeouts);

export const ipPoolResource: ManagedResource<IPPoolInputs, IPPoolOutputs, IPPool> = {
  type: 'HarvesterIPPool',
  model: { inputs: ipPoolSchema, outputs: ipPoolOutputsSchema, validate: validateInputs },
  scope: 'cluster',
  ref: (v) => ({ name: v.name as string }),
  describe: (ref) => `IPPool ${ref.name}`,

  ...singleObject<IPPoolInputs, IPPoolOutputs, IPPool>(
    {
      api: (client) => client.ipPools,
      owner: (ref) => poolOwner(ref.name),
      desired: desiredPool,
      // The spec alone: lists replaced wholesale, status (the IPAM record) never touched. A merge patch merges maps,
      // so optional fields that left the inputs are nulled to go (a network left behind would keep the pool serving
      // only that network's load balancers).
      patch(inputs) {
        const spec = desiredSpec(inputs);
        return { spec: { ...spec, selector: { ...spec.selector, network: spec.selector?.network ?? null }, description: inputs.description ?? null } };
      },
      ready: (inputs, current) => poolReadiness(inputs.name, current),
      readyWhat: () => 'to be Ready',
      async beforeRemove(_ctx, live) {
        const allocated = Object.entries(live.status?.allocated ?? {});
        if (!allocated.length) return;
        const name = live.metadata.name;
        throw new ProviderError(
          'PoolInUse',
          `IPPool ${name} cannot be deleted: ${allocated.length} address(es) are allocated: ${allocated.map(([ip, lb]) => `${ip} → LoadBalancer ${lb}`).join(', ')}.`,
          { object: `IPPool ${name}`, fix: 'Delete those load balancers first (or move them to another pool), then delete the pool.' },
        );
      },
    },
    timeoutsOf,
  ),

  async checkCluster(ctx, { inputs }) {
    if (!inputs) return [];
    const pools = (await ctx.client.ipPools.list({})).items;
    const out = conflictsWithOthers(inputs, pools.filter((p) => p.metadata.name !== inputs.name));
    const network = inputs.selector.network;
    if (network) {
      const ref = parseRef(network);
      if (!(await ctx.client.networks.get(ref.name, ref.namespace))) {
        out.push({ property: 'selector.network', reason: `VM network ${network} does not exist (the webhook refuses the pool): create it, or name an existing NetworkAttachmentDefinition` });
      }
    }
    return out;
  },

  // Every spec input the cluster records, an absent description as unset.
  liveInputs: (live, recorded) => ({ description: undefined, ...liveInputs(live, recorded) }),
  drift: (recorded, live) => driftOf(recorded, live),
  outputs: toOutputs,
};

export function createIPPoolProvider(options: IPPoolProviderOptions = {}) {
  return reconciledProvider(ipPoolResource, options);
}

export type IPPoolProvider = ReturnType<typeof createIPPoolProvider>;
