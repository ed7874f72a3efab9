/**
 * The VirtualMachineImage mutator M1–M4 (docs/design/harvester-images.md §"Admission rules"), against upstream
 * harvester/harvester pkg/image/common/mutator.go (getSC, mergeStorageClassParams, EnsureTargetSC) and
 * pkg/webhook/resources/virtualmachineimage/mutator.go: which StorageClass M3 takes its parameters from, which keys
 * it copies, how M4 fills the annotation and spec.targetStorageClassName from each other or the default class, the
 * cdi backend (no M3), and the 500s a cluster without a default class gives. Through the store where the apiserver
 * can send the object; the hook itself for what only a direct call reaches.
 */
import { strict as assert } from 'node:assert';
import { AdmissionRequest, KubeObject } from '../../emulator/api/types';
import { virtualMachineImageWebhooks } from '../../emulator/webhooks/virtual-machine-image';
import { expectStatusError, HarvesterSim, startHarvesterSim } from './harvester-fixture';

const MUTATOR = 'admission webhook "mutator.harvesterhci.io" denied the request: ';
const SC_ANNOTATION = 'harvesterhci.io/storageClassName';
const DEFAULT_CLASS = 'storageclass.kubernetes.io/is-default-class';
/** Longhorn's defaults M3 starts from (util.GetImageDefaultStorageClassParameters). */
const DEFAULTS = { numberOfReplicas: '3', staleReplicaTimeout: '30', migratable: 'true' };

function storageClass(name: string, provisioner: string, parameters: Record<string, string>, isDefault = false): KubeObject {
  return { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name, ...(isDefault ? { annotations: { [DEFAULT_CLASS]: 'true' } } : {}) }, provisioner, parameters } as KubeObject;
}

function image(name: string, spec: Record<string, unknown> = {}, annotations?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'harvesterhci.io/v1beta1',
    kind: 'VirtualMachineImage',
    metadata: { name, namespace: 'default', ...(annotations ? { annotations } : {}) },
    spec: { displayName: name, sourceType: 'download', url: 'https://example.com/x.img', ...spec },
  };
}

const specOf = (o: KubeObject) => o.spec as Record<string, unknown>;

