/** Seed data, VirtualMachineImage import + webhooks, KeyPair validation + webhook. */
import { strict as assert } from 'node:assert';
import { KubeObject } from '../../emulator/api/types';
import { IMAGE_FAIL_ANNOTATION } from '../../emulator/harvester';
import { OPS_KEY_PUBLIC } from '../../emulator/seed';
import { expectStatusError, HarvesterSim, startHarvesterSim } from './harvester-fixture';

const cond = (o: KubeObject | undefined, type: string) => ((o?.status as any)?.conditions ?? []).find((c: any) => c.type === type);

function image(name: string, spec: Record<string, unknown>, annotations?: Record<string, string>): KubeObject {
  return { apiVersion: 'harvesterhci.io/v1beta1', kind: 'VirtualMachineImage', metadata: { name, namespace: 'default', annotations }, spec };
}

describe('simulated Harvester: seed, images and key pairs', () => {
  let sim: HarvesterSim;

  beforeEach(async () => {
    sim = await startHarvesterSim({ delays: { imageImport: 400 } });
  });
  afterEach(() => sim.close());

  it('seeds hosts, namespaces, settings, network, images and a validated key pair', () => {
    const nodes = sim.store.list(sim.kinds.node).items;
    assert.deepEqual(nodes.map((n) => n.metadata.name).sort(), ['harvester-node-0', 'harvester-node-1', 'harvester-node-2']);
    assert.deepEqual(nodes.map((n) => n.metadata.labels!['topology.kubernetes.io/zone']).sort(), ['us-east-1a', 'us-east-1b', 'us-east-1c']);
    for (const n of nodes) {
      assert.equal(n.metadata.labels!['kubernetes.io/hostname'], n.metadata.name);
      assert.equal(n.metadata.labels!['topology.kubernetes.io/region'], 'us-east');
      assert.equal(cond(n, 'Ready').status, 'True');
      assert.ok((n.status as any).addresses.some((a: any) => a.type === 'InternalIP'));
    }
    for (const ns of ['default', 'kube-system', 'harvester-public']) assert.ok(sim.store.get(sim.kinds.namespace, undefined, ns));
    assert.equal(sim.store.get(sim.kinds.setting, undefined, 'server-version')!.value, 'v1.6.1');
    const nad = sim.store.get(sim.kinds.nad, 'default', 'vm-net')!;
    assert.equal(nad.metadata.labels!['network.harvesterhci.io/vlan-id'], '100');
    const ubuntu = sim.store.get(sim.kinds.image, 'default', 'ubuntu-22.04-server-cloudimg')!;
    assert.equal((ubuntu.status as any).storageClassName, 'longhorn-ubuntu-22.04-server-cloudimg');
    assert.equal(cond(ubuntu, 'Imported').status, 'True');
    assert.match((ubuntu.spec as any).url, /\.img$/);
    assert.match((sim.store.get(sim.kinds.image, 'default', 'opensuse-leap-15.6')!.spec as any).url, /\.qcow2$/);
    const iso = sim.store.get(sim.kinds.image, 'default', 'ubuntu-24.04-live-server')!;
    assert.match((iso.spec as any).url, /\.iso$/);
    assert.equal((iso.spec as any).displayName, 'ubuntu-24.04.1-live-server-amd64.iso');
    const kp = sim.store.get(sim.kinds.keyPair, 'default', 'ops-key')!;
    assert.equal(cond(kp, 'validated').status, 'True');
    assert.match((kp.status as any).fingerPrint, /^([0-9a-f]{2}:){15}[0-9a-f]{2}$/);
    assert.equal(sim.store.list(sim.kinds.ipPool).items.length, 0);
  });

  const status = (name: string) => (sim.store.get(sim.kinds.image, 'default', name)!.status ?? {}) as Record<string, any>;
  const brief = (c: any) => (c ? [c.status, c.reason ?? '', c.message ?? ''] : undefined);

  it('imports an image created through the API as Harvester writes it: Initialized, progress capped at 99, Imported, lh-<uid> storage class, sizes', async () => {
    const created = sim.store.create(sim.kinds.image, image('jammy', { displayName: 'jammy', sourceType: 'download', url: 'https://example.com/jammy.img' }));
    assert.equal(created.metadata.labels!['harvesterhci.io/imageDisplayName'], 'jammy');
    assert.deepEqual((created.spec as any).storageClassParameters, { numberOfReplicas: '3', staleReplicaTimeout: '30', migratable: 'true' });
    const seen: number[] = [];
    const watch = sim.store.watch(sim.kinds.image, { namespace: 'default' }, (e) => {
      const o = e.object as KubeObject;
      const p = (o.status as any)?.progress;
      if (o.metadata.name === 'jammy' && p !== undefined && seen.at(-1) !== p) seen.push(p);
    });
    await sim.run(0);
    let live = sim.store.get(sim.kinds.image, 'default', 'jammy')!;
    assert.deepEqual(brief(cond(live, 'Initialized')), ['True', 'Initialized', '']);
    assert.deepEqual(brief(cond(live, 'Imported')), ['Unknown', 'Importing', '']);
    assert.equal((live.status as any).storageClassName, `lh-${created.metadata.uid}`);
    assert.ok((live.status as any).size > 0, 'the HEAD\'s Content-Length');
    assert.deepEqual(live.metadata.finalizers, ['wrangler.cattle.io/vm-image-controller']);
    const sc = sim.store.get(sim.kinds.storageClass!, undefined, `lh-${created.metadata.uid}`)!;
    assert.deepEqual((sc as any).parameters, { numberOfReplicas: '3', staleReplicaTimeout: '30', migratable: 'true', backingImage: `vmi-${created.metadata.uid}` });
    await sim.run(400);
    watch.stop();
    assert.deepEqual(seen, [0, 25, 50, 75, 99, 100]);
    live = sim.store.get(sim.kinds.image, 'default', 'jammy')!;
    assert.deepEqual(brief(cond(live, 'Imported')), ['True', 'Imported', '']);
    assert.deepEqual(brief(cond(live, 'RetryLimitExceeded')), ['False', '', '']);
    assert.ok((live.status as any).virtualSize >= (live.status as any).size);
    sim.store.delete(sim.kinds.image, 'default', 'jammy', {});
    await sim.run(0);
    assert.equal(sim.store.get(sim.kinds.image, 'default', 'jammy'), undefined, 'the finalizer is removed once the storage class is gone');
    assert.equal(sim.store.get(sim.kinds.storageClass!, undefined, `lh-${created.metadata.uid}`), undefined);
  });

  it('a host that never resolves: the HEAD fails, Harvester retries spec.retry times, then RetryLimitExceeded and Initialized=False', async () => {
    const url = 'https://images.example.invalid/x.img';
    sim.store.create(sim.kinds.image, image('gone', { displayName: 'gone', sourceType: 'download', url, retry: 1 }));
    await sim.run(0);
    const error = `Head "${url}": dial tcp: lookup images.example.invalid: no such host`;
    assert.deepEqual([status('gone').failed, brief(cond(sim.store.get(sim.kinds.image, 'default', 'gone'), 'RetryLimitExceeded'))], [1, ['False', '', `failed due to error: ${error}`]]);
    await sim.run(10_000);
    const live = sim.store.get(sim.kinds.image, 'default', 'gone')!;
    assert.equal(status('gone').failed, 2);
    assert.deepEqual(brief(cond(live, 'RetryLimitExceeded')), ['True', '', `retry attempted 1/1 failed due to error: ${error}`]);
    assert.deepEqual(brief(cond(live, 'Initialized')), ['False', '', `retry attempted 1/1 failed due to error: ${error}`]);
    await sim.run(20_000);
    assert.equal(status('gone').failed, 2, 'nothing happens once the retry limit is exceeded');
  });

  it('an HTTP error status of the HEAD, and a download that breaks part-way, are Harvester\'s failures', async () => {
    sim.store.create(sim.kinds.image, image('missing', { displayName: 'missing', sourceType: 'download', url: 'https://example.com/http-404/x.img', retry: 0 }));
    sim.store.create(sim.kinds.image, image('broken', { displayName: 'broken', sourceType: 'download', url: 'https://example.com/fail-at-50/x.img', retry: 0 }));
    await sim.run(400);
    assert.deepEqual(brief(cond(sim.store.get(sim.kinds.image, 'default', 'missing'), 'Initialized')), ['False', '', 'failed due to error: got 404 status code from https://example.com/http-404/x.img']);
    const broken = sim.store.get(sim.kinds.image, 'default', 'broken')!;
    assert.deepEqual(brief(cond(broken, 'Imported')), ['False', 'Importing', 'failed due to error: https://example.com/fail-at-50/x.img: unexpected EOF']);
    assert.equal(status('broken').progress, 50);
  });

  it('fails an import on request (fault annotation); a retry after the fault is lifted imports it and clears RetryLimitExceeded', async () => {
    sim.store.create(sim.kinds.image, image('flaky', { displayName: 'flaky', sourceType: 'download', url: 'https://example.com/x.img' }, { [IMAGE_FAIL_ANNOTATION]: 'failed to download: 404 Not Found' }));
    await sim.run(400);
    assert.deepEqual(brief(cond(sim.store.get(sim.kinds.image, 'default', 'flaky'), 'RetryLimitExceeded')), ['False', '', 'failed due to error: failed to download: 404 Not Found']);
    sim.store.patch(sim.kinds.image, 'default', 'flaky', 'merge', { metadata: { annotations: { [IMAGE_FAIL_ANNOTATION]: null } } });
    await sim.run(11_000);
    const live = sim.store.get(sim.kinds.image, 'default', 'flaky')!;
    assert.deepEqual(brief(cond(live, 'Imported')), ['True', 'Imported', '']);
    assert.deepEqual(brief(cond(live, 'RetryLimitExceeded')), ['False', '', '']);
    assert.equal(status('flaky').failed, 1);
  });

  it('the legacy storage class longhorn-<name>, when it exists, is kept (TestGetStorageClassName)', async () => {
    sim.store.create(sim.kinds.storageClass!, { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'longhorn-image-foobar' }, provisioner: 'driver.longhorn.io' } as KubeObject);
    sim.store.create(sim.kinds.image, image('image-foobar', { displayName: 'foobar', sourceType: 'download', url: 'https://example.com/x.img' }));
    const other = sim.store.create(sim.kinds.image, image('image-other', { displayName: 'other', sourceType: 'download', url: 'https://example.com/x.img' }));
    await sim.run(0);
    assert.equal(status('image-foobar').storageClassName, 'longhorn-image-foobar');
    assert.equal(status('image-other').storageClassName, `lh-${other.metadata.uid}`, 'StorageClass not found: lh-<uid>');
  });

  const denied = (fn: () => unknown) => {
    const err = expectStatusError(fn);
    return { code: err.code, message: err.status.message };
  };

  it('image webhook: displayName, url and immutability rules', async () => {
    const prefix = 'admission webhook "validator.harvesterhci.io" denied the request: ';
    // The schema requires displayName, so an empty one reaches the webhook.
    assert.deepEqual(denied(() => sim.store.create(sim.kinds.image, image('a', { displayName: '', sourceType: 'download', url: 'https://e/x.img' }))), {
      code: 422,
      message: `${prefix}displayName is required`,
    });
    assert.deepEqual(denied(() => sim.store.create(sim.kinds.image, image('b', { displayName: 'b', sourceType: 'download' }))), {
      code: 422,
      message: `${prefix}url is required`,
    });
    assert.deepEqual(denied(() => sim.store.create(sim.kinds.image, image('c', { displayName: 'c', sourceType: 'upload', url: 'https://e/x.img' }))), {
      code: 422,
      message: `${prefix}url should be empty when image source type is "upload"`,
    });
    // The mutator copies displayName into a label first: the apiserver's label check refuses it.
    const bad = denied(() => sim.store.create(sim.kinds.image, image('d', { displayName: 'has space', sourceType: 'download', url: 'https://e/x.img' })));
    assert.equal(bad.code, 422);
    assert.match(bad.message!, /^VirtualMachineImage.harvesterhci.io "d" is invalid: metadata.labels: Invalid value: "has space"/);
    // sourceType enum is the CRD schema's job
    const enumErr = expectStatusError(() => sim.store.create(sim.kinds.image, image('e', { displayName: 'e', sourceType: 'ftp', url: 'https://e/x.img' })));
    assert.equal(enumErr.code, 422);
    sim.store.create(sim.kinds.image, image('f', { displayName: 'dup', sourceType: 'download', url: 'https://e/x.img' }));
    assert.deepEqual(denied(() => sim.store.create(sim.kinds.image, image('g', { displayName: 'dup', sourceType: 'download', url: 'https://e/y.img' }))), {
      code: 409,
      message: `${prefix}A resource with the same name exists`,
    });
    assert.deepEqual(denied(() => sim.store.create(sim.kinds.image, image('h', { displayName: 'h', sourceType: 'download', url: 'http://a b' }))), {
      code: 422,
      message: `${prefix}url is invalid: parse "http://a b": invalid character " " in host name`,
    });
    const changed = denied(() => sim.store.patch(sim.kinds.image, 'default', 'f', 'merge', { spec: { url: 'https://e/z.img' } }));
    assert.deepEqual(changed, { code: 422, message: `${prefix}url cannot be modified` });
  });

  it('image webhook: refuses deleting an image whose storage class a PVC uses', async () => {
    sim.store.create(sim.kinds.pvc, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'root', namespace: 'default' },
      spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'longhorn-opensuse-leap-15.6' },
    });
    const err = denied(() => sim.store.delete(sim.kinds.image, 'default', 'opensuse-leap-15.6', {}));
    assert.equal(err.code, 422);
    assert.equal(
      err.message,
      'admission webhook "validator.harvesterhci.io" denied the request: Cannot delete image default/openSUSE-Leap-15.6.x86_64-NoCloud.qcow2: being used by volume default/root',
    );
  });

  it('key pairs: webhook rejects non-OpenSSH keys; controller fingerprints and validates', async () => {
    const kp = (name: string, publicKey: string): KubeObject => ({ apiVersion: 'harvesterhci.io/v1beta1', kind: 'KeyPair', metadata: { name, namespace: 'default' }, spec: { publicKey } });
    const err = denied(() => sim.store.create(sim.kinds.keyPair, kp('bad', 'ssh-rsa not-base64!!')));
    assert.deepEqual(err, { code: 422, message: 'admission webhook "validator.harvesterhci.io" denied the request: key is not in valid OpenSSH public key format' });
    assert.deepEqual(denied(() => sim.store.create(sim.kinds.keyPair, kp('empty', ''))), {
      code: 422,
      message: 'admission webhook "validator.harvesterhci.io" denied the request: public key is required',
    });
    const pem = denied(() => sim.store.create(sim.kinds.keyPair, kp('pem', '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA\n-----END PUBLIC KEY-----')));
    assert.equal(pem.code, 422);
    sim.store.create(sim.kinds.keyPair, kp('good', OPS_KEY_PUBLIC.replace('ops@harvester-iac', 'me@laptop')));
    await sim.run(0);
    const live = sim.store.get(sim.kinds.keyPair, 'default', 'good')!;
    assert.equal(cond(live, 'validated').status, 'True');
    const seeded = sim.store.get(sim.kinds.keyPair, 'default', 'ops-key')!;
    assert.equal((live.status as any).fingerPrint, (seeded.status as any).fingerPrint, 'same key blob, same MD5 fingerprint');
  });
});
