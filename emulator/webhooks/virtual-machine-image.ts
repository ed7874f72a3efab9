/**
 * Harvester's VirtualMachineImage webhooks, rule by rule as docs/design/harvester-images.md §"Admission rules"
 * states them (harvester pkg/webhook/resources/virtualmachineimage, pkg/image/common/{mutator,validator}.go,
 * pkg/image/backingimage/validate.go). Rule ids (M1–M4, V1–V39) are that page's.
 *
 * Mutator (`mutator.harvesterhci.io`; its errors are plain Go errors, so 500 with the bare message):
 *   M2 label `harvesterhci.io/imageDisplayName` = displayName, always (an invalid label value is then refused by
 *      the apiserver's metadata validation, before the validator's V1 can run — as on a real cluster);
 *   M3 (create, backingimage) storageClassParameters = Longhorn defaults overlaid with the allowed keys of the
 *      StorageClass named by annotation `harvesterhci.io/storageClassName`, else of the default StorageClass when
 *      it is Longhorn, else of spec.storageClassParameters;
 *   M4 (create and update) the annotation and spec.targetStorageClassName filled from each other or the default.
 * Validator (`validator.harvesterhci.io`; 422 with the field as the cause, 409 for V3):
 *   create V1–V3, V4, V5–V7 (clone, export and cdi rules need kinds the emulator does not serve);
 *   update V29 → V30 → V31 → V32 → V33 → V34 → V35 (+V2, V3) → V5–V7, dispatched on the old object's backend;
 *   delete V36 (never initialized: allowed) → V38 (a PVC of the image's storage class, any namespace).
 *   The cdi backend has no delete rule.
 */
import { AdmissionHook, AdmissionRequest, KubeObject } from '../api/types';
import { LONGHORN_DEFAULT_PARAMETERS } from '../controllers/image-stages';
import { HarvesterKinds } from '../controllers/kinds';
import { LABEL_IMAGE_DISPLAY_NAME } from '../util/names';
import { annotationsOf, deepEqual, field, isDeleting, labelsOf, specOf } from '../util/objects';
import { HARVESTER_MUTATOR, HARVESTER_VALIDATOR, denyConflict, denyHarvesterInternal, denyInvalid } from './admission';
import { labelValueErrors } from '../api/store-names';
import { goUrlParseError } from './go-url';

/** The annotation naming the image's base (and target) StorageClass. */
export const ANNOTATION_STORAGE_CLASS = 'harvesterhci.io/storageClassName';
const DEFAULT_SC_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';
const LONGHORN = 'driver.longhorn.io';

/** The StorageClass parameters M3 copies (common/mutator.go allowPatchParams). */
export const ALLOWED_SC_PARAMETERS: ReadonlySet<string> = new Set([
  'nodeSelector',
  'diskSelector',
  'numberOfReplicas',
  'staleReplicaTimeout',
  'dataLocality',
  'encrypted',
  'csi.storage.k8s.io/provisioner-secret-name',
  'csi.storage.k8s.io/provisioner-secret-namespace',
  'csi.storage.k8s.io/node-stage-secret-name',
  'csi.storage.k8s.io/node-stage-secret-namespace',
  'csi.storage.k8s.io/node-publish-secret-name',
  'csi.storage.k8s.io/node-publish-secret-namespace',
]);

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function defaultStorageClass(req: AdmissionRequest, kinds: HarvesterKinds): KubeObject | undefined {
  if (!kinds.storageClass) return undefined;
  return req.store.list(kinds.storageClass).items.find((sc) => sc.metadata.annotations?.[DEFAULT_SC_ANNOTATION] === 'true');
}

/** M3's base StorageClass (getSC): the annotated one, else the default when Longhorn; errors as Go's. */
function baseStorageClass(req: AdmissionRequest, kinds: HarvesterKinds, image: KubeObject): KubeObject | undefined {
  const name = image.metadata.annotations?.[ANNOTATION_STORAGE_CLASS] ?? '';
  if (!kinds.storageClass) return undefined; // a registry without StorageClasses: spec.storageClassParameters stand
  if (name) {
    const sc = kinds.storageClass && req.store.get(kinds.storageClass, undefined, name);
    if (!sc) throw denyHarvesterInternal(HARVESTER_MUTATOR, `storageclass.storage.k8s.io "${name}" not found`);
    if (sc.provisioner !== LONGHORN) return undefined;
    if (field(sc, 'parameters', 'backingImage')) throw denyHarvesterInternal(HARVESTER_MUTATOR, 'can not use a backing image storageClass as the base storageClass template');
    return sc;
  }
  const def = defaultStorageClass(req, kinds);
  if (!def) throw denyHarvesterInternal(HARVESTER_MUTATOR, 'no default storageClass found for backingImage');
  return def.provisioner === LONGHORN ? def : undefined;
}

