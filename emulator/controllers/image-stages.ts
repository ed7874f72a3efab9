/**
 * VirtualMachineImage import as Harvester's vm-image-controller and backing-image sidecar write it
 * (docs/design/harvester-images.md §"The image controller"; pkg/image/common/operator.go stateTransit), one row
 * per transition. The emulator never dials the URL: its form decides the outcome (options.ts `imageImport` lists
 * the failing forms).
 * 1. `image-initialized` (new, or a failed one once `imageRetry` has passed) → Initialize: for a download the
 *    HEAD's outcome (status.size from its Content-Length, or FailInitial); the StorageClass `lh-<uid>` (or a legacy
 *    `longhorn-<name>` that exists) with
 *    {backingImage: vmi-<uid>} ∪ spec.storageClassParameters; appliedUrl, storageClassName, progress 0,
 *    Imported=Unknown/Importing, Initialized=True/Initialized; the finalizer wrangler.cattle.io/vm-image-controller.
 * 2. `image-progress` every `imageImport`/4: progress +25 (Importing; a backing image at 100 is written as 99),
 *    or FailImported at a `fail-at-<n>` percent.
 * 3. `image-imported` (progress 99) → progress 100, size, virtualSize, Imported=True/Imported,
 *    RetryLimitExceeded=False with reason and message cleared.
 * 4. `image-removed` (deleting, finalizer present) → the StorageClass deleted, the finalizer removed (OnRemove).
 * A failure (failStateTransit): failed+1, lastFailedTime, progress; message `failed due to error: <err>` (from the
 * second on `retry attempted <n>/<retry> failed due to error: <err>`); within spec.retry RetryLimitExceeded=False
 * with that message and a retry is due; beyond it RetryLimitExceeded=True, and Initialized (init failure) or
 * Imported (import failure) False, with that message; nothing more happens to the image.
 */
import { StatusError } from '../api/errors';
import { KubeObject, Store } from '../api/types';
import { Clock } from '../clock';
import { fnv1a } from '../util/hashing';
import { HarvesterKinds } from './kinds';
import { ResolvedHarvesterOptions } from './options';
import { Condition, addFinalizer, deleteIfPresent, field, findCondition, hasFinalizer, isDeleting, removeFinalizer, setCondition, statusOf, timestamp } from '../util/objects';
import { Stage } from './stages';

/** Fault knob: an image carrying this annotation fails to import with the annotation's value as the error. */
export const IMAGE_FAIL_ANNOTATION = 'image-import.emulator.harvester-iac.local/fail';
/** The finalizer wrangler's OnRemove registration puts on every image (vm-image-controller). */
export const IMAGE_FINALIZER = 'wrangler.cattle.io/vm-image-controller';

const STEPS = 4;

function condition(image: KubeObject, type: string, status: Condition['status'], now: string, reason?: string, message?: string): void {
  const s = statusOf(image);
  s.conditions = setCondition(s.conditions as Condition[] | undefined, { type, status, reason, message }, now, { stampUpdate: true });
}

function sizesFor(image: KubeObject): { size: number; virtualSize: number } {
  const url = String(field(image, 'spec', 'url') ?? image.metadata.name);
  const size = (300 + (fnv1a(url) % 500)) * 2 ** 20;
  const iso = /\.iso(\?|$)/i.test(url);
  return { size, virtualSize: iso ? size : 10 * 2 ** 30 };
}

/** What the simulated HEAD of a download URL answers: an error, or the Content-Length. */
export function simulatedHead(url: string): { error: string } | { contentLength: number } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { error: `Head "${url}": unsupported protocol scheme ""` };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return { error: `Head "${url}": unsupported protocol scheme "${parsed.protocol.slice(0, -1)}"` };
  if (/(^|\.)invalid$/i.test(parsed.hostname)) return { error: `Head "${url}": dial tcp: lookup ${parsed.hostname}: no such host` };
  const code = /(?:^|\/)http-([45]\d\d)(?:\/|$)/.exec(parsed.pathname)?.[1];
  if (code) return { error: `got ${code} status code from ${url}` };
  return { contentLength: sizesFor({ apiVersion: '', kind: '', metadata: {}, spec: { url } }).size };
}

/** The percent a `fail-at-<n>` URL breaks at, if it does. */
function failAt(image: KubeObject): number | undefined {
  const n = /(?:^|\/)fail-at-(\d{1,2})(?:\/|$|\.)/.exec(String(field(image, 'spec', 'url') ?? ''))?.[1];
  return n === undefined ? undefined : Number(n);
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
  const parameters = { ...params, backingImage: `vmi-${image.metadata.uid}` };
  try {
    store.create(kinds.storageClass, longhornStorageClass(name, parameters, RESERVED_STORAGE_CLASS), { fieldManager: 'harvester-image-controller' });
  } catch (err) {
    if (!(err instanceof StatusError && err.code === 409)) throw err;
  }
}

/**
 * The image's StorageClass name (util.GetImageStorageClassName, TestGetStorageClassName): `lh-<uid>`, unless the
 * legacy `longhorn-<name>` exists (images made before Harvester v1.5 keep theirs).
 */
export function storageClassNameFor(store: Store, kinds: HarvesterKinds, image: KubeObject): string {
  const current = `lh-${image.metadata.uid}`;
  const legacy = `longhorn-${image.metadata.name}`;
  if (!kinds.storageClass || store.get(kinds.storageClass, undefined, current)) return current;
  return store.get(kinds.storageClass, undefined, legacy) ? legacy : current;
}

