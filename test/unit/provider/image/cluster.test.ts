/**
 * What HarvesterImage reads from the cluster, on a fake client holding exactly the objects each case needs: the
 * rules check runs against other objects (namespace, display name, storage class), the volumes and VMs that block a
 * delete (Harvester's rule V38), and how observe tells Harvester's default StorageClass from a chosen one.
 */
import assert from 'node:assert/strict';
import { ForbiddenError } from '../../../../provider/client/errors';
import type { HarvesterClient } from '../../../../provider/client/harvester-client';
import type { KubeObject, VirtualMachineImage } from '../../../../provider/client/objects';
import type { ResourceContext } from '../../../../provider/core/reconciler/resource';
import { clusterFailures, imageUsers, storageClasses, volumesOf } from '../../../../provider/resources/image/cluster';
import { imageResource } from '../../../../provider/resources/image/handlers';
import { desiredImage } from '../../../../provider/resources/image/plan';
import { validateInputs } from '../../../../provider/resources/image/validate';

const inputs = (extra: Record<string, unknown> = {}) => validateInputs({ name: 'img', url: 'https://example.com/x.img', ...extra }).inputs!;
const obj = (name: string, extra: Partial<KubeObject> = {}, namespace?: string): KubeObject => ({ apiVersion: 'v1', kind: 'X', metadata: { name, ...(namespace ? { namespace } : {}) }, ...extra });
const storageClass = (name: string, extra: Record<string, unknown> = {}, isDefault = false) =>
  ({ ...obj(name, isDefault ? { metadata: { name, annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } } : {}), provisioner: 'driver.longhorn.io', ...extra }) as KubeObject;
const pvc = (namespace: string, name: string, storageClassName: string, going = false): KubeObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, namespace, ...(going ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
  spec: { storageClassName },
});
const vm = (namespace: string, name: string, claims: string[], templates?: string): KubeObject => ({
  apiVersion: 'kubevirt.io/v1',
  kind: 'VirtualMachine',
  metadata: { name, namespace, ...(templates !== undefined ? { annotations: { 'harvesterhci.io/volumeClaimTemplates': templates } } : {}) },
  spec: { template: { spec: { volumes: claims.map((claimName, i) => ({ name: `disk-${i}`, persistentVolumeClaim: { claimName } })) } } },
});
const list = (items: KubeObject[]) => async () => ({ items });
const forbidden = async (): Promise<never> => {
  throw new ForbiddenError({ code: 'Forbidden', summary: 'storageclasses is forbidden', httpStatus: 403 });
};

/** A client whose reads return these objects; what a case does not give is not there to call. */
function fakeClient(o: { namespaces?: string[]; classes?: KubeObject[] | 'forbidden'; images?: KubeObject[]; pvcs?: KubeObject[]; vms?: KubeObject[]; image?: VirtualMachineImage }): HarvesterClient {
  return {
    namespaces: { get: async (name: string) => ((o.namespaces ?? ['default']).includes(name) ? obj(name) : undefined) },
    resource: () => ({ list: o.classes === 'forbidden' ? forbidden : list(o.classes ?? []) }),
    images: { list: list(o.images ?? []), get: async () => o.image },
    persistentVolumeClaims: { list: list(o.pvcs ?? []) },
    ...(o.vms ? { virtualMachines: { list: list(o.vms) } } : {}),
  } as unknown as HarvesterClient;
}
const image = (storageClassName?: string): VirtualMachineImage => ({ ...desiredImage(inputs()), ...(storageClassName ? { status: { storageClassName } } : {}) });
const HARVESTER_LONGHORN = storageClass('harvester-longhorn', {}, true);

