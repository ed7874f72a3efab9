/**
 * The VirtualMachineImage validator (docs/design/harvester-images.md §"Admission rules"), rule by rule against
 * upstream harvester/harvester pkg/image/common/validator.go (CheckDisplayName, CheckURL, scConsistencyCreation,
 * SCConsistency, PVCConsistency, PVCOccupation) and pkg/image/{backingimage,cdi}/validate.go (which rules each
 * backend runs on update, in which order; cdi has no delete rule). Each case pins the status, message and cause.
 * Old objects the store never holds (an image from before spec.targetStorageClassName, a stored URL the create
 * rules would refuse today, export-from-volume and cdi images) go to the hook itself.
 */
import { strict as assert } from 'node:assert';
import { AdmissionRequest, KubeObject } from '../../emulator/api/types';
import { checkDisplayNameLabel, checkUrl, virtualMachineImageWebhooks } from '../../emulator/webhooks/virtual-machine-image';
import { expectStatusError, HarvesterSim, startHarvesterSim } from './harvester-fixture';

const WEBHOOK = 'admission webhook "validator.harvesterhci.io" denied the request: ';
const SC_ANNOTATION = 'harvesterhci.io/storageClassName';
const ANNOTATION_FIELD = 'metadata.annotations[harvesterhci.io/storageClassName]';

/** A 422 from werror.NewInvalidError, whole. */
const invalid = (message: string, field?: string) => ({
  code: 422,
  reason: 'Invalid',
  message: `${WEBHOOK}${message}`,
  details: { causes: [{ reason: 'FieldValueInvalid', message, ...(field ? { field } : {}) }] },
});

function refusal(fn: () => unknown) {
  const err = expectStatusError(fn);
  return { code: err.code, reason: err.status.reason, message: err.status.message, details: err.status.details };
}

function image(name: string, spec: Record<string, unknown> = {}, annotations?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'harvesterhci.io/v1beta1',
    kind: 'VirtualMachineImage',
    metadata: { name, namespace: 'default', uid: `uid-${name}`, ...(annotations ? { annotations } : {}) },
    spec: { displayName: name, sourceType: 'download', url: 'https://example.com/x.img', backend: 'backingimage', ...spec },
  };
}