function mutate(req: AdmissionRequest, kinds: HarvesterKinds): void {
  const image = req.object;
  if (!image || req.operation === 'DELETE' || isDeleting(image)) return;
  const s = specOf(image, true);
  if (req.operation === 'CREATE') {
    if (!s.backend) s.backend = 'backingimage'; // M1
    labelsOf(image, true)[LABEL_IMAGE_DISPLAY_NAME] = str(s.displayName); // M2
    if (s.backend === 'backingimage') {
      const sc = baseStorageClass(req, kinds, image); // M3
      const overlay = (sc ? (sc.parameters as Record<string, string> | undefined) : (s.storageClassParameters as Record<string, string> | undefined)) ?? {};
      const params: Record<string, string> = { ...LONGHORN_DEFAULT_PARAMETERS };
      for (const [k, v] of Object.entries(overlay)) if (ALLOWED_SC_PARAMETERS.has(k)) params[k] = v;
      s.storageClassParameters = params;
    }
  }
  ensureTargetStorageClass(req, kinds, image); // M4
}

/** M4 (EnsureTargetSC): the annotation and spec.targetStorageClassName filled from each other, or the default. */
function ensureTargetStorageClass(req: AdmissionRequest, kinds: HarvesterKinds, image: KubeObject): void {
  const s = specOf(image, true);
  const annotated = image.metadata.annotations?.[ANNOTATION_STORAGE_CLASS];
  if (!kinds.storageClass || (annotated !== undefined && str(s.targetStorageClassName))) return;
  let target = annotated ?? str(s.targetStorageClassName);
  if (!target) {
    const def = defaultStorageClass(req, kinds);
    if (!def) throw denyHarvesterInternal(HARVESTER_MUTATOR, 'missing default storage class');
    target = def.metadata.name!;
  }
  if (!annotated) annotationsOf(image, true)[ANNOTATION_STORAGE_CLASS] = target;
  if (!str(s.targetStorageClassName)) s.targetStorageClassName = target;
}

/** V1 (create only): the display name is a valid label value. */
export function checkDisplayNameLabel(image: KubeObject): void {
  const errs = labelValueErrors(str(specOf(image).displayName));
  if (errs.length > 0) throw denyInvalid(HARVESTER_VALIDATOR, `displayName is not a valid Kubernetes label value: ${errs.join('; ')}`, 'spec.displayName');
}

/** V2, V3: the display name is set and no other image of the namespace (another uid) carries it. */
export function checkDisplayNameUnique(images: KubeObject[], image: KubeObject): void {
  const name = str(specOf(image).displayName);
  if (name === '') throw denyInvalid(HARVESTER_VALIDATOR, 'displayName is required', 'spec.displayName');
  const same = images.filter((o) => o.metadata.namespace === image.metadata.namespace && o.metadata.labels?.[LABEL_IMAGE_DISPLAY_NAME] === name);
  if (same.some((o) => o.metadata.uid !== image.metadata.uid)) throw denyConflict(HARVESTER_VALIDATOR, 'A resource with the same name exists');
}

/** V4: the annotation and spec.targetStorageClassName, when both set, agree. */
function checkStorageClassConsistency(image: KubeObject): void {
  const annotated = image.metadata.annotations?.[ANNOTATION_STORAGE_CLASS];
  const target = str(specOf(image).targetStorageClassName);
  if (annotated && target && annotated !== target) throw denyInvalid(HARVESTER_VALIDATOR, 'storageClassName should keep the consistency', 'spec.targetStorageClassName');
}

/** V5–V7: download/restore need a url Go can parse; other source types none. */
export function checkUrl(image: KubeObject): void {
  const s = specOf(image);
  const url = str(s.url);
  if (s.sourceType === 'download' || s.sourceType === 'restore') {
    if (!url) throw denyInvalid(HARVESTER_VALIDATOR, 'url is required', 'spec.url');
    const err = goUrlParseError(url);
    if (err) throw denyInvalid(HARVESTER_VALIDATOR, `url is invalid: ${err}`, 'spec.url');
  } else if (url) {
    throw denyInvalid(HARVESTER_VALIDATOR, `url should be empty when image source type is "${str(s.sourceType)}"`, 'spec.url');
  }
}

