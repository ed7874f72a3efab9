/**
 * The emulator's VirtualMachineImage webhooks against upstream (docs/design/harvester-images.md §"Admission rules",
 * §"Upstream's tests"): the shared rule table (test/support/image-rules.ts) on the object the provider writes, with
 * the exact denial; upstream's TestCheckDisplayName / TestCheckUpdateDisplayName on the validator's functions;
 * every update rule V29–V35 and the delete rules V36/V38 with their status, message and cause; the mutators M1–M4.
 */
import { strict as assert } from 'node:assert';
import { KubeObject } from '../../emulator/api/types';
import { checkDisplayNameLabel, checkDisplayNameUnique } from '../../emulator/webhooks/virtual-machine-image';
import { goUrlParseError } from '../../emulator/webhooks/go-url';
import { desiredImage } from '../../provider/resources/image/plan';
import type { ImageInputs } from '../../provider/resources/image/model';
import { IMAGE_RULE_CASES } from '../support/image-rules';
import { expectStatusError, HarvesterSim, startHarvesterSim } from './harvester-fixture';

const WEBHOOK = 'admission webhook "validator.harvesterhci.io" denied the request: ';

/** The object the provider writes for these inputs, the model's defaults filled in but its rules not run. */
function written(args: Record<string, unknown>): KubeObject {
  const inputs = { name: 'img', namespace: 'default', imageType: 'raw_qcow2', labels: {}, retry: 3, timeouts: { create: '1m', update: '1m', delete: '1m' }, ...args } as ImageInputs;
  return desiredImage(inputs) as KubeObject;
}

function raw(name: string, displayName: string, extra: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'harvesterhci.io/v1beta1', kind: 'VirtualMachineImage', metadata: { name, namespace: 'default' }, spec: { displayName, sourceType: 'download', url: 'https://example.com/x.img', ...extra } };
}