describe('HarvesterImage cluster reads', () => {
  it('the default StorageClass is the one annotated as default, wherever it is listed', async () => {
    assert.deepEqual((await storageClasses(fakeClient({ classes: [storageClass('fast'), HARVESTER_LONGHORN] })))?.defaultName, 'harvester-longhorn');
    assert.equal((await storageClasses(fakeClient({ classes: [storageClass('fast')] })))?.defaultName, undefined);
  });

  it('check: a namespace that does not exist, named with the fix', async () => {
    const failures = await clusterFailures(fakeClient({ classes: [HARVESTER_LONGHORN] }), inputs({ namespace: 'nope' }));
    assert.deepEqual(failures, [{ property: 'namespace', reason: 'namespace nope does not exist: create it, or choose an existing one' }]);
  });

  it('check: the image\'s own display name (a re-run, an update) is not taken; another image\'s is', async () => {
    assert.deepEqual(await clusterFailures(fakeClient({ classes: [HARVESTER_LONGHORN], images: [obj('img')] }), inputs()), []);
    const taken = await clusterFailures(fakeClient({ classes: [HARVESTER_LONGHORN], images: [obj('img'), obj('other')] }), inputs());
    assert.deepEqual(taken.map((f) => [f.property, f.reason.split(' (')[0]]), [['displayName', '"img" is already the display name of VirtualMachineImage default/other']]);
  });

  it('check: a StorageClass of the user\'s own is taken; one that is an image\'s is refused', async () => {
    const classes = [HARVESTER_LONGHORN, storageClass('fast', { parameters: { numberOfReplicas: '2' } }), storageClass('lh-1', { parameters: { backingImage: 'default-img-abc' } })];
    assert.deepEqual(await clusterFailures(fakeClient({ classes }), inputs({ storageClass: 'fast' })), []);
    assert.deepEqual((await clusterFailures(fakeClient({ classes }), inputs({ storageClass: 'lh-1' }))).map((f) => f.property), ['storageClass']);
    // Harvester's mutator looks for backingImage only on Longhorn's classes: another driver's parameter is its own.
    const other = storageClass('other', { provisioner: 'other.csi.example.com', parameters: { backingImage: 'x' } });
    assert.deepEqual(await clusterFailures(fakeClient({ classes: [...classes, other] }), inputs({ storageClass: 'other' })), []);
  });

  it('check: no default StorageClass and none named is refused, naming the way out', async () => {
    assert.deepEqual(await clusterFailures(fakeClient({ classes: [storageClass('fast')] }), inputs()), [
      {
        property: 'storageClass',
        reason: 'the cluster has no default StorageClass (Harvester refuses the image: "no default storageClass found for backingImage"): name a Longhorn StorageClass here',
      },
    ]);
    assert.deepEqual(await clusterFailures(fakeClient({ classes: [storageClass('fast')] }), inputs({ storageClass: 'fast' })), []);
  });

  it('the volumes made from an image are the PVCs of its StorageClass only', () => {
    const pvcs = [pvc('default', 'a', 'lh-1'), pvc('default', 'b', 'harvester-longhorn'), obj('no-spec')];
    assert.deepEqual(volumesOf(pvcs, 'lh-1').map((p) => p.metadata.name), ['a']);
  });

  it('an image Harvester never initialized has no volumes (its delete goes ahead)', async () => {
    assert.deepEqual(await imageUsers(fakeClient({ pvcs: [pvc('default', 'a', 'harvester-longhorn')] }), image()), { volumes: [], vms: [], going: 0 });
  });

  it('volumes all being deleted: none stays, the delete waits for them (no VM to name)', async () => {
    const pvcs = [pvc('default', 'a', 'lh-1', true), pvc('ns2', 'b', 'lh-1', true), pvc('default', 'c', 'harvester-longhorn')];
    assert.deepEqual(await imageUsers(fakeClient({ pvcs }), image('lh-1')), { volumes: [], vms: [], going: 2 });
  });

  it('the volumes that stay, and the VMs that mount one of them (by a volume or a claim template), sorted', async () => {
    const pvcs = [pvc('ns2', 'z-disk', 'lh-1'), pvc('default', 'b-disk', 'lh-1'), pvc('default', 'gone-disk', 'lh-1', true), pvc('default', 'other', 'harvester-longhorn')];
    const vms = [
      vm('ns2', 'z', ['z-disk']),
      vm('default', 'b', ['b-root', 'b-disk']), // one of its two volumes is made from the image
      vm('default', 'a', [], JSON.stringify([{ metadata: { name: 'b-disk' } }, {}])), // only its claim template names it
      vm('default', 'c', ['other'], 'not json'),
      vm('ns2', 'd', ['b-disk']), // same claim name, another namespace
    ];
    assert.deepEqual(await imageUsers(fakeClient({ pvcs, vms }), image('lh-1')), { volumes: ['default/b-disk', 'ns2/z-disk'], vms: ['default/a', 'default/b', 'ns2/z'], going: 1 });
  });

  it('a VM annotation that is not JSON still counts its volumes', async () => {
    const users = await imageUsers(fakeClient({ pvcs: [pvc('default', 'a-disk', 'lh-1')], vms: [vm('default', 'a', ['a-disk'], '{')] }), image('lh-1'));
    assert.deepEqual(users.vms, ['default/a']);
  });
});

describe('HarvesterImage observe: Harvester\'s default StorageClass or a chosen one', () => {
  const ctx = (client: HarvesterClient) => ({ client }) as unknown as ResourceContext;
  const annotated = (sc: string): VirtualMachineImage => {
    const written = desiredImage(inputs());
    return { ...written, metadata: { ...written.metadata, annotations: { 'harvesterhci.io/storageClassName': sc } } };
  };
  const read = async (client: HarvesterClient, recorded: Record<string, unknown> = {}) => {
    const observed = (await imageResource.observe(ctx(client), { namespace: 'default', name: 'img' }, recorded))!;
    return imageResource.liveInputs(observed, recorded).storageClass;
  };

  it('the default (annotated by Harvester\'s mutator) is not an input; another class is', async () => {
    assert.equal(await read(fakeClient({ classes: [HARVESTER_LONGHORN], image: annotated('harvester-longhorn') })), undefined);
    assert.equal(await read(fakeClient({ classes: [HARVESTER_LONGHORN], image: annotated('fast') })), 'fast');
  });

  it('credentials that may not list StorageClasses: the annotation is taken for the default unless the inputs named it', async () => {
    assert.equal(await read(fakeClient({ classes: 'forbidden', image: annotated('harvester-longhorn') })), undefined);
    assert.equal(await read(fakeClient({ classes: 'forbidden', image: annotated('harvester-longhorn') }), { storageClass: 'harvester-longhorn' }), 'harvester-longhorn');
  });

  it('an image\'s object is in the namespace its inputs name, "default" when they name none', () => {
    assert.deepEqual(imageResource.ref({ name: 'img' }), { namespace: 'default', name: 'img' });
    assert.deepEqual(imageResource.ref({ name: 'img', namespace: 'team-a' }), { namespace: 'team-a', name: 'img' });
  });
});
