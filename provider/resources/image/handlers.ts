/**
 * HarvesterImage on the reconciler (core/reconciler): one VirtualMachineImage.
 * - check: every input rule at once; then what Harvester would refuse because of other objects (cluster.ts). The
 *   reconciler refuses an image of that name we do not own.
 * - diff: name, namespace, displayName, url, checksum and storageClass replace (Harvester refuses changing them),
 *   deleting the old image first (its name and display name are taken until it goes); naming the StorageClass the
 *   image already copied changes nothing.
 * - converge: the image with our ownership labels, or on ours (a re-run after a crash, or an update) a merge patch
 *   of what may change in place; an image of ours Harvester gave up on, or written with other immutable inputs, is
 *   deleted and made anew (a new download). Then a watch until Imported, with the download's percent as progress
 *   lines; Harvester's own failure message when it gives up.
 * - observe reads the StorageClasses too when the image names one, to tell Harvester's default from a chosen one.
 * - remove: refused while volumes made from the image exist (Harvester's rule), naming the VMs using them; volumes
 *   already being deleted (a pool destroyed just before) are waited for; then waits until the image (and, by
 *   Harvester's finalizer, its storage) is gone.
 */
import { waitFor } from '../../await';
import type { PersistentVolumeClaim, VirtualMachineImage } from '../../client/objects';
import { ProviderError } from '../../core/errors';
import { stableStringify } from '../../core/hash';
import { reconciledProvider, type ReconcilerOptions } from '../../core/reconciler/reconciler';
import type { ManagedResource, ResourceContext } from '../../core/reconciler/resource';
import { singleObject } from '../../core/reconciler/single-object';
import { timeoutMs } from '../../core/timeouts';
import { clusterFailures, imageUsers, storageClasses, volumesOf } from './cluster';
import { imageOutputsSchema, imageSchema, type ImageInputs, type ImageOutputs } from './model';
import {
  IMMUTABLE, OS_TYPE_LABEL, STORAGE_CLASS_ANNOTATION, desiredImage, desiredLabels, diffInputs, driftOf, failedForGood, imageOwner, importVerdict, liveInputs, recordedLive, toOutputs,
} from './plan';
import { validateInputs } from './validate';

export type ImageProviderOptions = ReconcilerOptions;

const KIND = 'VirtualMachineImage';
const timeoutsOf = (recorded: Partial<ImageOutputs>) => imageSchema.shape.timeouts.parse(recorded.timeouts);

/** The image, and the default StorageClass's name when the image names one (undefined: none, or not readable). */
export interface ObservedImage {
  image: VirtualMachineImage;
  defaultStorageClass?: string;
}

/** True when the live image of ours was written with other immutable inputs (Harvester would refuse patching them). */
function writtenOtherwise(inputs: ImageInputs, live: VirtualMachineImage): boolean {
  const now = liveInputs(live, { recordedStorageClass: inputs.storageClass });
  const want = recordedLive(inputs);
  return IMMUTABLE.some((k) => (k !== 'storageClass' || inputs.storageClass !== undefined) && stableStringify(now[k]) !== stableStringify(want[k]));
}

/** Waits until the volumes made from the image that are being deleted (a pool destroyed just before) are gone. */
async function volumesGone(ctx: ResourceContext, image: VirtualMachineImage, ms: number): Promise<void> {
  const id = `${image.metadata.namespace}/${image.metadata.name}`;
  const storageClass = image.status?.storageClassName as string;
  await waitFor<PersistentVolumeClaim>({
    resource: ctx.client.persistentVolumeClaims,
    timeoutMs: ms,
    timeoutOption: 'timeouts.delete',
    what: `the volumes made from ${KIND} ${id} to be deleted`,
    onProgress: ctx.progress,
    clock: ctx.clock,
    check: (pvcs) => {
      const left = volumesOf(pvcs, storageClass).length;
      return { done: left === 0, description: `${KIND} ${id}: ${left} volume(s) made from it still being deleted`, pending: [`${left} volume(s) of StorageClass ${storageClass}`] };
    },
  });
}

