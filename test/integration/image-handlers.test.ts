/**
 * HarvesterImage's handlers on the emulator, the paths image.test.ts leaves out: an image of ours written with
 * other immutable inputs is made anew (Harvester refuses patching them); an update removes the labels and the OS
 * type the inputs no longer set and keeps the rest; a delete refused while volumes made from the image exist, used
 * by a VM or not (its code, its message, its fix); and the timeouts a user meets, each naming what was awaited and
 * the option to raise — the deadlines run on a manual clock moved only once the provider reports it is waiting, so
 * no outcome depends on speed.
 */
import assert from 'node:assert/strict';
import { ManualClock } from '../../emulator/clock';
import { HarvesterClient } from '../../provider/client/harvester-client';
import type { KindSpec } from '../../provider/client/kinds';
import { ProviderError, ResourceInitError } from '../../provider/core/errors';
import { createImageProvider } from '../../provider/resources/image/handlers';
import { desiredImage } from '../../provider/resources/image/plan';
import { validateInputs } from '../../provider/resources/image/validate';
import { startTestEmulator, type TestEmulator } from '../support/emulator-harness';
import { fastConnect } from '../support/fast-connect';
import { acceptanceMode } from '../support/target';

type Raw = Record<string, unknown>;
const STORAGE_CLASS: KindSpec = { group: 'storage.k8s.io', version: 'v1', kind: 'StorageClass', plural: 'storageclasses', namespaced: false, statusSubresource: false };
const OS_TYPE = 'harvesterhci.io/os-type';

