/**
 * The provider's check against upstream's image admission rules: the table the emulator's webhooks run too
 * (test/support/image-rules.ts), with the same outcome — refused on the field with no write, or accepted (and
 * then created by the emulator's webhooks as the table's emulator test shows). The update rules Harvester enforces
 * (V29–V35) are replacements in the provider's diff; the delete rule (V38) is tested with the handlers.
 */
import assert from 'node:assert/strict';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { createImageProvider } from '../../provider/resources/image/handlers';
import { validateInputs } from '../../provider/resources/image/validate';
import { IMAGE_RULE_CASES } from '../support/image-rules';
import { startTestEmulator, type TestEmulator } from '../support/emulator-harness';
import { fastConnect } from '../support/fast-connect';
import { acceptanceMode } from '../support/target';

const WRITES = ['create', 'update', 'patch', 'delete', 'deletecollection'];

describe('HarvesterImage check: upstream\'s image admission rules, as the emulator applies them', function () {
  this.timeout(60_000);
  let t: TestEmulator;
  let client: HarvesterClient;
  const images = createImageProvider({ connect: fastConnect() });

  before(async function () {
    if (acceptanceMode()) this.skip();
    t = await startTestEmulator();
    client = await HarvesterClient.connect({ kubeconfig: t.emulator.kubeconfig });
  });
  after(async () => t?.stop());

  for (const c of IMAGE_RULE_CASES) {
    it(`${c.refused ? 'refuses' : 'accepts'} ${c.label} (${c.upstream})`, async () => {
      for (const e of c.existing?.images ?? []) {
        await client.images.create({ apiVersion: 'harvesterhci.io/v1beta1', kind: 'VirtualMachineImage', metadata: { name: e.name, namespace: 'default' }, spec: { displayName: e.displayName, sourceType: 'download', url: 'https://example.com/x.img' } });
      }
      try {
        const mark = t.emulator.journal.mark();
        const r = await images.check({}, { kubeconfig: t.emulator.kubeconfig, name: 'img', ...c.args });
        const writes = t.emulator.journal.entries({ since: mark }).filter((e) => WRITES.includes(e.verb ?? ''));
        assert.deepEqual(writes, [], 'check wrote to the cluster');
        if (c.refused) assert.deepEqual((r.failures ?? []).map((f) => f.property), [c.refused.property], JSON.stringify(r.failures));
        else assert.deepEqual(r.failures ?? [], []);
        for (const f of r.failures ?? []) assert.ok(!f.reason.startsWith(`${f.property}:`), `the reason repeats its property: ${f.reason}`);
        for (const f of r.failures ?? []) assert.match(f.reason, c.refused!.check);
      } finally {
        for (const e of c.existing?.images ?? []) await client.images.delete(e.name, { namespace: 'default' });
      }
    });
  }

  it('the update rules (V29–V35) are replacements: diff replaces on displayName, url, checksum and storageClass, deleting the old image first', async () => {
    const base = validateInputs({ name: 'img', url: 'https://example.com/a.img' }).inputs!;
    const olds = { ...base, drift: [] } as unknown as Record<string, unknown>;
    for (const [key, value] of [['displayName', 'other'], ['url', 'https://example.com/b.img'], ['checksum', 'b'.repeat(128)], ['storageClass', 'harvester-longhorn']] as const) {
      const news = validateInputs({ name: 'img', url: 'https://example.com/a.img', [key]: value }).inputs!;
      assert.deepEqual(await images.diff('default/img', olds, news as never), { changes: true, replaces: [key], deleteBeforeReplace: true }, key);
    }
    const inPlace = validateInputs({ name: 'img', url: 'https://example.com/a.img', description: 'd', labels: { team: 'a' }, imageType: 'iso', osType: 'ubuntu', retry: 5 }).inputs!;
    assert.deepEqual(await images.diff('default/img', olds, inPlace as never), { changes: true, replaces: [], deleteBeforeReplace: false });
  });

  it('refuses at preview what Harvester could never download, naming url; reserved label keys, naming the label', async () => {
    const r = await images.check({}, { kubeconfig: t.emulator.kubeconfig, name: 'img', url: 'ftp://example.com/x.img', labels: { 'harvesterhci.io/image-type': 'iso', 'bad key': 'v' } });
    assert.deepEqual(Object.fromEntries((r.failures ?? []).map((f) => [f.property, f.reason])), {
      url: 'uses ftp: Harvester downloads over http or https only',
      'labels["harvesterhci.io/image-type"]': 'harvesterhci.io/image-type is set by Harvester or by harvester-iac: use imageType / osType, or another key',
      'labels["bad key"]': '"bad key" is not a label key: at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit',
    });
  });
});
