/**
 * HarvesterImage's pure plan, field by field: the VirtualMachineImage written for the inputs, the live image read
 * back as inputs (what an import by id and drift see), the outputs a program reads, the import wait's verdict on
 * each state (the lines a user watches and the error when Harvester gives up), and the diff.
 */
import assert from 'node:assert/strict';
import type { VirtualMachineImage } from '../../../../provider/client/objects';
import { desiredImage, diffInputs, importVerdict, liveInputs, toOutputs } from '../../../../provider/resources/image/plan';
import { validateInputs } from '../../../../provider/resources/image/validate';

const URL = 'https://example.com/x.img';
const SHA = 'a'.repeat(128);
const inputs = (extra: Record<string, unknown> = {}) => validateInputs({ name: 'img', url: URL, ...extra }).inputs!;
const live = (spec: Record<string, unknown>, labels: Record<string, string> = {}, annotations?: Record<string, string>): VirtualMachineImage => ({
  apiVersion: 'harvesterhci.io/v1beta1',
  kind: 'VirtualMachineImage',
  metadata: { name: 'img', namespace: 'default', labels, ...(annotations ? { annotations } : {}) },
  spec,
});
const cond = (type: string, status: string, extra: Record<string, string> = {}) => ({ type, status, ...extra });
const withStatus = (status: Record<string, unknown>): VirtualMachineImage => ({ ...desiredImage(inputs()), status });

describe('HarvesterImage plan: written, read back, reported', () => {
  it('writes the description and checksum only when given', () => {
    assert.deepEqual(desiredImage(inputs()).spec, { displayName: 'img', sourceType: 'download', url: URL, retry: 3 });
    assert.deepEqual(desiredImage(inputs({ description: 'jammy', checksum: SHA })).spec, { displayName: 'img', sourceType: 'download', url: URL, retry: 3, description: 'jammy', checksum: SHA });
  });

  it('reads an image Harvester alone knows (an upload: no url, no labels) as the defaults', () => {
    assert.deepEqual(liveInputs(live({}), {}), { url: '', imageType: 'raw_qcow2', labels: {}, retry: 3 });
  });

  it('reads back each input that was set: display name other than the name, checksum, image and OS type', () => {
    const image = live({ url: URL, displayName: 'Jammy', description: 'd', checksum: SHA, retry: 1 }, { 'harvesterhci.io/image-type': 'iso', 'harvesterhci.io/os-type': 'ubuntu', team: 'a' });
    assert.deepEqual(liveInputs(image, {}), { url: URL, imageType: 'iso', labels: { team: 'a' }, retry: 1, displayName: 'Jammy', description: 'd', checksum: SHA, osType: 'ubuntu' });
    assert.equal(liveInputs(live({ url: URL, displayName: 'img' }), {}).displayName, undefined, 'the display name is the name: left out, as its default');
  });

  it('reads the storage class back when it is not the default, or when the inputs named the default', () => {
    const annotated = (sc: string) => live({ url: URL }, {}, { 'harvesterhci.io/storageClassName': sc });
    assert.equal(liveInputs(annotated('fast'), { defaultStorageClass: 'harvester-longhorn' }).storageClass, 'fast');
    assert.equal(liveInputs(annotated('harvester-longhorn'), { defaultStorageClass: 'harvester-longhorn' }).storageClass, undefined);
    assert.equal(liveInputs(annotated('harvester-longhorn'), { defaultStorageClass: 'harvester-longhorn', recordedStorageClass: 'harvester-longhorn' }).storageClass, 'harvester-longhorn');
  });

  it('outputs: Harvester\'s conditions as it wrote them, empty strings and no drift before Harvester reports', () => {
    const image = { ...live({ url: URL }), status: { conditions: [cond('Initialized', 'True'), cond('Imported', 'False', { reason: 'Importing', message: 'at 50%' })] } };
    const outs = toOutputs(inputs(), image);
    assert.deepEqual(outs.conditions, [{ type: 'Initialized', status: 'True' }, { type: 'Imported', status: 'False', reason: 'Importing', message: 'at 50%' }]);
    assert.deepEqual([outs.baseStorageClass, outs.storageClassName, outs.size, outs.virtualSize, outs.progress, outs.drift], ['', '', 0, 0, 0, []]);
  });

  it('the import wait before the image exists: not found, waiting for it', () => {
    assert.deepEqual(importVerdict('default/img', undefined), { done: false, description: 'VirtualMachineImage default/img: not found', pending: ['the image to exist'] });
  });

  it('the import wait while Harvester downloads: the stage and what is pending', () => {
    assert.deepEqual(importVerdict('default/img', withStatus({})), {
      done: false,
      description: 'VirtualMachineImage default/img: waiting for Harvester to start the download',
      pending: ['the download to start'],
    });
    assert.deepEqual(importVerdict('default/img', withStatus({ progress: 40, conditions: [cond('Initialized', 'True')] })), {
      done: false,
      description: 'VirtualMachineImage default/img: downloading 40%',
      pending: ['the download (at 40%)'],
    });
  });

  it('the import wait once imported: the virtual size in MiB below 1 GiB, in GiB from 1 GiB', () => {
    const imported = (virtualSize: number) => importVerdict('default/img', withStatus({ storageClassName: 'lh-1', virtualSize, conditions: [cond('Imported', 'True')] }));
    assert.deepEqual(imported(512 * 2 ** 20), { done: true, description: 'VirtualMachineImage default/img: imported (512 MiB virtual size)' });
    assert.equal(imported(2 ** 30).description, 'VirtualMachineImage default/img: imported (1.0 GiB virtual size)');
  });

  it('the import wait when Harvester gives up: its retry message, else its import message, else a plain one', () => {
    const gaveUp = (conditions: ReturnType<typeof cond>[]) => importVerdict('default/img', withStatus({ conditions }));
    const retry = gaveUp([cond('RetryLimitExceeded', 'True', { message: 'retry attempted 3/3' }), cond('Imported', 'False', { message: 'EOF' })]);
    assert.deepEqual([retry.done, retry.description, retry.pending], [false, 'VirtualMachineImage default/img: retry attempted 3/3', undefined]);
    assert.equal(
      retry.error?.message,
      'Harvester could not import VirtualMachineImage default/img: retry attempted 3/3. Check that the url serves the image to the Harvester hosts (and the checksum, if set), then run `pulumi up` again: it starts a new download.',
    );
    assert.equal(gaveUp([cond('RetryLimitExceeded', 'True'), cond('Imported', 'False', { message: 'EOF' })]).description, 'VirtualMachineImage default/img: EOF');
    assert.equal(gaveUp([cond('RetryLimitExceeded', 'True')]).description, 'VirtualMachineImage default/img: the download failed');
  });

  it('diff: drift alone is a change (the next up heals it); no drift recorded and equal inputs are none', () => {
    const olds = { ...inputs(), baseStorageClass: 'harvester-longhorn' };
    assert.deepEqual(diffInputs(olds, inputs()), { changes: false, replaces: [] });
    assert.deepEqual(diffInputs({ ...olds, drift: ['VirtualMachineImage default/img: retry is 7, this resource set 3'] }, inputs()), { changes: true, replaces: [] });
  });
});
