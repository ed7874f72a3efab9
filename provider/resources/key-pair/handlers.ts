/**
 * HarvesterKeyPair on the reconciler (core/reconciler): one KeyPair object.
 * - check: the model and the public key as Harvester's webhook judges it (validate.ts); against the cluster, the
 *   namespace exists (and the reconciler refuses a key pair of that name we do not own).
 * - converge: the key pair with our ownership labels, or a merge patch of our key pair (its labels; removed ones
 *   nulled); then a watch until Harvester's controller has set `validated` (False is final: its reason is the error).
 * - remove: ours, waiting until gone. Harvester does not check a KeyPair's delete (its webhook has no DELETE rule,
 *   there is no finalizer): VMs made with the key keep it, as cloud-init copied it into them.
 */
import type { KeyPair } from '../../client/objects';
import { reconciledProvider, type ReconcilerOptions } from '../../core/reconciler/reconciler';
import type { ManagedResource } from '../../core/reconciler/resource';
import { singleObject } from '../../core/reconciler/single-object';
import { keyPairOutputsSchema, keyPairSchema, type KeyPairInputs, type KeyPairOutputs } from './model';
import { desiredKeyPair, keyPairOwner, liveInputs, toOutputs, validation } from './plan';
import { validateInputs } from './validate';

export type KeyPairProviderOptions = ReconcilerOptions;

const timeoutsOf = (recorded: Partial<KeyPairOutputs>) => keyPairSchema.shape.timeouts.parse(recorded.timeouts);

export const keyPairResource: ManagedResource<KeyPairInputs, KeyPairOutputs, KeyPair> = {
  type: 'HarvesterKeyPair',
  model: { inputs: keyPairSchema, outputs: keyPairOutputsSchema, validate: validateInputs },
  scope: 'namespaced',
  ref: (v) => ({ namespace: v.namespace ?? 'default', name: v.name as string }),
  describe: (ref) => `KeyPair ${ref.namespace}/${ref.name}`,

  ...singleObject<KeyPairInputs, KeyPairOutputs, KeyPair>(
    {
      api: (client) => client.keyPairs,
      owner: (ref) => keyPairOwner(ref),
      desired: desiredKeyPair,
      patch(inputs, live) {
        // Labels we no longer set are removed (null); Harvester's and Kubernetes' own labels are left alone.
        const desired = desiredKeyPair(inputs);
        const dropped = Object.keys(liveInputs(live).labels).filter((k) => !(k in desired.metadata.labels!));
        return { metadata: { labels: { ...desired.metadata.labels, ...Object.fromEntries(dropped.map((k) => [k, null])) } }, spec: desired.spec };
      },
      ready: (inputs, current) => validation(`${inputs.namespace}/${inputs.name}`, current),
      readyWhat: () => 'to be validated',
    },
    timeoutsOf,
  ),

  async checkCluster(ctx, { inputs }) {
    if (!inputs || (await ctx.client.namespaces.get(inputs.namespace))) return [];
    return [{ property: 'namespace', reason: `namespace ${inputs.namespace} does not exist: create it, or choose an existing one` }];
  },

  liveInputs: (live) => liveInputs(live),
  outputs: toOutputs,
};

export function createKeyPairProvider(options: KeyPairProviderOptions = {}) {
  return reconciledProvider(keyPairResource, options);
}

export type KeyPairProvider = ReturnType<typeof createKeyPairProvider>;
