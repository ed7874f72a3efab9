/**
 * VirtualMachineImage import (harvester pkg/controller/master/image + pkg/image/backingimage), one row per
 * transition; the whole import takes `delays.imageImport`, in four equal steps:
 * 1. `image-initialized` (new)                → Initialized=True, progress 0, appliedUrl, storageClassName
 *                                               `lh-<uid>` (Harvester ≥ v1.5 naming, commit f6fb2645f), and the
 *                                               StorageClass itself when the registry serves StorageClasses
 * 2. `image-import-failed` annotation `image-import.emulator.harvester-iac.local/fail: <message>`
 *                                             → Imported=False with that message, RetryLimitExceeded=True
 * 3. `image-progress`    Initialized, progress < 75 → progress + 25 (real progress stays ≤ 99 until done)
 * 4. `image-imported`    progress ≥ 75        → progress 100, Imported=True, size/virtualSize
 */
import { StatusError } from '../api/errors';
import { KubeObject, Store } from '../api/types';
import { Clock } from '../clock';
import { fnv1a } from './hashing';
import { HarvesterKinds } from './kinds';
import { ResolvedHarvesterOptions } from './options';
import { Condition, field, findCondition, isDeleting, setCondition, statusOf, timestamp } from './object-util';
import { Stage } from './stages';

/** Fault knob: an image carrying this annotation fails to import with the annotation's value as message. */
export const IMAGE_FAIL_ANNOTATION = 'image-import.emulator.harvester-iac.local/fail';

const STEPS = 4;

function condition(image: KubeObject, type: string, status: Condition['status'], now: string, message?: string): void {
  const s = statusOf(image);
  s.conditions = setCondition(s.conditions as Condition[] | undefined, { type, status, message }, now, { stampUpdate: true });
}

function sizesFor(image: KubeObject): { size: number; virtualSize: number } {
  const url = String(field(image, 'spec', 'url') ?? image.metadata.name);
  const size = (300 + (fnv1a(url) % 500)) * 2 ** 20;
  const iso = /\.iso(\?|$)/i.test(url);
  return { size, virtualSize: iso ? size : 10 * 2 ** 30 };
}

/** A Longhorn StorageClass as Harvester creates them (the default one, and one per image). */
export function longhornStorageClass(name: string, parameters: Record<string, string>, annotations: Record<string, string>): KubeObject {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name, annotations },
    provisioner: 'driver.longhorn.io',
    parameters,
    reclaimPolicy: 'Delete',
    allowVolumeExpansion: true,
    volumeBindingMode: 'Immediate',
  };
}

/** The annotation that marks an image's StorageClass as Harvester-managed. */
export const RESERVED_STORAGE_CLASS = { 'harvesterhci.io/is-reserved-storageclass': 'true' };

/** Longhorn parameters of Harvester's default StorageClass, also the image mutator's defaults. */
export const LONGHORN_DEFAULT_PARAMETERS: Readonly<Record<string, string>> = { numberOfReplicas: '3', staleReplicaTimeout: '30', migratable: 'true' };

function ensureStorageClass(store: Store, kinds: HarvesterKinds, image: KubeObject, name: string): void {
  if (!kinds.storageClass || store.get(kinds.storageClass, undefined, name)) return;
  const params = field<Record<string, string>>(image, 'spec', 'storageClassParameters') ?? {};
  const parameters = {
    ...params,
    backingImage: `${image.metadata.namespace}-${image.metadata.name}`,
    backingImageDataSourceType: String(field(image, 'spec', 'sourceType') ?? 'download'),
  };
  try {
    store.create(kinds.storageClass, longhornStorageClass(name, parameters, RESERVED_STORAGE_CLASS), { fieldManager: 'harvester-image-controller' });
  } catch (err) {
    if (!(err instanceof StatusError && err.code === 409)) throw err;
  }
}

/** The image stage table. */
export function imageStages(ctx: { store: Store; kinds: HarvesterKinds; options: ResolvedHarvesterOptions; clock: Clock }): Stage[] {
  const now = (): string => timestamp(ctx.clock.now());
  const step = (): number => ctx.options.delays.imageImport / STEPS;
  const progress = (image: KubeObject): number => Number(field(image, 'status', 'progress') ?? 0);
  const imported = (image: KubeObject): boolean => findCondition(image, 'Imported')?.status === 'True';
  const failing = (image: KubeObject): boolean => Boolean(image.metadata.annotations?.[IMAGE_FAIL_ANNOTATION]);
  return [
    {
      name: 'image-initialized',
      when: (image) => !isDeleting(image) && !findCondition(image, 'Initialized'),
      delayMs: () => 0,
      next: (image) => {
        const status = statusOf(image);
        status.progress = 0;
        status.failed = 0;
        if (typeof field(image, 'spec', 'url') === 'string') status.appliedUrl = field(image, 'spec', 'url');
        if (!status.storageClassName) status.storageClassName = `lh-${image.metadata.uid}`;
        ensureStorageClass(ctx.store, ctx.kinds, image, String(status.storageClassName));
        condition(image, 'Initialized', 'True', now());
        return image;
      },
    },
    {
      name: 'image-import-failed',
      when: (image) => !isDeleting(image) && failing(image) && !imported(image) && findCondition(image, 'RetryLimitExceeded')?.status !== 'True',
      delayMs: () => ctx.options.delays.imageImport,
      next: (image) => {
        const message = String(image.metadata.annotations?.[IMAGE_FAIL_ANNOTATION]);
        const at = now();
        const status = statusOf(image);
        status.failed = Number(field(image, 'spec', 'retry') ?? 3);
        status.lastFailedTime = at;
        condition(image, 'Imported', 'False', at, message);
        condition(image, 'RetryLimitExceeded', 'True', at, message);
        return image;
      },
    },
    {
      name: 'image-progress',
      when: (image) => !isDeleting(image) && !failing(image) && !imported(image) && findCondition(image, 'Initialized')?.status === 'True' && progress(image) < 75,
      delayMs: step,
      next: (image) => {
        statusOf(image).progress = progress(image) + 100 / STEPS;
        return image;
      },
    },
    {
      name: 'image-imported',
      when: (image) => !isDeleting(image) && !failing(image) && !imported(image) && progress(image) >= 75,
      delayMs: step,
      next: (image) => {
        const status = statusOf(image);
        const { size, virtualSize } = sizesFor(image);
        status.progress = 100;
        status.size = size;
        status.virtualSize = virtualSize;
        condition(image, 'Imported', 'True', now());
        return image;
      },
    },
  ];
}
