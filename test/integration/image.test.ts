/**
 * HarvesterImage's handlers on the emulator, each path a user meets: create waiting on the download with percent
 * progress lines and outputs a machine pool takes; a failed download failing with Harvester's own message,
 * recorded as a partial failure that destroy removes; the next up after such a failure starting a new download;
 * adopting our own half-made image (no duplicate) and refusing someone else's; import by id; drift per property
 * and its heal; delete refused while volumes made from the image exist, naming the VMs, waiting for volumes
 * already being deleted, then waiting until gone.
 */
import assert from 'node:assert/strict';
import { waitFor } from '../../provider/await';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { ResourceInitError } from '../../provider/core/errors';
import { createImageProvider } from '../../provider/resources/image/handlers';
import { desiredImage } from '../../provider/resources/image/plan';
import { validateInputs } from '../../provider/resources/image/validate';
import { createMachinePoolProvider } from '../../provider/resources/machine-pool/handlers';
import { until } from '../engine/engine-support';
import { startTestEmulator, type TestEmulator } from '../support/emulator-harness';
import { fastConnect } from '../support/fast-connect';
import { acceptanceMode } from '../support/target';

type Raw = Record<string, unknown>;

describe('HarvesterImage handlers: download, failure, adoption, import, drift and delete', function () {
  this.timeout(60_000);
  let t: TestEmulator;
  let client: HarvesterClient;
  const lines: string[] = [];
  const images = createImageProvider({ connect: fastConnect(), onProgress: (line, object) => lines.push(`${object}: ${line}`) });
  const args = (name: string, extra: Raw = {}): Raw => ({ kubeconfig: t.emulator.kubeconfig, name, url: `https://images.example.com/${name}.img`, timeouts: { create: '20s', update: '20s', delete: '20s' }, ...extra });
  const inputsOf = (raw: Raw) => validateInputs(raw).inputs!;

  before(async function () {
    if (acceptanceMode()) this.skip();
    t = await startTestEmulator({ harvester: { delays: { imageImport: 200, imageRetry: 1000 } } });
    client = await HarvesterClient.connect({ kubeconfig: t.emulator.kubeconfig });
  });
  after(async () => t?.stop());

  it('create waits until imported, printing the download\'s percent; its id is what a machine pool\'s disk takes', async () => {
    lines.length = 0;
    const { id, outs } = await images.create(inputsOf(args('jammy', { osType: 'ubuntu' })));
    assert.equal(id, 'default/jammy');
    const live = (await client.images.get('jammy', 'default'))!;
    assert.equal(outs!.storageClassName, `lh-${live.metadata.uid}`);
    assert.equal(outs!.progress, 100);
    assert.ok(outs!.size > 0 && outs!.virtualSize >= outs!.size);
    assert.deepEqual(outs!.conditions.find((c) => c.type === 'Imported'), { type: 'Imported', status: 'True', reason: 'Imported' });
    assert.ok(lines.some((l) => /^default\/jammy: VirtualMachineImage default\/jammy: downloading (25|50|75|99)%$/.test(l)), lines.join('\n'));
    assert.match(lines.at(-1)!, /imported \(10\.0 GiB virtual size\)$/);
    const pools = createMachinePoolProvider({ connect: fastConnect() });
    const r = await pools.check({}, { kubeconfig: t.emulator.kubeconfig, name: 'uses-jammy', disks: [{ image: id, size: '10Gi' }], networks: [{ network: 'default/vm-net' }] });
    assert.deepEqual(r.failures ?? [], [], 'a machine pool takes the image id as disks[].image');
    await images.delete(id, outs as unknown as Raw);
    assert.equal(await client.images.get('jammy', 'default'), undefined);
  });

  it('a download Harvester gives up on fails with Harvester\'s message, recorded as a partial failure; destroy removes it', async () => {
    const url = 'https://images.example.invalid/gone.img';
    const err = await images.create(inputsOf(args('gone', { url, retry: 0 }))).then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof ResourceInitError, String(err));
    assert.equal(err.id, 'default/gone');
    assert.match(err.message, new RegExp(`Harvester could not import VirtualMachineImage default/gone: failed due to error: Head "${url}": dial tcp: lookup images.example.invalid: no such host\\. Check that the url`));
    assert.match((err.properties.drift as string[])[0], /the last create of VirtualMachineImage default\/gone did not finish/);
    await images.delete(err.id, err.properties);
    assert.equal(await client.images.get('gone', 'default'), undefined);
  });

  it('the next up after Harvester gave up starts a new download (a new image of the same name)', async () => {
    const failed = await client.images.create(desiredImage(inputsOf(args('retry-me', { url: 'https://example.com/fail-at-25/x.img', retry: 0 }))));
    const inputs = inputsOf(args('retry-me', { url: 'https://example.com/fail-at-25/x.img', retry: 0 }));
    const gaveUp = (i: typeof failed | undefined) => i?.status?.conditions?.some((c) => c.type === 'RetryLimitExceeded' && c.status === 'True') ?? false;
    await waitFor({ resource: client.images, namespace: 'default', name: 'retry-me', timeoutMs: 10_000, what: 'Harvester to give up', check: ([i]) => ({ done: gaveUp(i), description: 'importing' }) });
    await assert.rejects(images.update('default/retry-me', {}, inputs), /unexpected EOF/);
    const again = (await client.images.get('retry-me', 'default'))!;
    assert.notEqual(again.metadata.uid, failed.metadata.uid, 'the failed image was replaced by a new download');
    await images.delete('default/retry-me', inputs);
  });

  it('create adopts our own half-made image (no duplicate) and refuses someone else\'s, leaving it as it was', async () => {
    const half = await client.images.create(desiredImage(inputsOf(args('half'))));
    const { outs } = await images.create(inputsOf(args('half', { description: 'now' })));
    const live = (await client.images.get('half', 'default'))!;
    assert.equal(live.metadata.uid, half.metadata.uid);
    assert.equal(live.spec?.description, 'now');
    assert.equal((await client.images.list({ namespace: 'default', labelSelector: 'harvester-iac.io/resource-name=half' })).items.length, 1);
    await images.delete('default/half', outs as unknown as Raw);
    await client.images.create({ apiVersion: 'harvesterhci.io/v1beta1', kind: 'VirtualMachineImage', metadata: { name: 'theirs', namespace: 'default' }, spec: { displayName: 'theirs', sourceType: 'download', url: 'https://example.com/t.img' } });
    await assert.rejects(images.create(inputsOf(args('theirs'))), /Refusing to create VirtualMachineImage default\/theirs: it is not managed by harvester-iac/);
    await images.delete('default/theirs', inputsOf(args('theirs')) as unknown as Raw);
    assert.ok(await client.images.get('theirs', 'default'), 'never deleted what is not ours');
    await client.images.delete('theirs', { namespace: 'default' });
  });

  it('import by id reads inputs the same program plans nothing against; an edit shows as drift on its property; update heals it', async () => {
    const inputs = inputsOf(args('edited', { labels: { team: 'a' }, storageClass: 'harvester-longhorn' }));
    const { outs } = await images.create(inputs);
    const connection = { kubeconfig: t.emulator.kubeconfig };
    const imported = await images.read('default/edited', connection);
    // Harvester's default class, named or not, reads back as not named; naming it then changes nothing.
    assert.deepEqual(imported.inputs, { ...connection, name: 'edited', namespace: 'default', url: inputs.url, imageType: 'raw_qcow2', labels: { team: 'a' }, retry: 3 });
    assert.equal((await images.diff('default/edited', imported.props as Raw, inputs)).changes, false);
    assert.deepEqual(await images.diff('default/edited', imported.props as Raw, { ...inputs, storageClass: 'other' }), { changes: true, replaces: ['storageClass'], deleteBeforeReplace: true });
    const plain = inputsOf(args('plain'));
    await images.create(plain);
    assert.equal((await images.read('default/plain', connection)).inputs!.storageClass, undefined, 'the default storage class Harvester filled in is not an input');
    await client.images.mergePatch('edited', { metadata: { labels: { team: 'b' } }, spec: { description: 'by hand' } }, { namespace: 'default' });
    const drifted = await images.read('default/edited', outs as unknown as Raw);
    assert.deepEqual(drifted.props!.drift, [
      'VirtualMachineImage default/edited: description is "by hand", this resource set unset',
      'VirtualMachineImage default/edited: labels is {"team":"b"}, this resource set {"team":"a"}',
    ]);
    assert.equal((await images.diff('default/edited', drifted.props as Raw, inputs)).changes, true);
    const healed = await images.update('default/edited', drifted.props as Raw, inputs);
    assert.deepEqual((await images.read('default/edited', healed.outs as unknown as Raw)).props!.drift, []);
    await images.delete('default/edited', healed.outs as unknown as Raw);
    await images.delete('default/plain', plain as unknown as Raw);
  });

  it('delete is refused while volumes made from the image exist, naming the VMs; once they are gone it waits until the image and its storage are', async () => {
    const { outs } = await images.create(inputsOf(args('used')));
    const sc = outs!.storageClassName;
    await client.persistentVolumeClaims.create({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'vm-a-disk-0', namespace: 'default' }, spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage: '10Gi' } }, storageClassName: sc } } as never);
    await client.virtualMachines.create({
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachine',
      metadata: { name: 'vm-a', namespace: 'default' },
      spec: { runStrategy: 'Halted', template: { spec: { domain: { devices: { disks: [{ name: 'disk-0', disk: { bus: 'virtio' } }] }, resources: { requests: { memory: '1Gi' } } }, volumes: [{ name: 'disk-0', persistentVolumeClaim: { claimName: 'vm-a-disk-0' } }] } } },
    } as never);
    await assert.rejects(images.delete('default/used', outs as unknown as Raw), (e: Error) => {
      assert.equal(e.message, `VirtualMachineImage default/used cannot be deleted: VM(s) default/vm-a use volume(s) default/vm-a-disk-0 made from it (Harvester refuses deleting an image while a volume of its storage class ${sc} exists). Delete those VMs and their volumes first (a HarvesterMachinePool using the image: destroy or change it first), then delete the image.`);
      return true;
    });
    assert.ok(await client.images.get('used', 'default'));
    await client.virtualMachines.delete('vm-a', { namespace: 'default' });
    await client.persistentVolumeClaims.delete('vm-a-disk-0', { namespace: 'default' });
    await images.delete('default/used', outs as unknown as Raw);
    assert.equal(await client.images.get('used', 'default'), undefined);
    assert.equal(await client.resource({ group: 'storage.k8s.io', version: 'v1', kind: 'StorageClass', plural: 'storageclasses', namespaced: false, statusSubresource: false }).get(sc), undefined, 'Harvester removed the image\'s storage class');
    await images.delete('default/used', outs as unknown as Raw);
  });

  it('delete waits for volumes made from the image that are already being deleted (a pool destroyed just before), then deletes it', async () => {
    const { outs } = await images.create(inputsOf(args('going')));
    await client.persistentVolumeClaims.create({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'going-disk', namespace: 'default', finalizers: ['example.com/hold'] }, spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage: '10Gi' } }, storageClassName: outs!.storageClassName } } as never);
    await client.persistentVolumeClaims.delete('going-disk', { namespace: 'default' });
    lines.length = 0;
    const deleting = images.delete('default/going', outs as unknown as Raw);
    await until(async () => lines.some((l) => l.includes('1 volume(s) made from it still being deleted')));
    assert.ok(await client.images.get('going', 'default'), 'the image waits for the volume');
    await client.persistentVolumeClaims.mergePatch('going-disk', { metadata: { finalizers: null } }, { namespace: 'default' });
    await deleting;
    assert.equal(await client.images.get('going', 'default'), undefined);
  });
});
