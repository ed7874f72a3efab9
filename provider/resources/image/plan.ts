/**
 * Pure image planning: the desired VirtualMachineImage, the live image read back in the inputs' own shape (what
 * Harvester adds — its display-name label, the storage-class annotation its mutator fills in, the storage class
 * parameters — left out), drift lines, outputs, the diff, and the import wait's verdict.
 */
import type { CheckResult as WaitVerdict } from '../../await';
import type { VirtualMachineImage } from '../../client/objects';
import { OWNERSHIP_LABELS, stampOwnership, type OwnerIdentity } from '../../client/ownership';
import { driftValue, stableStringify } from '../../core/hash';
import { changedKeys } from '../../core/imported';
import { REPLACE_INPUTS, type ImageInputs, type ImageOutputs } from './model';
import { RESERVED_LABEL_PREFIXES } from './validate';

export const RESOURCE_TYPE = 'image';
export const API_VERSION = 'harvesterhci.io/v1beta1';
export const IMAGE_TYPE_LABEL = 'harvesterhci.io/image-type';
export const OS_TYPE_LABEL = 'harvesterhci.io/os-type';
/** The annotation naming the image's base StorageClass (Harvester's mutator fills it with the default when absent). */
export const STORAGE_CLASS_ANNOTATION = 'harvesterhci.io/storageClassName';

export function imageOwner(name: string): OwnerIdentity {
  return { resourceType: RESOURCE_TYPE, resourceName: name };
}

/** The inputs a live image records (name, namespace, connection and timeouts aside). */
export type LiveInputs = Pick<ImageInputs, 'displayName' | 'description' | 'url' | 'checksum' | 'imageType' | 'osType' | 'labels' | 'storageClass' | 'retry'>;
/** The inputs that, once written, Harvester never lets change: a difference means a new image. */
export const IMMUTABLE: readonly (keyof LiveInputs)[] = ['displayName', 'url', 'checksum', 'storageClass'];
const FIELDS: readonly (keyof LiveInputs)[] = ['displayName', 'description', 'url', 'checksum', 'imageType', 'osType', 'labels', 'storageClass', 'retry'];

export const displayNameOf = (inputs: Pick<ImageInputs, 'name' | 'displayName'>): string => inputs.displayName ?? inputs.name;

/** Our labels on the image: the user's, the image and OS type. */
export function desiredLabels(inputs: Pick<ImageInputs, 'labels' | 'imageType' | 'osType'>): Record<string, string> {
  const labels: Record<string, string> = { ...inputs.labels, [IMAGE_TYPE_LABEL]: inputs.imageType };
  if (inputs.osType) labels[OS_TYPE_LABEL] = inputs.osType;
  return labels;
}

export function desiredImage(inputs: ImageInputs): VirtualMachineImage {
  const spec: NonNullable<VirtualMachineImage['spec']> = { displayName: displayNameOf(inputs), sourceType: 'download', url: inputs.url, retry: inputs.retry };
  if (inputs.description !== undefined) spec.description = inputs.description;
  if (inputs.checksum !== undefined) spec.checksum = inputs.checksum;
  const annotations = inputs.storageClass ? { [STORAGE_CLASS_ANNOTATION]: inputs.storageClass } : undefined;
  return stampOwnership(
    { apiVersion: API_VERSION, kind: 'VirtualMachineImage', metadata: { name: inputs.name, namespace: inputs.namespace, labels: desiredLabels(inputs), ...(annotations ? { annotations } : {}) }, spec },
    imageOwner(inputs.name),
  );
}

const isReserved = (key: string) => RESERVED_LABEL_PREFIXES.some((p) => key.startsWith(p)) || Object.values(OWNERSHIP_LABELS).includes(key as never);

/**
 * The live image as inputs. `name` decides whether displayName is left out (it defaults to the name);
 * `defaultStorageClass` whether the storage-class annotation is Harvester's default (its mutator writes it) rather
 * than one the inputs chose — `recordedStorageClass` keeps an explicit choice of the default as it was written.
 */
export function liveInputs(image: VirtualMachineImage, context: { defaultStorageClass?: string; recordedStorageClass?: string }): LiveInputs {
  const spec = image.spec ?? {};
  const labels = image.metadata.labels ?? {};
  const out: LiveInputs = {
    url: String(spec.url ?? ''),
    imageType: labels[IMAGE_TYPE_LABEL] === 'iso' ? 'iso' : 'raw_qcow2',
    labels: Object.fromEntries(Object.entries(labels).filter(([k]) => !isReserved(k))),
    retry: typeof spec.retry === 'number' ? spec.retry : 3,
  };
  if (spec.displayName !== undefined && spec.displayName !== image.metadata.name) out.displayName = String(spec.displayName);
  if (spec.description) out.description = String(spec.description);
  if (spec.checksum) out.checksum = String(spec.checksum);
  if (labels[OS_TYPE_LABEL]) out.osType = labels[OS_TYPE_LABEL];
  const sc = image.metadata.annotations?.[STORAGE_CLASS_ANNOTATION];
  if (sc && (sc !== context.defaultStorageClass || context.recordedStorageClass === sc)) out.storageClass = sc;
  return out;
}