describe('simulated Harvester: VirtualMachineImage validator as upstream has it', () => {
  let sim: HarvesterSim;
  beforeEach(async () => {
    sim = await startHarvesterSim();
  });
  afterEach(() => sim.close());

  const validator = () => virtualMachineImageWebhooks(sim.kinds).find((h) => h.validate)!;
  const request = (operation: AdmissionRequest['operation'], object: KubeObject | undefined, oldObject?: KubeObject): AdmissionRequest => ({ operation, kind: sim.kinds.image, object, oldObject, dryRun: false, store: sim.store });
  /** Runs the validator on an update from `old` to `now`. */
  const update = (old: KubeObject, now: KubeObject) => () => validator().validate!(request('UPDATE', now, old));
  const remove = (old: KubeObject) => () => validator().validate!(request('DELETE', undefined, old));
  const pvc = (name: string, storageClassName: string) =>
    sim.store.create(sim.kinds.pvc, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name, namespace: 'default' },
      spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage: '10Gi' } }, storageClassName },
    });

  describe('create', () => {
    it('V1: every reason the display name is no label value, joined by "; ", on spec.displayName', () => {
      const reasons = [
        'must be no more than 63 characters',
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
      ];
      const message = `displayName is not a valid Kubernetes label value: ${reasons.join('; ')}`;
      assert.deepEqual(refusal(() => checkDisplayNameLabel(image('i', { displayName: `${'a'.repeat(63)}/` }))), invalid(message, 'spec.displayName'));
    });

    it('V4: an annotation and a target that differ are refused on spec.targetStorageClassName', () => {
      sim.store.create(sim.kinds.storageClass!, { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'one' }, provisioner: 'driver.longhorn.io' } as KubeObject);
      const given = image('i', { targetStorageClassName: 'harvester-longhorn' }, { [SC_ANNOTATION]: 'one' });
      assert.deepEqual(refusal(() => sim.store.create(sim.kinds.image, given)), invalid('storageClassName should keep the consistency', 'spec.targetStorageClassName'));
    });

    it('V5: a restore image needs a url, like a download', () => {
      assert.deepEqual(refusal(() => checkUrl(image('i', { sourceType: 'restore', url: '' }))), invalid('url is required', 'spec.url'));
      checkUrl(image('i', { sourceType: 'restore', url: 'https://example.com/backup' }));
    });

    it('V7: an upload image without a url passes; with one it is refused on spec.url', () => {
      checkUrl(image('i', { sourceType: 'upload', url: '' }));
      assert.deepEqual(refusal(() => checkUrl(image('i', { sourceType: 'upload', url: 'x' }))), invalid('url should be empty when image source type is "upload"', 'spec.url'));
    });
  });

  describe('update, V30: the StorageClass stays', () => {
    const both = (sc: string) => image('i', { targetStorageClassName: sc }, { [SC_ANNOTATION]: sc });

    it('a changed target is refused on spec.targetStorageClassName (through the store)', () => {
      sim.store.create(sim.kinds.image, image('i'));
      const err = refusal(() => sim.store.patch(sim.kinds.image, 'default', 'i', 'merge', { spec: { targetStorageClassName: 'one' } }));
      assert.deepEqual(err, invalid('storageClassName cannot be modified', 'spec.targetStorageClassName'));
    });

    it('a removed annotation is refused on the annotation', () => {
      assert.deepEqual(refusal(update(both('a'), image('i', { targetStorageClassName: 'a' }))), invalid('storageClassName cannot be modified', ANNOTATION_FIELD));
    });

    it('an image with only the annotation: a changed annotation is refused', () => {
      assert.deepEqual(refusal(update(image('i', {}, { [SC_ANNOTATION]: 'a' }), image('i', {}, { [SC_ANNOTATION]: 'b' }))), invalid('storageClassName cannot be modified', ANNOTATION_FIELD));
    });

    it('an image with only the annotation: a target other than the annotation is refused on the target', () => {
      const now = image('i', { targetStorageClassName: 'b' }, { [SC_ANNOTATION]: 'a' });
      assert.deepEqual(refusal(update(image('i', {}, { [SC_ANNOTATION]: 'a' }), now)), invalid('storageClassName cannot be modified', 'spec.targetStorageClassName'));
    });

    it('an image with only the target: a changed target is refused', () => {
      const now = image('i', { targetStorageClassName: 'b' });
      assert.deepEqual(refusal(update(image('i', { targetStorageClassName: 'a' }), now)), invalid('storageClassName cannot be modified', 'spec.targetStorageClassName'));
    });

    it('an image with only the target may gain the matching annotation', () => {
      update(image('i', { targetStorageClassName: 'a' }), both('a'))();
    });

    it('an image with neither may gain both', () => {
      update(image('i'), both('a'))();
    });
  });

  describe('update: which rules each backend runs, in which order', () => {
    const cdi = (spec: Record<string, unknown> = {}, annotations?: Record<string, string>) => image('i', { backend: 'cdi', ...spec }, annotations);

    it('backingimage: V30 before V31 (a changed class and source type: the class is named)', () => {
      const old = image('i', { targetStorageClassName: 'a' }, { [SC_ANNOTATION]: 'a' });
      const now = image('i', { targetStorageClassName: 'a', sourceType: 'upload', url: 'https://example.com/x.img' }, { [SC_ANNOTATION]: 'b' });
      assert.deepEqual(refusal(update(old, now)), invalid('storageClassName cannot be modified', ANNOTATION_FIELD));
    });

    it('cdi: V31 before V30 (a changed class and source type: the source type is named)', () => {
      const old = cdi({ targetStorageClassName: 'a' }, { [SC_ANNOTATION]: 'a' });
      const now = cdi({ targetStorageClassName: 'a', sourceType: 'upload' }, { [SC_ANNOTATION]: 'b' });
      assert.deepEqual(refusal(update(old, now)), invalid('sourceType cannot be modified', 'spec.sourceType'));
    });

    it('cdi: a changed source type alone is refused (V31)', () => {
      assert.deepEqual(refusal(update(cdi(), cdi({ sourceType: 'upload' }))), invalid('sourceType cannot be modified', 'spec.sourceType'));
    });

    it('cdi: storageClassParameters may change (no V29)', () => {
      update(cdi({ storageClassParameters: { numberOfReplicas: '3' } }), cdi({ storageClassParameters: { numberOfReplicas: '1' } }))();
    });

    it('cdi: securityParameters may change (no V34)', () => {
      update(cdi(), cdi({ securityParameters: { cryptoOperation: 'encrypt', sourceImageName: 'a', sourceImageNamespace: 'b' } }))();
    });

    it('cdi: the url rules are not run again (an upload image holding a url stays updatable)', () => {
      update(cdi({ sourceType: 'upload', url: 'x' }), cdi({ sourceType: 'upload', url: 'x', description: 'touched' }))();
    });

    it('backingimage: the url rules run again on the new object (V5–V7)', () => {
      const old = image('i', { sourceType: 'upload', url: 'x' });
      const now = image('i', { sourceType: 'upload', url: 'x', description: 'touched' });
      assert.deepEqual(refusal(update(old, now)), invalid('url should be empty when image source type is "upload"', 'spec.url'));
    });

    it('export-from-volume: a changed pvcNamespace is refused (V32)', () => {
      const exported = (ns: string, name: string) => image('i', { sourceType: 'export-from-volume', url: '', pvcNamespace: ns, pvcName: name });
      assert.deepEqual(refusal(update(exported('ns', 'p'), exported('other', 'p'))), invalid('pvcNamespace cannot be modified', 'spec.pvcNamespace'));
    });

    it('export-from-volume: a changed pvcName is refused (V32)', () => {
      const exported = (ns: string, name: string) => image('i', { sourceType: 'export-from-volume', url: '', pvcNamespace: ns, pvcName: name });
      assert.deepEqual(refusal(update(exported('ns', 'p'), exported('ns', 'q'))), invalid('pvcName cannot be modified', 'spec.pvcName'));
    });

    it('download: the PVC fields are not compared (V32 is for export-from-volume only)', () => {
      sim.store.create(sim.kinds.image, image('i'));
      const patched = sim.store.patch(sim.kinds.image, 'default', 'i', 'merge', { spec: { pvcNamespace: 'ns', pvcName: 'p' } }).object.spec as Record<string, unknown>;
      assert.deepEqual([patched.pvcNamespace, patched.pvcName], ['ns', 'p']);
    });
  });

  describe('delete', () => {
    const initialized = (spec: Record<string, unknown> = {}) => ({ ...image('i', spec), status: { storageClassName: 'longhorn-i' } });

    it('V38 is for backingimage only: a cdi image goes while a volume of its class exists', () => {
      pvc('vol', 'longhorn-i');
      assert.deepEqual(refusal(remove(initialized())), invalid('Cannot delete image default/i: being used by volume default/vol'));
      remove(initialized({ backend: 'cdi' }))();
    });

    it('V36: a never-initialized image goes even beside a claim without a class (storageClassName "")', () => {
      pvc('classless', '');
      sim.store.create(sim.kinds.image, image('fresh'));
      sim.store.delete(sim.kinds.image, 'default', 'fresh', {});
      assert.equal(sim.store.get(sim.kinds.image, 'default', 'fresh'), undefined);
    });

    it('V38: only a volume of the image\'s own class holds it', () => {
      pvc('vol', 'harvester-longhorn');
      sim.store.delete(sim.kinds.image, 'default', 'opensuse-leap-15.6', {});
      assert.equal(sim.store.get(sim.kinds.image, 'default', 'opensuse-leap-15.6'), undefined);
    });
  });
});