const image = singleObject<ImageInputs, ImageOutputs, VirtualMachineImage>(
  {
    api: (client) => client.images,
    owner: (ref) => imageOwner(ref.name),
    desired: desiredImage,
    // What Harvester lets change in place: labels (removed ones nulled), description, retry.
    patch(inputs, live) {
      const labels: Record<string, string | null> = desiredLabels(inputs);
      const before = liveInputs(live, {});
      for (const key of Object.keys(before.labels)) if (!(key in labels)) labels[key] = null;
      if (!inputs.osType && before.osType) labels[OS_TYPE_LABEL] = null;
      return { metadata: { labels }, spec: { description: inputs.description ?? null, retry: inputs.retry } };
    },
    remake: (inputs, live) => failedForGood(live) || writtenOtherwise(inputs, live),
    ready: (inputs, current) => importVerdict(`${inputs.namespace}/${inputs.name}`, current),
    readyWhat: () => 'to be downloaded and imported',
    removeWhat: 'to be deleted with its storage',
    async beforeRemove(ctx, live, recorded) {
      const users = await imageUsers(ctx.client, live);
      const id = `${live.metadata.namespace}/${live.metadata.name}`;
      if (users.volumes.length) {
        const who = users.vms.length ? `VM(s) ${users.vms.join(', ')} use` : 'no VM uses them, but they exist:';
        throw new ProviderError(
          'ImageInUse',
          `${KIND} ${id} cannot be deleted: ${who} volume(s) ${users.volumes.join(', ')} made from it (Harvester refuses deleting an image while a volume of its storage class ${live.status?.storageClassName} exists).`,
          { object: `${KIND} ${id}`, fix: `Delete ${users.vms.length ? 'those VMs and their volumes' : 'those volumes'} first (a HarvesterMachinePool using the image: destroy or change it first), then delete the image.` },
        );
      }
      if (users.going) await volumesGone(ctx, live, timeoutMs(timeoutsOf(recorded), 'delete'));
    },
  },
  timeoutsOf,
);

export const imageResource: ManagedResource<ImageInputs, ImageOutputs, ObservedImage> = {
  type: 'HarvesterImage',
  model: { inputs: imageSchema, outputs: imageOutputsSchema, validate: validateInputs },
  scope: 'namespaced',
  ref: (v) => ({ namespace: v.namespace ?? 'default', name: v.name as string }),
  describe: (ref) => `${KIND} ${ref.namespace}/${ref.name}`,
  owner: image.owner,

  async observe(ctx, ref, recorded) {
    const live = await image.observe(ctx, ref, recorded);
    if (!live) return undefined;
    const annotated = live.metadata.annotations?.[STORAGE_CLASS_ANNOTATION];
    // Not allowed to list StorageClasses: the annotation is taken for Harvester's default unless the inputs named it.
    const defaultStorageClass = annotated ? ((await storageClasses(ctx.client)) ?? { defaultName: annotated }).defaultName : undefined;
    return { image: live, defaultStorageClass };
  },
  owns: (live, ref, recorded) => image.owns(live.image, ref, recorded),
  foreign: (live, ref, recorded) => image.foreign(live.image, ref, recorded),
  checkCluster: async (ctx, { inputs }) => (inputs ? clusterFailures(ctx.client, inputs) : []),
  converge: async (ctx, inputs, live, op, recorded) => ({ image: await image.converge(ctx, inputs, live?.image, op, recorded) }),
  remove: (ctx, live, ref, recorded) => image.remove(ctx, live.image, ref, recorded),

  liveInputs: (live, recorded) => liveInputs(live.image, { defaultStorageClass: live.defaultStorageClass, recordedStorageClass: recorded.storageClass }),
  drift: (recorded, live, now) => driftOf(recorded, now as ReturnType<typeof liveInputs>, live.image),
  diff: diffInputs,
  outputs: (inputs, live, drift) => toOutputs(inputs, live.image, drift),
};

export function createImageProvider(options: ImageProviderOptions = {}) {
  return reconciledProvider(imageResource, options);
}

export type ImageProvider = ReturnType<typeof createImageProvider>;