describe('simulated Harvester: VirtualMachineImage mutator (M1–M4) as upstream has it', () => {
  let sim: HarvesterSim;
  beforeEach(async () => {
    sim = await startHarvesterSim();
  });
  afterEach(() => sim.close());

  const addClass = (sc: KubeObject) => sim.store.create(sim.kinds.storageClass!, sc);
  /** harvester-longhorn (the seeded default) no longer the default class. */
  const undefault = () => sim.store.patch(sim.kinds.storageClass!, undefined, 'harvester-longhorn', 'merge', { metadata: { annotations: { [DEFAULT_CLASS]: null } } });
  const create = (o: KubeObject) => sim.store.create(sim.kinds.image, o);

  it('M3/M4: the default class is the one annotated is-default-class, not the first one listed', () => {
    addClass(storageClass('a-plain', 'driver.longhorn.io', { numberOfReplicas: '1' }));
    assert.equal(sim.store.list(sim.kinds.storageClass!).items[0].metadata.name, 'a-plain', 'listed before the default');
    const made = create(image('m'));
    assert.deepEqual(specOf(made).storageClassParameters, DEFAULTS);
    assert.equal(made.metadata.annotations![SC_ANNOTATION], 'harvester-longhorn');
    assert.equal(specOf(made).targetStorageClassName, 'harvester-longhorn');
  });

  it('M3: copies only the allowed keys of the base class, over the Longhorn defaults', () => {
    const allowed = {
      nodeSelector: 'n',
      diskSelector: 'ssd',
      numberOfReplicas: '1',
      staleReplicaTimeout: '60',
      dataLocality: 'best-effort',
      encrypted: 'true',
      'csi.storage.k8s.io/provisioner-secret-name': 'a',
      'csi.storage.k8s.io/provisioner-secret-namespace': 'b',
      'csi.storage.k8s.io/node-stage-secret-name': 'c',
      'csi.storage.k8s.io/node-stage-secret-namespace': 'd',
      'csi.storage.k8s.io/node-publish-secret-name': 'e',
      'csi.storage.k8s.io/node-publish-secret-namespace': 'f',
    };
    addClass(storageClass('one', 'driver.longhorn.io', { ...allowed, migratable: 'false', fsType: 'ext4' }));
    const made = create(image('m', {}, { [SC_ANNOTATION]: 'one' }));
    assert.deepEqual(specOf(made).storageClassParameters, { ...allowed, migratable: 'true' });
  });

  it('M3: an annotated class that is not Longhorn gives no template: the spec\'s own parameters are overlaid', () => {
    addClass(storageClass('nfs', 'nfs.csi.k8s.io', { numberOfReplicas: '2', diskSelector: 'nvme' }));
    const made = create(image('m', { storageClassParameters: { numberOfReplicas: '1', diskSelector: 'hdd', bogus: 'x' } }, { [SC_ANNOTATION]: 'nfs' }));
    assert.deepEqual(specOf(made).storageClassParameters, { ...DEFAULTS, numberOfReplicas: '1', diskSelector: 'hdd' });
    assert.equal(specOf(made).targetStorageClassName, 'nfs');
  });

  it('M3: a default class that is not Longhorn gives no template either; M4 still names it', () => {
    undefault();
    addClass(storageClass('nfs', 'nfs.csi.k8s.io', { numberOfReplicas: '2' }, true));
    const made = create(image('m', { storageClassParameters: { numberOfReplicas: '1', dataLocality: 'best-effort' } }));
    assert.deepEqual(specOf(made).storageClassParameters, { ...DEFAULTS, numberOfReplicas: '1', dataLocality: 'best-effort' });
    assert.deepEqual([made.metadata.annotations![SC_ANNOTATION], specOf(made).targetStorageClassName], ['nfs', 'nfs']);
  });

  it('M3: without a default class a backingimage image is refused with getSC\'s plain error (500)', () => {
    undefault();
    const err = expectStatusError(() => create(image('m')));
    assert.deepEqual([err.code, err.status.reason, err.status.message, err.status.details], [500, 'InternalError', `${MUTATOR}no default storageClass found for backingImage`, undefined]);
    assert.equal(sim.store.get(sim.kinds.image, 'default', 'm'), undefined);
  });

  it('M1/M3: a cdi image keeps its backend and gets no storageClassParameters; M2 and M4 still apply', () => {
    const made = create(image('c', { backend: 'cdi' }));
    assert.equal(specOf(made).backend, 'cdi');
    assert.equal('storageClassParameters' in specOf(made), false);
    assert.equal(made.metadata.labels!['harvesterhci.io/imageDisplayName'], 'c');
    assert.deepEqual([made.metadata.annotations![SC_ANNOTATION], specOf(made).targetStorageClassName], ['harvester-longhorn', 'harvester-longhorn']);
  });

  it('M4: without a default class a cdi image naming no class is refused with EnsureTargetSC\'s plain error (500)', () => {
    undefault();
    const err = expectStatusError(() => create(image('c', { backend: 'cdi' })));
    assert.deepEqual([err.code, err.status.reason, err.status.message, err.status.details], [500, 'InternalError', `${MUTATOR}missing default storage class`, undefined]);
  });

  it('M4: spec.targetStorageClassName alone fills the annotation (M3 still takes the default class)', () => {
    addClass(storageClass('one', 'driver.longhorn.io', { numberOfReplicas: '1' }));
    const made = create(image('m', { targetStorageClassName: 'one' }));
    assert.equal(made.metadata.annotations![SC_ANNOTATION], 'one');
    assert.equal(specOf(made).targetStorageClassName, 'one');
    assert.deepEqual(specOf(made).storageClassParameters, DEFAULTS);
  });

  it('M4: the annotation alone fills spec.targetStorageClassName', () => {
    addClass(storageClass('one', 'driver.longhorn.io', { numberOfReplicas: '1' }));
    const made = create(image('m', {}, { [SC_ANNOTATION]: 'one' }));
    assert.equal(specOf(made).targetStorageClassName, 'one');
  });

  it('M4/V4: an empty annotation beside a target is left as it is (the annotation is present), and V4 skips it', () => {
    addClass(storageClass('one', 'driver.longhorn.io', { numberOfReplicas: '1' }));
    const made = create(image('m', { targetStorageClassName: 'one' }, { [SC_ANNOTATION]: '' }));
    assert.equal(made.metadata.annotations![SC_ANNOTATION], '');
    assert.equal(specOf(made).targetStorageClassName, 'one');
  });

  describe('the hook itself', () => {
    const mutator = () => virtualMachineImageWebhooks(sim.kinds).find((h) => h.mutate)!;
    const request = (operation: AdmissionRequest['operation'], object: KubeObject): AdmissionRequest => ({ operation, kind: sim.kinds.image, object, dryRun: false, store: sim.store });

    it('leaves a DELETE alone whatever the request carries (upstream registers CREATE and UPDATE only)', () => {
      const given = image('d');
      mutator().mutate!(request('DELETE', given));
      assert.deepEqual(given, image('d'));
    });

    it('gives an image without a spec one, with every field M1, M3 and M4 set', () => {
      const given: KubeObject = { apiVersion: 'harvesterhci.io/v1beta1', kind: 'VirtualMachineImage', metadata: { name: 'bare', namespace: 'default' } };
      mutator().mutate!(request('CREATE', given));
      assert.deepEqual(given.spec, { backend: 'backingimage', storageClassParameters: DEFAULTS, targetStorageClassName: 'harvester-longhorn' });
      assert.deepEqual(given.metadata.labels, { 'harvesterhci.io/imageDisplayName': '' });
      assert.deepEqual(given.metadata.annotations, { [SC_ANNOTATION]: 'harvester-longhorn' });
    });

    it('in a registry without StorageClasses: the spec\'s parameters over the defaults, no class named, no error', () => {
      const hook = virtualMachineImageWebhooks({ ...sim.kinds, storageClass: undefined }).find((h) => h.mutate)!;
      const given = image('m', { storageClassParameters: { numberOfReplicas: '1', bogus: 'x' } });
      hook.mutate!(request('CREATE', given));
      assert.deepEqual(specOf(given).storageClassParameters, { ...DEFAULTS, numberOfReplicas: '1' });
      assert.equal(given.metadata.annotations, undefined);
      assert.equal('targetStorageClassName' in specOf(given), false);
    });
  });
});
