/** HarvesterImage's pure parts: the wait's verdict on each state Harvester writes, read-back, diff and URL rules. */
import assert from 'node:assert/strict';
import type { VirtualMachineImage } from '../../../../provider/client/objects';
import { desiredImage, diffInputs, driftOf, importVerdict, liveInputs, recordedLive } from '../../../../provider/resources/image/plan';
import { urlProblem, validateInputs } from '../../../../provider/resources/image/validate';
import { ForbiddenError } from '../../../../provider/client/errors';
import type { HarvesterClient } from '../../../../provider/client/harvester-client';
import { clusterFailures, storageClasses } from '../../../../provider/resources/image/cluster';

const inputs = (extra: Record<string, unknown> = {}) => validateInputs({ name: 'img', url: 'https://example.com/x.img', ...extra }).inputs!;
const image = (status: Record<string, unknown>): VirtualMachineImage => ({ ...desiredImage(inputs()), status });
const cond = (type: string, status: string, message?: string) => ({ type, status, ...(message ? { message } : {}) });

describe('HarvesterImage plan', () => {
  it('the import wait: waiting, downloading (with Harvester\'s retry message), given up (its message), imported', () => {
    assert.equal(importVerdict('default/img', undefined).done, false);
    assert.equal(importVerdict('default/img', image({})).description, 'VirtualMachineImage default/img: waiting for Harvester to start the download');
    const retrying = importVerdict('default/img', image({ progress: 50, conditions: [cond('Initialized', 'True'), cond('RetryLimitExceeded', 'False', 'failed due to error: x')] }));
    assert.deepEqual([retrying.done, retrying.description, retrying.error], [false, 'VirtualMachineImage default/img: downloading 50% (failed due to error: x; Harvester retries)', undefined]);
    const gaveUp = importVerdict('default/img', image({ progress: 50, conditions: [cond('RetryLimitExceeded', 'True', 'retry attempted 3/3 failed due to error: x')] }));
    assert.match(gaveUp.error!.message, /^Harvester could not import VirtualMachineImage default\/img: retry attempted 3\/3 failed due to error: x\. /);
    const done = importVerdict('default/img', image({ progress: 100, storageClassName: 'lh-1', virtualSize: 2 ** 31, conditions: [cond('Imported', 'True')] }));
    assert.deepEqual([done.done, done.description], [true, 'VirtualMachineImage default/img: imported (2.0 GiB virtual size)']);
  });

  it('reads back what it wrote as the inputs; Harvester\'s additions are not inputs; an edit is one drift line', () => {
    const written = desiredImage(inputs({ labels: { a: 'b' }, osType: 'ubuntu' }));
    const live: VirtualMachineImage = {
      ...written,
      metadata: { ...written.metadata, labels: { ...written.metadata.labels, 'harvesterhci.io/imageDisplayName': 'img' }, annotations: { 'harvesterhci.io/storageClassName': 'harvester-longhorn' } },
      spec: { ...written.spec, backend: 'backingimage', storageClassParameters: { numberOfReplicas: '3' }, targetStorageClassName: 'harvester-longhorn' },
    };
    const recorded = inputs({ labels: { a: 'b' }, osType: 'ubuntu' });
    assert.deepEqual(liveInputs(live, { defaultStorageClass: 'harvester-longhorn' }), recordedLive(recorded));
    const edited = { ...live, spec: { ...live.spec, retry: 7 } };
    assert.deepEqual(driftOf(recorded, liveInputs(edited, { defaultStorageClass: 'harvester-longhorn' }), edited), ['VirtualMachineImage default/img: retry is 7, this resource set 3']);
  });

  it('diff: naming the class the image already copied is no change; another class, the url or the display name replace', () => {
    const olds = { ...inputs(), baseStorageClass: 'harvester-longhorn', drift: [] };
    assert.deepEqual(diffInputs(olds, inputs({ storageClass: 'harvester-longhorn' })), { changes: false, replaces: [] });
    assert.deepEqual(diffInputs(olds, inputs({ storageClass: 'fast' })), { changes: true, replaces: ['storageClass'] });
    assert.deepEqual(diffInputs({ ...olds, storageClass: 'fast' }, inputs()), { changes: true, replaces: ['storageClass'] });
    assert.deepEqual(diffInputs(olds, inputs({ url: 'https://example.com/y.img', displayName: 'y' })), { changes: true, replaces: ['displayName', 'url'] });
    assert.deepEqual(diffInputs(olds, inputs({ retry: 1 })), { changes: true, replaces: [] });
  });

  it('URLs: what Go\'s url.Parse refuses (the webhook) and what Longhorn cannot download, refused with the reason', () => {
    assert.equal(urlProblem('https://cloud-images.ubuntu.com/x.img'), undefined);
    assert.equal(urlProblem('http://[fe80::1]:8080/x.img'), undefined);
    assert.match(urlProblem('http://h/\tx')!, /control character/);
    assert.match(urlProblem('http://h/%zz')!, /"%zz", which is not a %-escape/);
    assert.match(urlProblem('images/x.img')!, /not an absolute URL/);
    assert.match(urlProblem('s3://bucket/x.img')!, /uses s3/);
    assert.match(urlProblem('http://a{b/x.img')!, /host "a\{b"/);
    assert.deepEqual(validateInputs({ name: 'img', url: 'https://e/x', checksum: 'abc' }).failures.map((f) => f.property), ['checksum']);
  });

  it('credentials that may not list StorageClasses: the storage class rules are left to Harvester, the others still run', async () => {
    const forbidden = new ForbiddenError({ code: 'Forbidden', summary: 'storageclasses is forbidden', httpStatus: 403 });
    const list = async (): Promise<never> => {
      throw forbidden;
    };
    const client = {
      resource: () => ({ list }),
      namespaces: { get: async () => ({ metadata: { name: 'default' } }) },
      images: { get: async () => undefined, list: async () => ({ items: [{ metadata: { name: 'other' } }] }) },
    } as unknown as HarvesterClient;
    assert.equal(await storageClasses(client), undefined);
    assert.deepEqual((await clusterFailures(client, inputs({ storageClass: 'x' }))).map((f) => f.property), ['displayName']);
    const broken = { ...client, resource: () => ({ list: async () => Promise.reject(new Error('connection reset')) }) } as unknown as HarvesterClient;
    await assert.rejects(storageClasses(broken), /connection reset/);
  });
});
