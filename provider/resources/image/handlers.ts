/**
 * HarvesterImage's provider handlers (dynamic.ResourceProvider shape):
 * model (model.ts) → pure rules and plan (validate.ts, plan.ts) → cluster reads (cluster.ts) → the API calls here.
 *
 * - check: every input rule at once; then what Harvester would refuse because of other objects (cluster.ts).
 *   Nothing is written.
 * - diff: name, namespace, displayName, url, checksum and storageClass replace (Harvester refuses changing them),
 *   deleting the old image first (its name and display name are taken until it goes).
 * - create/update: the image with our ownership labels, or on an image of ours (a re-run after a crash, or an
 *   update) a merge patch of what may change in place; an image of ours Harvester gave up on, or written with
 *   other immutable inputs, is deleted and made anew (a new download). Then a watch until Imported, with the
 *   download's percent as progress lines; Harvester's own failure message when it gives up. A failure after the
 *   first write is recorded with the image as it is (core/partial.ts), so destroy removes it.
 * - read: one GET (and the StorageClasses, to tell Harvester's default from a chosen one); the live image as
 *   inputs, so an out-of-band edit shows per property; an unfinished create/update's line kept until an up.
 * - delete: refused while volumes made from the image exist (Harvester's rule), naming the VMs using them; volumes
 *   already being deleted (a pool destroyed just before) are waited for; then waits until the image (and, by
 *   Harvester's finalizer, its storage) is gone. Never an image we do not own.
 */
import { waitFor, waitForDeletion } from '../../await';
import { HarvesterClient } from '../../client/harvester-client';
import type { PersistentVolumeClaim, VirtualMachineImage } from '../../client/objects';
import { assertOwned, isOwnedBy } from '../../client/ownership';
import { checkInputs, deleteBeforeReplaceDiff, parseChecked, userInputs } from '../../core/check-flow';
import { connectionFor } from '../../core/connection';
import { parseDuration } from '../../core/duration';
import { ProviderError } from '../../core/errors';
import { stableStringify } from '../../core/hash';
import { withoutUnrecorded } from '../../core/imported';
import { recordPartial, unfinishedLines, type WriteOperation } from '../../core/partial';
import { progressFor, type ProgressSink } from '../../core/progress';
import type { CheckResult, CreateResult, DiffResult, ReadResult, UpdateResult } from '../../core/types';
import { clusterFailures, imageUsers, storageClasses, volumesOf } from './cluster';
import { OUTPUT_ONLY, imageSchema, type ImageInputs, type ImageOutputs } from './model';
import {
  IMMUTABLE, OS_TYPE_LABEL, STORAGE_CLASS_ANNOTATION, desiredImage, desiredLabels, diffInputs, driftOf, failedForGood, imageOwner, importVerdict, liveInputs, recordedLive, toOutputs,
} from './plan';
import { validateInputs } from './validate';

type Raw = Record<string, unknown>;

export interface ImageProviderOptions {
  connect?: (options: { kubeconfig?: string; context?: string }) => Promise<HarvesterClient>;
  /** Progress lines of the waits and the image they are about. @default dropped */
  onProgress?: ProgressSink;
}

const KIND = 'VirtualMachineImage';

/** `namespace/name` of an id, or of the recorded inputs when the id is a bare name. */
function locate(id: string, recorded: Partial<ImageInputs>): { namespace: string; name: string } {
  const [ns, name] = id.includes('/') ? id.split('/', 2) : [recorded.namespace ?? 'default', id];
  return { namespace: recorded.namespace ?? ns, name: recorded.name ?? name };
}

/** True when the live image of ours was written with other immutable inputs (Harvester would refuse patching them). */
function writtenOtherwise(inputs: ImageInputs, live: VirtualMachineImage): boolean {
  const now = liveInputs(live, { recordedStorageClass: inputs.storageClass });
  const want = recordedLive(inputs);
  return IMMUTABLE.some((k) => (k !== 'storageClass' || inputs.storageClass !== undefined) && stableStringify(now[k]) !== stableStringify(want[k]));
}

