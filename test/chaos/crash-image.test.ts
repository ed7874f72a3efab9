/**
 * Crashes during an image import: Pulumi's real dynamic-provider host killed (SIGKILL) while the image downloads,
 * then the next run (a new host, from what the engine recorded: nothing, the create never returned) adopts the
 * half-made image — ours by its ownership labels and name — instead of making a second one, and waits for the
 * same download to finish. An image of that name someone else made is never adopted: check refuses it.
 */
import assert from 'node:assert/strict';
import { startEngineHarness, until, type EngineHarness } from '../engine/engine-support';

describe('chaos: the provider process killed mid-import, then the next run', function () {
  this.timeout(120_000);
  let h: EngineHarness;
  let text: string;
  const urn = (name: string) => h.urn('HarvesterImage', name);
  const inputs = (name: string) => ({ __provider: text, name, url: `https://images.example.com/${name}.qcow2`, timeouts: { create: '60s', update: '60s', delete: '60s' } });
  const ours = async (name: string) => (await h.client.images.list({ namespace: 'default', labelSelector: `harvester-iac.io/resource-name=${name}` })).items;

  before(async () => {
    h = await startEngineHarness();
    text = await h.providerText('image');
    // A slow download, so the host surely dies in the middle of it.
    h.t.emulator.harvester!.setDelays({ imageImport: 3000 });
  });
  after(async () => h?.stop());

  it('mid-import: the next run adopts the half-made image (same object, no duplicate) and waits for its download', async () => {
    const host = await h.newHost();
    const checked = await host.check(urn('crash-image'), {}, inputs('crash-image'));
    const pending = host.create(urn('crash-image'), checked.inputs).catch((e: Error) => e);
    await until(async () => {
      const [image] = await ours('crash-image');
      return Number(image?.status?.progress ?? 0) > 0;
    });
    host.kill();
    assert.ok((await pending) instanceof Error, 'the interrupted create failed');
    const [half] = await ours('crash-image');
    assert.ok(half && half.status?.conditions?.find((c) => c.type === 'Imported')?.status !== 'True', 'the image was left half-imported');

    const next = await h.newHost();
    const again = await next.check(urn('crash-image'), {}, inputs('crash-image'));
    assert.deepEqual(again.failures, [], 'what the crash left is ours: no name conflict');
    const made = await next.create(urn('crash-image'), again.inputs);
    assert.equal(made.properties.progress, 100);
    const after = await ours('crash-image');
    assert.deepEqual(after.map((i) => i.metadata.uid), [half.metadata.uid], 'the same image, adopted, not a second one');
    await next.delete(urn('crash-image'), made.id, made.properties);
    assert.deepEqual(await ours('crash-image'), []);
  });

  it('an image of that name someone else made is never adopted: check refuses it, create leaves it as it was', async () => {
    await h.client.images.create({ apiVersion: 'harvesterhci.io/v1beta1', kind: 'VirtualMachineImage', metadata: { name: 'not-ours', namespace: 'default' }, spec: { displayName: 'not-ours', sourceType: 'download', url: 'https://example.com/theirs.img' } });
    const r = await h.host.check(urn('not-ours'), {}, inputs('not-ours'));
    assert.deepEqual(r.failures.map((f) => f.property), ['name']);
    const err = await h.host.create(urn('not-ours'), { ...inputs('not-ours'), namespace: 'default', imageType: 'raw_qcow2', labels: {}, retry: 3 }).then(() => undefined, (e: unknown) => e);
    assert.match(String(err), /Refusing to create VirtualMachineImage default\/not-ours: it is not managed by harvester-iac/);
    assert.equal((await h.client.images.get('not-ours', 'default'))?.spec?.url, 'https://example.com/theirs.img');
    await h.client.images.delete('not-ours', { namespace: 'default' });
  });
});