/** The image stage table. */
export function imageStages(ctx: { store: Store; kinds: HarvesterKinds; options: ResolvedHarvesterOptions; clock: Clock }): Stage[] {
  const now = (): string => timestamp(ctx.clock.now());
  const progress = (image: KubeObject): number => Number(field(image, 'status', 'progress') ?? 0);
  const isTrue = (image: KubeObject, type: string): boolean => findCondition(image, type)?.status === 'True';
  /** Images whose last failure awaits its retry, by uid, with the failure count that made it due. */
  const retryDue = new Map<string, number>();
  const awaitingRetry = (image: KubeObject) => retryDue.get(String(image.metadata.uid)) === Number(field(image, 'status', 'failed') ?? 0);
  const live = (image: KubeObject) => !isDeleting(image) && !isTrue(image, 'RetryLimitExceeded');
  const downloading = (image: KubeObject) => live(image) && isTrue(image, 'Initialized') && !isTrue(image, 'Imported') && !awaitingRetry(image);

  /** failStateTransit: `cond` is the condition a final failure turns False. */
  const fail = (image: KubeObject, cond: 'Initialized' | 'Imported', error: string, at: number): KubeObject => {
    const status = statusOf(image);
    const failed = Number(status.failed ?? 0) + 1;
    const retry = Number(field(image, 'spec', 'retry') ?? 3);
    const message = failed > 1 ? `retry attempted ${failed - 1}/${retry} failed due to error: ${error}` : `failed due to error: ${error}`;
    const t = now();
    status.failed = failed;
    status.lastFailedTime = t;
    status.progress = at;
    if (failed > retry) {
      condition(image, 'RetryLimitExceeded', 'True', t, undefined, message);
      condition(image, cond, 'False', t, findCondition(image, cond)?.reason, message);
      retryDue.delete(String(image.metadata.uid));
    } else {
      condition(image, 'RetryLimitExceeded', 'False', t, undefined, message);
      retryDue.set(String(image.metadata.uid), failed);
    }
    return image;
  };

  return [
    {
      name: 'image-removed',
      when: (image) => isDeleting(image) && hasFinalizer(image, IMAGE_FINALIZER),
      delayMs: () => 0,
      next: (image) => {
        const sc = field<string>(image, 'status', 'storageClassName');
        if (sc && ctx.kinds.storageClass) deleteIfPresent(ctx.store, ctx.kinds.storageClass, undefined, sc);
        retryDue.delete(String(image.metadata.uid));
        removeFinalizer(image, IMAGE_FINALIZER);
        return image;
      },
    },
    {
      name: 'image-initialized',
      when: (image) => live(image) && (awaitingRetry(image) || (!findCondition(image, 'Initialized') && !Number(field(image, 'status', 'failed') ?? 0))),
      // At least a second apart: the retry's write differs from the failure's only in its (RFC3339) timestamps.
      delayMs: (image) => (awaitingRetry(image) ? Math.max(1000, ctx.options.delays.imageRetry) : 0),
      next: (image) => {
        addFinalizer(image, IMAGE_FINALIZER);
        const status = statusOf(image);
        const url = String(field(image, 'spec', 'url') ?? '');
        if (field(image, 'spec', 'sourceType') === 'download') {
          const head = simulatedHead(url);
          if ('error' in head) return fail(image, 'Initialized', head.error, 0);
          status.size = head.contentLength;
        }
        retryDue.delete(String(image.metadata.uid));
        const t = now();
        status.appliedUrl = url;
        status.storageClassName = storageClassNameFor(ctx.store, ctx.kinds, image);
        status.progress = 0;
        ensureStorageClass(ctx.store, ctx.kinds, image, String(status.storageClassName));
        condition(image, 'Imported', 'Unknown', t, 'Importing');
        condition(image, 'Initialized', 'True', t, 'Initialized');
        // Initialize stamps both conditions even when nothing else changed (a retry): the write is what moves it on.
        for (const c of statusOf(image).conditions as Condition[]) if (c.type === 'Imported' || c.type === 'Initialized') c.lastUpdateTime = t;
        return image;
      },
    },
    {
      name: 'image-progress',
      when: (image) => downloading(image) && progress(image) < 99,
      delayMs: () => ctx.options.delays.imageImport / STEPS,
      next: (image) => {
        const url = String(field(image, 'spec', 'url') ?? '');
        const injected = image.metadata.annotations?.[IMAGE_FAIL_ANNOTATION];
        if (injected) return fail(image, 'Imported', injected, progress(image));
        const to = Math.min(100, progress(image) + 100 / STEPS);
        const breaks = failAt(image);
        if (breaks !== undefined && breaks <= to) return fail(image, 'Imported', `${url}: unexpected EOF`, breaks);
        statusOf(image).progress = to === 100 ? 99 : to; // a backing image at 100 is not ready yet: shown as 99
        condition(image, 'Imported', 'Unknown', now(), 'Importing');
        return image;
      },
    },
    {
      name: 'image-imported',
      when: (image) => downloading(image) && progress(image) >= 99,
      delayMs: () => 0,
      next: (image) => {
        const status = statusOf(image);
        const { size, virtualSize } = sizesFor(image);
        const t = now();
        status.progress = 100;
        status.size = size;
        status.virtualSize = virtualSize;
        condition(image, 'Imported', 'True', t, 'Imported');
        condition(image, 'RetryLimitExceeded', 'False', t);
        return image;
      },
    },
  ];
}
