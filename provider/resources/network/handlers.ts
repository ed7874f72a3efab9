/**
 * HarvesterNetwork on the reconciler (core/reconciler): one NetworkAttachmentDefinition.
 * - check: every input rule at once (validate.ts); against the cluster what Harvester would refuse at apply
 *   (cluster-rules.ts). The reconciler refuses a network of that name we do not own.
 * - converge: the NAD as the Harvester UI writes it with our ownership labels, or a merge patch of what differs on
 *   ours; then a watch until Harvester's network controller has labelled it and, for an auto route on a VLAN,
 *   learnt the route.
 * - remove: refused, naming them, while VMs use the network (Harvester's rules N22/N23,
 *   docs/design/harvester-networks.md); then waits until gone.
 */
import type { NetworkAttachmentDefinition } from '../../client/objects';
import { isOwnedBy } from '../../client/ownership';
import { ProviderError } from '../../core/errors';
import { reconciledProvider, type ReconcilerOptions } from '../../core/reconciler/reconciler';
import type { ManagedResource } from '../../core/reconciler/resource';
import { singleObject } from '../../core/reconciler/single-object';
import { networkRefusals } from './cluster-rules';
import { networkOutputsSchema, networkSchema, type NetworkInputs, type NetworkOutputs } from './model';
import { desiredNetwork, liveInputs, networkOwner, networkSettled, toOutputs, updatePatch } from './plan';
import { networkUsers } from './users';
import { validateInputs } from './validate';

export type NetworkProviderOptions = ReconcilerOptions;

const timeoutsOf = (recorded: Partial<NetworkOutputs>) => networkSchema.shape.timeouts.parse(recorded.timeouts);
const keyOf = (v: { namespace?: string; name?: string }) => `${v.namespace}/${v.name}`;

export const networkResource: ManagedResource<NetworkInputs, NetworkOutputs, NetworkAttachmentDefinition> = {
  type: 'HarvesterNetwork',
  model: { inputs: networkSchema, outputs: networkOutputsSchema, validate: validateInputs },
  scope: 'namespaced',
  ref: (v) => ({ namespace: v.namespace ?? 'default', name: v.name as string }),
  describe: (ref) => `VM network ${keyOf(ref)}`,

  ...singleObject<NetworkInputs, NetworkOutputs, NetworkAttachmentDefinition>(
    {
      api: (client) => client.networks,
      owner: (ref) => networkOwner(ref.namespace as string, ref.name),
      desired: desiredNetwork,
      patch: updatePatch,
      ready: (inputs, current) => networkSettled(keyOf(inputs), inputs, current),
      readyWhat: (inputs) => `to be labelled by Harvester${inputs.vlan && inputs.route.mode === 'auto' ? ' and its route learnt' : ''}`,
      async beforeRemove(ctx, live) {
        const { running, templates: attached } = await networkUsers(ctx.client, live);
        const templates = attached.filter((vm) => !running.includes(vm));
        if (!running.length && !templates.length) return;
        const parts = [
          running.length ? `running VM(s) ${running.join(', ')} (Harvester: "which must be stopped at first")` : '',
          templates.length ? `VM(s) ${templates.join(', ')} whose spec attaches it (Harvester: "which must remove the related networks and interfaces")` : '',
        ].filter(Boolean);
        throw new ProviderError('NetworkInUse', `VM network ${keyOf(live.metadata)} cannot be deleted: it is still used by ${parts.join(' and ')}.`, {
          object: `NetworkAttachmentDefinition ${keyOf(live.metadata)}`,
          fix: 'Remove the network from those VMs (or delete them, e.g. their machine pool) first, then run again.',
        });
      },
    },
    timeoutsOf,
  ),

  async checkCluster(ctx, { inputs, live }) {
    if (!inputs) return [];
    const ours = live && isOwnedBy(live, networkOwner(inputs.namespace, inputs.name)) ? live : undefined;
    return networkRefusals(ctx.client, inputs, ours);
  },

  liveInputs: (live) => liveInputs(live),
  outputs: toOutputs,
};

export function createNetworkProvider(options: NetworkProviderOptions = {}) {
  return reconciledProvider(networkResource, options);
}

export type NetworkProvider = ReturnType<typeof createNetworkProvider>;