export function createImageProvider(options: ImageProviderOptions = {}) {
  const connect = options.connect ?? ((o: { kubeconfig?: string; context?: string }) => HarvesterClient.connect(connectionFor(o)));
  const clientFor = (props: Partial<ImageInputs>) => connect({ kubeconfig: props.kubeconfig, context: props.context });

  async function removeAndWait(client: HarvesterClient, namespace: string, name: string, timeout: string | undefined, option: string): Promise<void> {
    await client.images.delete(name, { namespace, owner: imageOwner(name) });
    await waitForDeletion<VirtualMachineImage>({
      resource: client.images,
      namespace,
      name,
      timeoutMs: parseDuration(timeout ?? '5m') ?? 300_000,
      timeoutOption: option,
      what: `${KIND} ${namespace}/${name} to be deleted with its storage`,
      onProgress: progressFor(options.onProgress, { namespace, name }),
    });
  }

  /** Waits until the volumes made from the image that are being deleted (a pool destroyed just before) are gone. */
  async function volumesGone(client: HarvesterClient, namespace: string, name: string, storageClass: string, timeout: string | undefined): Promise<void> {
    await waitFor<PersistentVolumeClaim>({
      resource: client.persistentVolumeClaims,
      timeoutMs: parseDuration(timeout ?? '5m') ?? 300_000,
      timeoutOption: 'timeouts.delete',
      what: `the volumes made from ${KIND} ${namespace}/${name} to be deleted`,
      onProgress: progressFor(options.onProgress, { namespace, name }),
      check: (pvcs) => {
        const left = volumesOf(pvcs, storageClass).length;
        return { done: left === 0, description: `${KIND} ${namespace}/${name}: ${left} volume(s) made from it still being deleted`, pending: [`${left} volume(s) of StorageClass ${storageClass}`] };
      },
    });
  }

  /** A merge patch of what Harvester lets change in place: labels (removed ones nulled), description, retry. */
  async function patchInPlace(client: HarvesterClient, inputs: ImageInputs, live: VirtualMachineImage): Promise<void> {
    const labels: Record<string, string | null> = desiredLabels(inputs);
    const before = liveInputs(live, {});
    for (const key of Object.keys(before.labels)) if (!(key in labels)) labels[key] = null;
    if (!inputs.osType && before.osType) labels[OS_TYPE_LABEL] = null;
    await client.images.mergePatch(inputs.name, { metadata: { labels }, spec: { description: inputs.description ?? null, retry: inputs.retry } }, { namespace: inputs.namespace, owner: imageOwner(inputs.name) });
  }

  /** Brings the image to the inputs and waits until it is imported. */
  async function converge(inputs: ImageInputs, op: WriteOperation): Promise<ImageOutputs> {
    const client = await clientFor(inputs);
    let live = await client.images.get(inputs.name, inputs.namespace);
    if (live) {
      // Ours from an earlier run (a crash mid-download, an update): adopt it, unless it can never match.
      assertOwned(live, imageOwner(inputs.name), op, KIND);
      if (failedForGood(live) || writtenOtherwise(inputs, live)) {
        await removeAndWait(client, inputs.namespace, inputs.name, inputs.timeouts[op], `timeouts.${op}`);
        live = undefined;
      }
    }
    if (live) await patchInPlace(client, inputs, live);
    else await client.images.create(desiredImage(inputs));
    const id = `${inputs.namespace}/${inputs.name}`;
    const [image] = await waitFor<VirtualMachineImage>({
      resource: client.images,
      namespace: inputs.namespace,
      name: inputs.name,
      timeoutMs: parseDuration(inputs.timeouts[op]) ?? 1_800_000,
      what: `${KIND} ${id} to be downloaded and imported`,
      timeoutOption: `timeouts.${op}`,
      onProgress: progressFor(options.onProgress, inputs),
      check: ([current]) => importVerdict(id, current),
    });
    return toOutputs(inputs, image);
  }

  /** create/update: converge, a failure after the first write recorded with the image as it is. */
  function apply(inputs: ImageInputs, op: WriteOperation): Promise<ImageOutputs> {
    return recordPartial(() => converge(inputs, op), {
      id: `${inputs.namespace}/${inputs.name}`,
      op,
      object: `${KIND} ${inputs.namespace}/${inputs.name}`,
      observe: async (drift) => {
        const live = await (await clientFor(inputs)).images.get(inputs.name, inputs.namespace);
        return live && isOwnedBy(live, imageOwner(inputs.name)) ? toOutputs(inputs, live, drift) : undefined;
      },
    });
  }

  return {
    check: (olds: Raw, news: Raw): Promise<CheckResult<Raw>> =>
      checkInputs(olds, news, validateInputs, async (inputs) => clusterFailures(await clientFor(inputs), inputs)),

    async diff(_id: string, olds: Raw, news: Raw): Promise<DiffResult> {
      const d = diffInputs(olds as Partial<ImageOutputs>, userInputs(news) as Partial<ImageInputs>);
      return deleteBeforeReplaceDiff(d);
    },

    async create(raw: Raw): Promise<CreateResult<ImageOutputs>> {
      const inputs = parseChecked('HarvesterImage', raw, validateInputs);
      return { id: `${inputs.namespace}/${inputs.name}`, outs: await apply(inputs, 'create') };
    },

    async read(id: string, props?: Raw): Promise<ReadResult<ImageOutputs>> {
      const recorded = (props ?? {}) as Partial<ImageOutputs>;
      const { namespace, name } = locate(id, recorded);
      const client = await clientFor(recorded);
      const live = await client.images.get(name, namespace);
      if (!live) return {};
      const importing = recorded.url === undefined;
      const annotated = live.metadata.annotations?.[STORAGE_CLASS_ANNOTATION];
      // Not allowed to list StorageClasses: the annotation is taken for Harvester's default unless the inputs named it.
      const defaultStorageClass = annotated ? ((await storageClasses(client)) ?? { defaultName: annotated }).defaultName : undefined;
      const now = liveInputs(live, { defaultStorageClass, recordedStorageClass: recorded.storageClass });
      const base = imageSchema.parse({ name, namespace, ...now, timeouts: recorded.timeouts, kubeconfig: recorded.kubeconfig, context: recorded.context });
      const drift = importing ? [] : [...driftOf(recorded as ImageInputs, now, live), ...unfinishedLines(recorded.drift)];
      const read = toOutputs(base, live, drift);
      const outs = importing ? withoutUnrecorded(read) : read;
      const inputs = Object.fromEntries(Object.entries(outs).filter(([k, v]) => !OUTPUT_ONLY.includes(k) && v !== undefined));
      return { id: `${namespace}/${name}`, props: outs, inputs };
    },

    async update(_id: string, _olds: Raw, news: Raw): Promise<UpdateResult<ImageOutputs>> {
      return { outs: await apply(parseChecked('HarvesterImage', news, validateInputs), 'update') };
    },

    async delete(id: string, props: Raw): Promise<void> {
      const recorded = props as Partial<ImageOutputs>;
      const { namespace, name } = locate(id, recorded);
      const client = await clientFor(recorded);
      const live = await client.images.get(name, namespace);
      if (!live || !isOwnedBy(live, imageOwner(name))) return; // never delete what we do not own
      const users = await imageUsers(client, live);
      if (users.volumes.length) {
        const who = users.vms.length ? `VM(s) ${users.vms.join(', ')} use` : 'no VM uses them, but they exist:';
        throw new ProviderError(
          'ImageInUse',
          `${KIND} ${namespace}/${name} cannot be deleted: ${who} volume(s) ${users.volumes.join(', ')} made from it (Harvester refuses deleting an image while a volume of its storage class ${live.status?.storageClassName} exists).`,
          { object: `${KIND} ${namespace}/${name}`, fix: `Delete ${users.vms.length ? 'those VMs and their volumes' : 'those volumes'} first (a HarvesterMachinePool using the image: destroy or change it first), then delete the image.` },
        );
      }
      if (users.going) await volumesGone(client, namespace, name, live.status?.storageClassName as string, recorded.timeouts?.delete);
      await removeAndWait(client, namespace, name, recorded.timeouts?.delete, 'timeouts.delete');
    },
  };
}

export type ImageProvider = ReturnType<typeof createImageProvider>;
