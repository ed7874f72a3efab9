/**
 * Harvester's VirtualMachineImage webhooks (harvester pkg/image/common/validator.go, mutator.go,
 * pkg/webhook/resources/virtualmachineimage/*).
 *
 * Mutator: label `harvesterhci.io/imageDisplayName` = spec.displayName (the uniqueness index), and on create
 * `spec.storageClassParameters` defaulted to Longhorn's (numberOfReplicas 3, staleReplicaTimeout 30,
 * migratable true) merged with allowed keys given by the user.
 * Validator: create — displayName required and a valid label value, unique per namespace (409 "A resource
 * with the same name exists"), url required for download/restore and empty otherwise; update — displayName,
 * sourceType, url, storageClassParameters immutable; delete — refused while a PVC uses the image's storage
 * class ("Cannot delete image ns/displayName: being used by volume ns/name").
 */
import { AdmissionHook, AdmissionRequest, KubeObject } from '../api/types';
import { LONGHORN_DEFAULT_PARAMETERS } from '../controllers/image-stages';
import { HarvesterKinds } from '../controllers/kinds';
import { LABEL_IMAGE_DISPLAY_NAME } from '../controllers/names';
import { deepEqual, field, isDeleting, labelsOf, specOf } from '../controllers/object-util';
import { HARVESTER_MUTATOR, HARVESTER_VALIDATOR, denyConflict, denyInvalid } from './admission';
import { labelValueErrors } from '../api/store-names';

const ALLOWED_SC_PARAMETERS = new Set([
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


function mutate(req: AdmissionRequest): void {
  const image = req.object;
  if (!image || req.operation === 'DELETE' || isDeleting(image)) return;
  const s = specOf(image);
  if (typeof s.displayName === 'string' && s.displayName && labelValueErrors(s.displayName).length === 0) {
    labelsOf(image, true)[LABEL_IMAGE_DISPLAY_NAME] = s.displayName;
  }
  if (req.operation === 'CREATE' && (s.backend ?? 'backingimage') === 'backingimage') {
    const params: Record<string, string> = { ...LONGHORN_DEFAULT_PARAMETERS };
    for (const [k, v] of Object.entries((s.storageClassParameters as Record<string, string> | undefined) ?? {})) {
      if (ALLOWED_SC_PARAMETERS.has(k)) params[k] = v;
    }
    s.storageClassParameters = params;
    image.spec = s;
  }
}

function checkDisplayNameUnique(req: AdmissionRequest, kinds: HarvesterKinds, image: KubeObject): void {
  const name = String(specOf(image).displayName);
  if (labelValueErrors(name).length > 0) return;
  const same = req.store.list(kinds.image, { namespace: image.metadata.namespace, labelSelector: `${LABEL_IMAGE_DISPLAY_NAME}=${name}` }).items;
  if (same.some((other) => other.metadata.uid !== image.metadata.uid && other.metadata.name !== image.metadata.name)) {
    throw denyConflict(HARVESTER_VALIDATOR, 'A resource with the same name exists');
  }
}

function checkUrl(image: KubeObject): void {
  const s = specOf(image);
  const needsUrl = s.sourceType === 'download' || s.sourceType === 'restore';
  const url = typeof s.url === 'string' ? s.url : '';
  if (needsUrl) {
    if (!url) throw denyInvalid(HARVESTER_VALIDATOR, 'url is required', 'spec.url');
    try {
      new URL(url);
    } catch {
      throw denyInvalid(HARVESTER_VALIDATOR, `url is invalid: parse "${url}": invalid URI for request`, 'spec.url');
    }
  } else if (url) {
    throw denyInvalid(HARVESTER_VALIDATOR, `url should be empty when image source type is "${s.sourceType}"`, 'spec.url');
  }
}

function validate(req: AdmissionRequest, kinds: HarvesterKinds): void {
  if (req.operation === 'DELETE') {
    const image = req.oldObject;
    const sc = field<string>(image, 'status', 'storageClassName');
    if (!image || !sc) return;
    const pvc = req.store.list(kinds.pvc).items.find((p) => field(p, 'spec', 'storageClassName') === sc);
    if (pvc) {
      throw denyInvalid(
        HARVESTER_VALIDATOR,
        `Cannot delete image ${image.metadata.namespace}/${specOf(image).displayName}: being used by volume ${pvc.metadata.namespace}/${pvc.metadata.name}`,
        '',
      );
    }
    return;
  }
  const image = req.object;
  if (!image || req.subresource || isDeleting(image)) return;
  const s = specOf(image);
  if (req.operation === 'UPDATE' && req.oldObject) {
    const old = specOf(req.oldObject);
    if (old.displayName !== s.displayName) throw denyInvalid(HARVESTER_VALIDATOR, 'displayName cannot be modified', 'spec.displayName');
    if (old.sourceType !== s.sourceType) throw denyInvalid(HARVESTER_VALIDATOR, 'sourceType cannot be modified', 'spec.sourceType');
    if ((old.url ?? '') !== (s.url ?? '')) throw denyInvalid(HARVESTER_VALIDATOR, 'url cannot be modified', 'spec.url');
    if (!deepEqual(old.storageClassParameters ?? {}, s.storageClassParameters ?? {})) {
      throw denyInvalid(HARVESTER_VALIDATOR, 'storageClassParameters of the VM Image cannot be modified', 'spec.storageClassParameters');
    }
    checkDisplayNameUnique(req, kinds, image);
    return;
  }
  if (typeof s.displayName !== 'string' || s.displayName === '') {
    throw denyInvalid(HARVESTER_VALIDATOR, 'displayName is required', 'spec.displayName');
  }
  const errs = labelValueErrors(s.displayName);
  if (errs.length > 0) {
    throw denyInvalid(HARVESTER_VALIDATOR, `displayName is not a valid Kubernetes label value: ${errs.join('; ')}`, 'spec.displayName');
  }
  checkDisplayNameUnique(req, kinds, image);
  checkUrl(image);
}

/** The image mutating + validating webhooks. */
export function virtualMachineImageWebhooks(kinds: HarvesterKinds): AdmissionHook[] {
  const resources = ['virtualmachineimages.harvesterhci.io'];
  return [
    { name: HARVESTER_MUTATOR, resources, mutate },
    { name: HARVESTER_VALIDATOR, resources, validate: (req) => validate(req, kinds) },
  ];
}