/** The recorded inputs in the live shape (what read-back of the image as we wrote it gives). */
export function recordedLive(recorded: ImageInputs): LiveInputs {
  const written = desiredImage(recorded);
  return liveInputs(written, { recordedStorageClass: recorded.storageClass });
}

/** One line per input the live image has changed since we wrote it. */
export function driftOf(recorded: ImageInputs, now: LiveInputs, image: VirtualMachineImage): string[] {
  const was = recordedLive(recorded);
  const id = `VirtualMachineImage ${image.metadata.namespace}/${image.metadata.name}`;
  return FIELDS.filter((f) => stableStringify(now[f]) !== stableStringify(was[f])).map((f) => `${id}: ${f} is ${driftValue(now[f])}, this resource set ${driftValue(was[f])}`);
}

type Condition = ImageOutputs['conditions'][number];
const conditionsOf = (image: VirtualMachineImage | undefined): Condition[] =>
  (image?.status?.conditions ?? []).map((c) => {
    const out: Condition = { type: String(c.type), status: String(c.status) };
    if (c.reason) out.reason = String(c.reason);
    if (c.message) out.message = String(c.message);
    return out;
  });
const condition = (image: VirtualMachineImage | undefined, type: string) => image?.status?.conditions?.find((c) => c.type === type);

export function toOutputs(inputs: ImageInputs, live: VirtualMachineImage, drift: string[] = []): ImageOutputs {
  const status = live.status ?? {};
  return {
    ...inputs,
    baseStorageClass: live.metadata.annotations?.[STORAGE_CLASS_ANNOTATION] ?? inputs.storageClass ?? '',
    storageClassName: String(status.storageClassName ?? ''),
    size: Number(status.size ?? 0),
    virtualSize: Number(status.virtualSize ?? 0),
    progress: Number(status.progress ?? 0),
    conditions: conditionsOf(live),
    drift,
  };
}

/** True once Harvester gave up on the image (RetryLimitExceeded=True): it never downloads again by itself. */
export const failedForGood = (image: VirtualMachineImage | undefined): boolean => condition(image, 'RetryLimitExceeded')?.status === 'True';

/** The import wait's verdict: done once Imported=True; Harvester's own message when it gave up; progress otherwise. */
export function importVerdict(id: string, image: VirtualMachineImage | undefined): WaitVerdict {
  if (!image) return { done: false, description: `VirtualMachineImage ${id}: not found`, pending: ['the image to exist'] };
  if (condition(image, 'Imported')?.status === 'True' && image.status?.storageClassName) {
    return { done: true, description: `VirtualMachineImage ${id}: imported (${formatSize(Number(image.status?.virtualSize ?? 0))} virtual size)` };
  }
  const retry = condition(image, 'RetryLimitExceeded');
  if (retry?.status === 'True') {
    const message = retry.message ?? condition(image, 'Imported')?.message ?? 'the download failed';
    return {
      done: false,
      description: `VirtualMachineImage ${id}: ${message}`,
      error: new Error(`Harvester could not import VirtualMachineImage ${id}: ${message}. Check that the url serves the image to the Harvester hosts (and the checksum, if set), then run \`pulumi up\` again: it starts a new download.`),
    };
  }
  const progress = Number(image.status?.progress ?? 0);
  const initialized = condition(image, 'Initialized')?.status === 'True';
  const retrying = retry?.message ? ` (${retry.message}; Harvester retries)` : '';
  const stage = initialized ? `downloading ${progress}%` : 'waiting for Harvester to start the download';
  return { done: false, description: `VirtualMachineImage ${id}: ${stage}${retrying}`, pending: [initialized ? `the download (at ${progress}%)` : 'the download to start'] };
}

function formatSize(bytes: number): string {
  return bytes >= 2 ** 30 ? `${(bytes / 2 ** 30).toFixed(1)} GiB` : `${Math.round(bytes / 2 ** 20)} MiB`;
}

/** diff: which inputs changed (connection settings are taken out by the host wrapper), which replace. */
export function diffInputs(olds: Partial<ImageOutputs>, news: Partial<ImageInputs>): { changes: boolean; replaces: string[] } {
  const keys = ['name', 'namespace', ...FIELDS.filter((f) => f !== 'storageClass'), 'timeouts'] as const;
  const changed: string[] = changedKeys(olds, news, keys);
  // Naming the StorageClass the image already copied (the default Harvester chose, or an import's) changes nothing.
  const storageClassChanged = news.storageClass !== undefined ? news.storageClass !== (olds.storageClass ?? olds.baseStorageClass) : olds.storageClass !== undefined;
  if (storageClassChanged) changed.push('storageClass');
  return { changes: changed.length > 0 || (olds.drift ?? []).length > 0, replaces: changed.filter((k) => REPLACE_INPUTS.includes(k)) };
}
