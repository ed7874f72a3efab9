/**
 * HarvesterImage through Pulumi's real dynamic-provider host, as the engine drives it, with a machine pool built
 * from it: check → create (the download's percent printed on the host's stdout) → the pool takes the image's id
 * as disks[0].image → deleting the image while the pool's VM uses it is refused, naming the VM → the pool, then
 * the image, deleted, nothing left. A download Harvester gives up on is ErrorResourceInitFailed with its message.
 */
import assert from 'node:assert/strict';
import { DynamicHostError } from '../../runner/dynamic-host';
import { startEngineHarness, type EngineHarness } from './engine-support';

describe('engine contract: an image and a machine pool made from it, through the real dynamic-provider host', function () {
  this.timeout(120_000);
  let h: EngineHarness;
  const lines: string[] = [];
  before(async () => {
    h = await startEngineHarness({ onHostLine: (l) => lines.push(l), emulator: { harvester: { delays: { vmiSchedule: 10, vmiBoot: 30, guestAgent: 30, imageImport: 400, imageRetry: 1000 } } } });
  });
  after(async () => h?.stop());

  it('creates the image with progress lines, the pool from its id; refuses deleting the image in use, naming the VM; destroys both', async () => {
    const imageText = await h.providerText('image');
    const imageUrn = h.urn('HarvesterImage', 'engine-image');
    const checked = await h.host.check(imageUrn, {}, { __provider: imageText, name: 'engine-image', url: 'https://images.example.com/engine.qcow2', timeouts: { create: '30s', update: '30s', delete: '30s' } });
    assert.deepEqual(checked.failures, []);
    const image = await h.host.create(imageUrn, checked.inputs);
    assert.equal(image.id, 'default/engine-image');
    assert.equal(image.properties.progress, 100);
    assert.match(String(image.properties.storageClassName), /^lh-/);
    assert.ok(lines.some((l) => /^HarvesterImage default\/engine-image: VirtualMachineImage default\/engine-image: downloading \d+%$/.test(l)), lines.join('\n'));
    assert.equal((await h.host.diff(imageUrn, image.id, (await h.host.read(imageUrn, image.id, image.properties)).properties, checked.inputs)).changes, 'none');

    const poolText = await h.providerText('machinePool');
    const poolUrn = h.urn('HarvesterMachinePool', 'engine-pool');
    const pool = await h.host.check(poolUrn, {}, h.poolInputs('engine-pool', poolText, { disks: [{ image: image.id, size: '10Gi' }] }));
    assert.deepEqual(pool.failures, [], 'the pool takes the image id as disks[0].image');
    const made = await h.host.create(poolUrn, pool.inputs);
    assert.equal(made.properties.readyCount, 1);

    const refused = await h.host.delete(imageUrn, image.id, image.properties).then(() => undefined, (e: unknown) => e);
    assert.ok(refused instanceof DynamicHostError);
    assert.match(refused.message, /VirtualMachineImage default\/engine-image cannot be deleted: VM\(s\) default\/engine-pool-0 use volume\(s\) default\/engine-pool-0-disk-0-\w+ made from it/);
    assert.ok(await h.client.images.get('engine-image', 'default'), 'the image in use is still there');

    await h.host.delete(poolUrn, made.id, made.properties);
    await h.host.delete(imageUrn, image.id, image.properties);
    assert.equal(await h.client.images.get('engine-image', 'default'), undefined);
  });

  it('a download Harvester gives up on is ErrorResourceInitFailed with Harvester\'s message; destroy removes it', async () => {
    const text = await h.providerText('image');
    const urn = h.urn('HarvesterImage', 'engine-broken');
    const checked = await h.host.check(urn, {}, { __provider: text, name: 'engine-broken', url: 'https://example.com/http-404/broken.img', retry: 0, timeouts: { create: '30s', update: '30s', delete: '30s' } });
    const err = await h.host.create(urn, checked.inputs).then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof DynamicHostError && err.initFailure, String(err));
    assert.match(err.message, /failed due to error: got 404 status code from https:\/\/example.com\/http-404\/broken.img/);
    assert.equal(err.initFailure.properties.__provider, text);
    await h.host.delete(urn, err.initFailure.id, err.initFailure.properties);
    assert.equal(await h.client.images.get('engine-broken', 'default'), undefined);
  });
});