/** V30: the storage class stays as it was (cv:405-440). */
function checkStorageClassUnchanged(old: KubeObject, image: KubeObject): void {
  const was = { annotation: old.metadata.annotations?.[ANNOTATION_STORAGE_CLASS] ?? '', target: str(specOf(old).targetStorageClassName) };
  const now = { annotation: image.metadata.annotations?.[ANNOTATION_STORAGE_CLASS] ?? '', target: str(specOf(image).targetStorageClassName) };
  if (!was.annotation && !was.target) return;
  if (was.annotation && now.annotation !== was.annotation) {
    throw denyInvalid(HARVESTER_VALIDATOR, 'storageClassName cannot be modified', `metadata.annotations[${ANNOTATION_STORAGE_CLASS}]`);
  }
  if ((was.target && now.target !== was.target) || (was.annotation && now.target && now.target !== was.annotation)) {
    throw denyInvalid(HARVESTER_VALIDATOR, 'storageClassName cannot be modified', 'spec.targetStorageClassName');
  }
}

/**
 * The update rules, dispatched on the old object's backend: backingimage V29 → V30 → V31 → V32 → V33 → V34 → V35;
 * cdi V31 → V30 → V32 → V33 → V35 (no V29, no V34). Then V2, V3 and V5–V7 on the new object.
 */
function checkUpdate(req: AdmissionRequest, kinds: HarvesterKinds, old: KubeObject, image: KubeObject): void {
  const [o, s] = [specOf(old), specOf(image)];
  const cdi = o.backend === 'cdi';
  const unchanged = (a: unknown, b: unknown, message: string, fieldPath: string) => {
    if (!deepEqual(a ?? null, b ?? null)) throw denyInvalid(HARVESTER_VALIDATOR, message, fieldPath);
  };
  if (!cdi) unchanged(o.storageClassParameters, s.storageClassParameters, 'storageClassParameters of the VM Image cannot be modified', 'spec.storageClassParameters'); // V29
  if (cdi) unchanged(o.sourceType, s.sourceType, 'sourceType cannot be modified', 'spec.sourceType'); // V31
  checkStorageClassUnchanged(old, image); // V30
  if (!cdi) unchanged(o.sourceType, s.sourceType, 'sourceType cannot be modified', 'spec.sourceType'); // V31
  if (s.sourceType === 'export-from-volume') {
    unchanged(o.pvcNamespace, s.pvcNamespace, 'pvcNamespace cannot be modified', 'spec.pvcNamespace'); // V32
    unchanged(o.pvcName, s.pvcName, 'pvcName cannot be modified', 'spec.pvcName');
  }
  unchanged(str(o.url), str(s.url), 'url cannot be modified', 'spec.url'); // V33
  if (!cdi) unchanged(o.securityParameters, s.securityParameters, 'securityParameters cannot be modified', 'spec.securityParameters'); // V34
  unchanged(o.displayName, s.displayName, 'displayName cannot be modified', 'spec.displayName'); // V35
  checkDisplayNameUnique(req.store.list(kinds.image, { namespace: image.metadata.namespace }).items, image);
  if (!cdi) checkUrl(image);
}

/** V36, V38: an image whose storage class backs a volume cannot go; V37/V39 need kinds the emulator lacks. */
function checkDelete(req: AdmissionRequest, kinds: HarvesterKinds, image: KubeObject): void {
  if (str(specOf(image).backend) === 'cdi') return;
  const sc = str(field(image, 'status', 'storageClassName'));
  if (!sc) return;
  const pvc = req.store.list(kinds.pvc).items.find((p) => field(p, 'spec', 'storageClassName') === sc);
  if (pvc) {
    const what = `${image.metadata.namespace}/${str(specOf(image).displayName)}`;
    throw denyInvalid(HARVESTER_VALIDATOR, `Cannot delete image ${what}: being used by volume ${pvc.metadata.namespace}/${pvc.metadata.name}`, '');
  }
}

function validate(req: AdmissionRequest, kinds: HarvesterKinds): void {
  if (req.operation === 'DELETE') {
    if (req.oldObject) checkDelete(req, kinds, req.oldObject);
    return;
  }
  const image = req.object;
  if (!image || req.subresource || isDeleting(image)) return;
  if (req.operation === 'UPDATE' && req.oldObject) {
    checkUpdate(req, kinds, req.oldObject, image);
    return;
  }
  checkDisplayNameLabel(image);
  checkDisplayNameUnique(req.store.list(kinds.image, { namespace: image.metadata.namespace }).items, image);
  checkStorageClassConsistency(image);
  checkUrl(image);
}

/** The image mutating + validating webhooks. */
export function virtualMachineImageWebhooks(kinds: HarvesterKinds): AdmissionHook[] {
  const resources = ['virtualmachineimages.harvesterhci.io'];
  return [
    { name: HARVESTER_MUTATOR, resources, mutate: (req) => mutate(req, kinds) },
    { name: HARVESTER_VALIDATOR, resources, validate: (req) => validate(req, kinds) },
  ];
}