describe('HarvesterImage handlers: remade, patched, refused and timed out', function () {
  this.timeout(60_000);
  let t: TestEmulator;
  let client: HarvesterClient;
  const images = createImageProvider({ connect: fastConnect() });
  const args = (name: string, extra: Raw = {}): Raw => ({ kubeconfig: t.emulator.kubeconfig, name, url: `https://images.example.com/${name}.img`, timeouts: { create: '20s', update: '20s', delete: '20s' }, ...extra });
  const inputsOf = (raw: Raw) => validateInputs(raw).inputs!;
  const volume = (name: string, storageClassName: string, finalizers?: string[]) =>
    client.persistentVolumeClaims.create({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name, namespace: 'default', ...(finalizers ? { finalizers } : {}) },
      spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage: '10Gi' } }, storageClassName },
    } as never);
  /** A provider on a manual clock that moves past `ms` once a progress line matches `waiting`. */
  const onClock = (waiting: RegExp, ms: number) => {
    const clock = new ManualClock(Date.now());
    let moved = false;
    return createImageProvider({
      connect: fastConnect(),
      clock,
      onProgress: (line) => {
        if (!moved && waiting.test(line)) {
          moved = true;
          clock.advance(ms + 1);
        }
      },
    });
  };

  before(async function () {
    if (acceptanceMode()) this.skip();
    t = await startTestEmulator({ harvester: { delays: { imageImport: 200, imageRetry: 1000 } } });
    client = await HarvesterClient.connect({ kubeconfig: t.emulator.kubeconfig });
    await client.resource(STORAGE_CLASS).create({
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'two-replicas' },
      provisioner: 'driver.longhorn.io',
      parameters: { numberOfReplicas: '2', staleReplicaTimeout: '30', migratable: 'true' },
    } as never);
  });
  after(async () => t?.stop());

  it('an image of ours written from another url is deleted and downloaded anew from the url the inputs name', async () => {
    const old = await client.images.create(desiredImage(inputsOf(args('moved', { url: 'https://images.example.com/old.img' }))));
    const { outs } = await images.create(inputsOf(args('moved')));
    const live = (await client.images.get('moved', 'default'))!;
    assert.notEqual(live.metadata.uid, old.metadata.uid, 'a new image');
    assert.equal(live.spec?.url, 'https://images.example.com/moved.img');
    await images.delete('default/moved', outs as unknown as Raw);
  });

  it('an image of ours written with another StorageClass is made anew with the one the inputs name', async () => {
    const old = await client.images.create(desiredImage(inputsOf(args('classed', { storageClass: 'harvester-longhorn' }))));
    const { outs } = await images.create(inputsOf(args('classed', { storageClass: 'two-replicas' })));
    const live = (await client.images.get('classed', 'default'))!;
    assert.notEqual(live.metadata.uid, old.metadata.uid, 'a new image');
    assert.equal(live.metadata.annotations?.['harvesterhci.io/storageClassName'], 'two-replicas');
    assert.equal(outs!.baseStorageClass, 'two-replicas');
    await images.delete('default/classed', outs as unknown as Raw);
  });

  it('an update removes a label the inputs dropped, and keeps the OS type they still set, in place', async () => {
    const { outs } = await images.create(inputsOf(args('relabel', { labels: { team: 'a', tier: 'web' }, osType: 'ubuntu' })));
    const before = (await client.images.get('relabel', 'default'))!;
    const updated = await images.update('default/relabel', outs as unknown as Raw, inputsOf(args('relabel', { labels: { team: 'a' }, osType: 'ubuntu', description: 'jammy' })));
    const live = (await client.images.get('relabel', 'default'))!;
    assert.equal(live.metadata.uid, before.metadata.uid, 'patched in place');
    assert.deepEqual([live.metadata.labels?.team, live.metadata.labels?.tier, live.metadata.labels?.[OS_TYPE], live.spec?.description], ['a', undefined, 'ubuntu', 'jammy']);
    await images.delete('default/relabel', updated.outs as unknown as Raw);
  });

  it('an update removes the OS type the inputs no longer set', async () => {
    const { outs } = await images.create(inputsOf(args('untyped', { osType: 'ubuntu' })));
    const updated = await images.update('default/untyped', outs as unknown as Raw, inputsOf(args('untyped')));
    const live = (await client.images.get('untyped', 'default'))!;
    assert.equal(live.metadata.labels?.[OS_TYPE], undefined);
    assert.equal(live.metadata.labels?.['harvesterhci.io/image-type'], 'raw_qcow2');
    await images.delete('default/untyped', updated.outs as unknown as Raw);
  });

  it('delete is refused while a volume made from the image exists: code ImageInUse, the volume, the VMs using it if any, and the fix', async () => {
    const { outs } = await images.create(inputsOf(args('kept')));
    const sc = outs!.storageClassName;
    await volume('loose-disk', sc);
    const err = await images.delete('default/kept', outs as unknown as Raw).then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof ProviderError, String(err));
    assert.equal(err.code, 'ImageInUse');
    assert.equal(
      err.message,
      `VirtualMachineImage default/kept cannot be deleted: no VM uses them, but they exist: volume(s) default/loose-disk made from it (Harvester refuses deleting an image while a volume of its storage class ${sc} exists). ` +
        'Delete those volumes first (a HarvesterMachinePool using the image: destroy or change it first), then delete the image.',
    );
    assert.ok(await client.images.get('kept', 'default'), 'the image stays');
    // Once a VM mounts it, the refusal names the VM and the fix says to delete it too.
    await client.virtualMachines.create({
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachine',
      metadata: { name: 'vm-k', namespace: 'default' },
      spec: { runStrategy: 'Halted', template: { spec: { domain: { devices: { disks: [{ name: 'disk-0', disk: { bus: 'virtio' } }] }, resources: { requests: { memory: '1Gi' } } }, volumes: [{ name: 'disk-0', persistentVolumeClaim: { claimName: 'loose-disk' } }] } } },
    } as never);
    await assert.rejects(images.delete('default/kept', outs as unknown as Raw), {
      code: 'ImageInUse',
      message:
        `VirtualMachineImage default/kept cannot be deleted: VM(s) default/vm-k use volume(s) default/loose-disk made from it (Harvester refuses deleting an image while a volume of its storage class ${sc} exists). ` +
        'Delete those VMs and their volumes first (a HarvesterMachinePool using the image: destroy or change it first), then delete the image.',
    });
    await client.virtualMachines.delete('vm-k', { namespace: 'default' });
    await client.persistentVolumeClaims.delete('loose-disk', { namespace: 'default' });
    await images.delete('default/kept', outs as unknown as Raw);
  });

  it('delete waiting on volumes already being deleted times out naming them and `timeouts.delete`', async () => {
    const { outs } = await images.create(inputsOf(args('stuck')));
    const sc = outs!.storageClassName;
    await volume('stuck-disk', sc, ['example.com/hold']);
    await client.persistentVolumeClaims.delete('stuck-disk', { namespace: 'default' });
    const slow = onClock(/1 volume\(s\) made from it still being deleted/, 20_000);
    const err = await slow.delete('default/stuck', outs as unknown as Raw).then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof Error, String(err));
    assert.equal(
      err.message,
      'Timed out after 20s waiting for the volumes made from VirtualMachineImage default/stuck to be deleted. ' +
        `Last seen: VirtualMachineImage default/stuck: 1 volume(s) made from it still being deleted. Still pending: 1 volume(s) of StorageClass ${sc}. ` +
        'If it is still progressing, raise `timeouts.delete` (now 20s); otherwise inspect the objects on the cluster (kubectl describe) for the reason it is stuck.',
    );
    assert.ok(await client.images.get('stuck', 'default'), 'the image waits for its volumes');
    await client.persistentVolumeClaims.mergePatch('stuck-disk', { metadata: { finalizers: null } }, { namespace: 'default' });
    await images.delete('default/stuck', outs as unknown as Raw);
  });

  it('a download slower than `timeouts.create` fails naming what it waited for and the option; the image is recorded', async () => {
    const slow = onClock(/VirtualMachineImage default\/slow: (waiting for Harvester|downloading)/, 20_000);
    const err = await slow.create(inputsOf(args('slow'))).then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof ResourceInitError, String(err));
    assert.equal(err.id, 'default/slow');
    assert.match(err.message, /Timed out after 20s waiting for VirtualMachineImage default\/slow to be downloaded and imported\. /);
    assert.match(err.message, /raise `timeouts\.create` \(now 20s\)/);
    await images.delete(err.id, err.properties);
  });
});