describe('simulated Harvester: VirtualMachineImage admission as upstream has it', () => {
  let sim: HarvesterSim;
  beforeEach(async () => {
    sim = await startHarvesterSim({ delays: { imageImport: 40 } });
  });
  afterEach(() => sim.close());

  for (const c of IMAGE_RULE_CASES) {
    it(`${c.refused ? 'refuses' : 'accepts'} ${c.label} (${c.upstream})`, () => {
      for (const e of c.existing?.images ?? []) sim.store.create(sim.kinds.image, raw(e.name, e.displayName));
      if (c.refused) {
        const err = expectStatusError(() => sim.store.create(sim.kinds.image, written(c.args)));
        assert.deepEqual({ code: err.code, message: err.status.message }, { code: c.refused.code, message: c.refused.message });
        // The Status as Harvester's AdmitError makes it: 422 carries its one cause, 409 and 500 no details at all.
        if (c.refused.code !== 422) assert.equal(err.status.details, undefined);
        else if (err.status.message!.startsWith('admission webhook')) assert.equal((err.status.details as any).causes[0].field, `spec.${c.refused.property}`);
        assert.equal(sim.store.get(sim.kinds.image, 'default', 'img'), undefined);
      } else {
        assert.ok(sim.store.create(sim.kinds.image, written(c.args)));
      }
    });
  }

  describe('upstream TestCheckDisplayName and TestCheckUpdateDisplayName, on the validator\'s own functions', () => {
    const image = (displayName: string, uid = 'new-uid') => ({ ...raw('new-image', displayName), metadata: { name: 'new-image', namespace: 'default', uid } });
    const message = (fn: () => void) => expectStatusError(fn).status.message;
    it('rejects an empty displayName; accepts 63 characters; rejects 64 and an invalid label value', () => {
      assert.equal(message(() => checkDisplayNameUnique([], image(''))), `${WEBHOOK}displayName is required`);
      checkDisplayNameLabel(image('a'.repeat(63)));
      checkDisplayNameUnique([], image('a'.repeat(63)));
      assert.match(message(() => checkDisplayNameLabel(image('a'.repeat(64)))) ?? '', /displayName is not a valid Kubernetes label value: must be no more than 63 characters$/);
      assert.match(message(() => checkDisplayNameLabel(image('Invalid/Name'))) ?? '', /displayName is not a valid Kubernetes label value: a valid label must be/);
    });
    it('rejects a duplicate displayName held by another uid, not by the image itself', () => {
      const existing = { ...raw('existing-image', 'duplicate-name'), metadata: { name: 'existing-image', namespace: 'default', uid: 'existing-uid', labels: { 'harvesterhci.io/imageDisplayName': 'duplicate-name' } } };
      assert.equal(message(() => checkDisplayNameUnique([existing], image('duplicate-name'))), `${WEBHOOK}A resource with the same name exists`);
      checkDisplayNameUnique([existing], image('duplicate-name', 'existing-uid'));
      checkDisplayNameUnique([{ ...existing, metadata: { ...existing.metadata, namespace: 'other' } }], image('duplicate-name'));
    });
    it('accepts an unchanged displayName on update; rejects a changed one', () => {
      sim.store.create(sim.kinds.image, raw('u', 'valid-name'));
      sim.store.patch(sim.kinds.image, 'default', 'u', 'merge', { spec: { description: 'touched' } });
      sim.store.create(sim.kinds.image, raw('v', 'old-name'));
      const err = expectStatusError(() => sim.store.patch(sim.kinds.image, 'default', 'v', 'merge', { spec: { displayName: 'new-name' } }));
      assert.deepEqual([err.code, err.status.message, (err.status.details as any).causes], [422, `${WEBHOOK}displayName cannot be modified`, [{ reason: 'FieldValueInvalid', message: 'displayName cannot be modified', field: 'spec.displayName' }]]);
    });
  });

  it('mutators: backend, display-name label, storage class parameters from the default StorageClass, annotation and target filled (M1–M4)', () => {
    const made = sim.store.create(sim.kinds.image, raw('m', 'm', { storageClassParameters: { numberOfReplicas: '1', bogus: 'x' } }));
    assert.equal((made.spec as any).backend, 'backingimage');
    assert.equal(made.metadata.labels!['harvesterhci.io/imageDisplayName'], 'm');
    // The default StorageClass is Longhorn, so its parameters win over the spec's (M3).
    assert.deepEqual((made.spec as any).storageClassParameters, { numberOfReplicas: '3', staleReplicaTimeout: '30', migratable: 'true' });
    assert.equal(made.metadata.annotations!['harvesterhci.io/storageClassName'], 'harvester-longhorn');
    assert.equal((made.spec as any).targetStorageClassName, 'harvester-longhorn');
    sim.store.create(sim.kinds.storageClass!, { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'one' }, provisioner: 'driver.longhorn.io', parameters: { numberOfReplicas: '1', diskSelector: 'ssd', migratable: 'true' } } as KubeObject);
    const chosen = sim.store.create(sim.kinds.image, { ...raw('n', 'n'), metadata: { name: 'n', namespace: 'default', annotations: { 'harvesterhci.io/storageClassName': 'one' } } });
    assert.deepEqual((chosen.spec as any).storageClassParameters, { numberOfReplicas: '1', staleReplicaTimeout: '30', migratable: 'true', diskSelector: 'ssd' });
    const err = expectStatusError(() => sim.store.create(sim.kinds.image, { ...raw('o', 'o', { targetStorageClassName: 'harvester-longhorn' }), metadata: { name: 'o', namespace: 'default', annotations: { 'harvesterhci.io/storageClassName': 'one' } } }));
    assert.deepEqual([err.code, err.status.message], [422, `${WEBHOOK}storageClassName should keep the consistency`]);
  });

  it('update rules V29–V35: each immutable field refused with its message and field', () => {
    sim.store.create(sim.kinds.image, raw('i', 'i'));
    const refused = (patch: Record<string, unknown>) => {
      const err = expectStatusError(() => sim.store.patch(sim.kinds.image, 'default', 'i', 'merge', patch));
      const cause = (err.status.details as any).causes[0];
      return [err.code, err.status.message!.replace(WEBHOOK, ''), cause.field];
    };
    assert.deepEqual(refused({ spec: { storageClassParameters: { numberOfReplicas: '1' } } }), [422, 'storageClassParameters of the VM Image cannot be modified', 'spec.storageClassParameters']);
    assert.deepEqual(refused({ metadata: { annotations: { 'harvesterhci.io/storageClassName': 'other' } } }), [422, 'storageClassName cannot be modified', 'metadata.annotations[harvesterhci.io/storageClassName]']);
    assert.deepEqual(refused({ spec: { sourceType: 'upload' } }), [422, 'sourceType cannot be modified', 'spec.sourceType']);
    assert.deepEqual(refused({ spec: { url: 'https://example.com/y.img' } }), [422, 'url cannot be modified', 'spec.url']);
    assert.deepEqual(refused({ spec: { securityParameters: { cryptoOperation: 'encrypt', sourceImageName: 'a', sourceImageNamespace: 'b' } } }), [422, 'securityParameters cannot be modified', 'spec.securityParameters']);
    assert.deepEqual(refused({ spec: { displayName: 'j' } }), [422, 'displayName cannot be modified', 'spec.displayName']);
    sim.store.patch(sim.kinds.image, 'default', 'i', 'merge', { spec: { description: 'in place', retry: 5 }, metadata: { labels: { team: 'a' } } });
  });

  it('delete: allowed before the image is initialized (V36); refused while a volume of its storage class exists, naming it (V38)', async () => {
    // Not initialized yet: the controller has not run since the create.
    sim.store.create(sim.kinds.image, raw('fresh', 'fresh'));
    sim.store.delete(sim.kinds.image, 'default', 'fresh', {});
    sim.store.create(sim.kinds.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } });
    sim.store.create(sim.kinds.pvc, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'vm-0-disk-0', namespace: 'other' },
      spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage: '10Gi' } }, storageClassName: 'longhorn-opensuse-leap-15.6' },
    });
    const err = expectStatusError(() => sim.store.delete(sim.kinds.image, 'default', 'opensuse-leap-15.6', {}));
    const message = 'Cannot delete image default/openSUSE-Leap-15.6.x86_64-NoCloud.qcow2: being used by volume other/vm-0-disk-0';
    assert.deepEqual([err.code, err.status.reason, err.status.message, err.status.details], [422, 'Invalid', `${WEBHOOK}${message}`, { causes: [{ reason: 'FieldValueInvalid', message }] }]);
  });

  it('Go url.Parse: lenient where Go is (a relative reference parses), strict where Go is', () => {
    assert.equal(goUrlParseError('not a url'), undefined);
    assert.equal(goUrlParseError('https://example.com/a%20b.img?x=%zz'), undefined, 'the query is not decoded by Parse');
    assert.equal(goUrlParseError(':foo'), 'parse ":foo": missing protocol scheme');
    assert.equal(goUrlParseError('a:b/c'), undefined, 'a scheme "a"');
    assert.equal(goUrlParseError('1a:b'), 'parse "1a:b": first path segment in URL cannot contain colon');
    assert.equal(goUrlParseError('http://h/\x01'), 'parse "http://h/\\x01": net/url: invalid control character in URL');
    assert.equal(goUrlParseError('http://a{b/x'), 'parse "http://a{b/x": invalid character "{" in host name');
  });
});
