/** PVCs from the volumeClaimTemplates annotation, the VM webhook's resize rules, and deletion cleanup. */
import { strict as assert } from 'node:assert';
import { KubeObject } from '../../emulator/api/types';
import { expectStatusError, HarvesterSim, nodeDriverVm, startHarvesterSim } from './harvester-fixture';

describe('simulated Harvester: VM volumes and deletion', () => {
  let sim: HarvesterSim;

  beforeEach(async () => {
    sim = await startHarvesterSim({ delays: { vmiSchedule: 50, vmiBoot: 100, guestAgent: 50 } });
  });
  afterEach(() => sim.close());

  const pvc = (name: string): KubeObject | undefined => sim.store.get(sim.kinds.pvc, 'default', name);
  const templates = (vm: KubeObject) => JSON.parse(vm.metadata.annotations!['harvesterhci.io/volumeClaimTemplates']);
  const setTemplates = (name: string, mutate: (t: any[]) => void) => {
    const vm = sim.store.get(sim.kinds.vm, 'default', name)!;
    const t = templates(vm);
    mutate(t);
    vm.metadata.annotations!['harvesterhci.io/volumeClaimTemplates'] = JSON.stringify(t);
    return sim.store.update(sim.kinds.vm, vm);
  };

  it('creates Bound PVCs owned by nobody, with the storage class as given', async () => {
    sim.store.create(sim.kinds.vm, nodeDriverVm('disks', { claims: [{ name: 'disks-disk-0-aaaaa', storage: '20Gi' }, { name: 'disks-disk-1-bbbbb', storage: '5Gi', storageClassName: 'harvester-longhorn' }] }));
    await sim.run(0);
    const root = pvc('disks-disk-0-aaaaa')!;
    assert.equal((root.spec as any).storageClassName, 'longhorn-ubuntu-22.04-server-cloudimg');
    assert.equal((root.spec as any).volumeMode, 'Block');
    assert.equal(root.metadata.annotations!['harvesterhci.io/imageId'], 'default/ubuntu-22.04-server-cloudimg');
    assert.equal(root.metadata.ownerReferences, undefined);
    assert.equal((root.status as any).phase, 'Bound');
    assert.equal((root.status as any).capacity.storage, '20Gi');
    assert.equal((pvc('disks-disk-1-bbbbb')!.spec as any).storageClassName, 'harvester-longhorn');
  });

  it('expands a running VM\'s volume online, as Harvester ≥ 1.6 does (the default)', async () => {
    sim.store.create(sim.kinds.vm, nodeDriverVm('online', { claims: [{ name: 'online-disk-0-ddddd', storage: '10Gi' }] }));
    await sim.run(300);
    assert.ok(sim.store.get(sim.kinds.vmi, 'default', 'online'), 'running');
    setTemplates('online', (t) => (t[0].spec.resources.requests.storage = '12Gi'));
    await sim.run(0);
    assert.equal((pvc('online-disk-0-ddddd')!.status as any).capacity.storage, '12Gi');
  });
  it('with volumeResizeRequiresStop (Harvester < 1.6) refuses growing while the VM runs, expands once stopped', async () => {
    sim.close();
    sim = await startHarvesterSim({ volumeResizeRequiresStop: true });
    sim.store.create(sim.kinds.vm, nodeDriverVm('grow', { claims: [{ name: 'grow-disk-0-ccccc', storage: '10Gi' }] }));
    await sim.run(300);
    const refused = expectStatusError(() => setTemplates('grow', (t) => (t[0].spec.resources.requests.storage = '30Gi')));
    assert.equal(refused.code, 422);
    assert.equal(refused.status.message, 'admission webhook "validator.harvesterhci.io" denied the request: please stop the VM before resizing volumes');
    sim.store.patch(sim.kinds.vm, 'default', 'grow', 'merge', { spec: { runStrategy: 'Halted' } });
    await sim.run(0);
    setTemplates('grow', (t) => (t[0].spec.resources.requests.storage = '30Gi'));
    await sim.run(0);
    const grown = pvc('grow-disk-0-ccccc')!;
    assert.equal((grown.spec as any).resources.requests.storage, '30Gi');
    assert.equal((grown.status as any).capacity.storage, '30Gi');
  });


  it('refuses shrinking a volume', async () => {
    sim.store.create(sim.kinds.vm, nodeDriverVm('shrink', { runStrategy: 'Halted', claims: [{ name: 'shrink-disk-0-eeeee', storage: '10Gi' }] }));
    await sim.run(0);
    const err = expectStatusError(() => setTemplates('shrink', (t) => (t[0].spec.resources.requests.storage = '5Gi')));
    assert.equal(err.code, 422);
    assert.equal(err.status.reason, 'Invalid');
    assert.equal(
      err.status.message,
      `admission webhook "validator.harvesterhci.io" denied the request: shrink-disk-0-eeeee PVC requests storage can't be less than previous value`,
    );
    assert.equal((err.status.details as any).causes[0].field, 'metadata.annotations.harvesterhci.io/volumeClaimTemplates');
  });

  it('refuses a storage class change in the annotation', async () => {
    sim.store.create(sim.kinds.vm, nodeDriverVm('sc', { runStrategy: 'Halted', claims: [{ name: 'sc-disk-0-fffff', storage: '10Gi' }] }));
    await sim.run(0);
    const err = expectStatusError(() => setTemplates('sc', (t) => (t[0].spec.storageClassName = 'harvester-longhorn')));
    assert.equal(err.code, 422);
    assert.match(err.status.message!, /storage class names for the volumes in the harvesterhci\.io\/volumeClaimTemplates annotation cannot be changed$/);
  });

  it('refuses a malformed annotation and a volume already used by another VM', async () => {
    const bad = nodeDriverVm('bad-json');
    bad.metadata.annotations!['harvesterhci.io/volumeClaimTemplates'] = '[{"metadata":';
    const err = expectStatusError(() => sim.store.create(sim.kinds.vm, bad));
    assert.equal(err.code, 422);
    assert.match(err.status.message!, /the volumeClaimTemplates annotaion is invalid: /);
    const unnamed = nodeDriverVm('no-name');
    unnamed.metadata.annotations!['harvesterhci.io/volumeClaimTemplates'] = '[{"spec":{}}]';
    const noName = expectStatusError(() => sim.store.create(sim.kinds.vm, unnamed));
    assert.equal(noName.code, 422);
    assert.match(noName.status.message!, /the volumeClaimTemplates annotaion is invalid: PVC name is required$/);
    sim.store.create(sim.kinds.vm, nodeDriverVm('first', { claims: [{ name: 'shared-claim', storage: '1Gi' }] }));
    const clash = expectStatusError(() => sim.store.create(sim.kinds.vm, nodeDriverVm('second', { claims: [{ name: 'shared-claim', storage: '1Gi' }] })));
    assert.match(clash.status.message!, /the volume shared-claim is already used by VM default\/first$/);
  });

  it('on delete removes the VMI, the PVCs named in removedPersistentVolumeClaims, then its finalizers', async () => {
    sim.store.create(sim.kinds.vm, nodeDriverVm('gone', { claims: [{ name: 'gone-disk-0-ggggg', storage: '1Gi' }, { name: 'gone-disk-1-hhhhh', storage: '1Gi' }] }));
    await sim.run(300);
    assert.ok(sim.store.get(sim.kinds.vmi, 'default', 'gone'));
    sim.store.patch(sim.kinds.vm, 'default', 'gone', 'merge', { metadata: { annotations: { 'harvesterhci.io/removedPersistentVolumeClaims': 'gone-disk-0-ggggg' } } });
    sim.store.delete(sim.kinds.vm, 'default', 'gone', { propagationPolicy: 'Foreground' });
    await sim.run(10);
    assert.equal(sim.store.get(sim.kinds.vm, 'default', 'gone'), undefined);
    assert.equal(sim.store.get(sim.kinds.vmi, 'default', 'gone'), undefined);
    assert.equal(pvc('gone-disk-0-ggggg'), undefined);
    assert.ok(pvc('gone-disk-1-hhhhh'), 'a PVC not named in the annotation stays');
  });

  it('removeAllPersistentVolumeClaims does not widen the removal: other PVCs of the guest cluster stay (Harvester removePVCInRemovedPVCsAnnotation)', async () => {
    sim.store.create(sim.kinds.vm, nodeDriverVm('gc-a', { cluster: 'gc1', claims: [{ name: 'gc-a-disk-0-iiiii', storage: '1Gi' }] }));
    sim.store.create(sim.kinds.pvc, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'pvc-csi-1', namespace: 'default', labels: { 'guestcluster.harvesterhci.io/name': 'gc1' } },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    });
    await sim.run(300);
    sim.store.patch(sim.kinds.vm, 'default', 'gc-a', 'merge', {
      metadata: { annotations: { 'harvesterhci.io/removedPersistentVolumeClaims': 'gc-a-disk-0-iiiii', 'harvesterhci.io/removeAllPersistentVolumeClaims': 'true' } },
    });
    sim.store.delete(sim.kinds.vm, 'default', 'gc-a', {});
    await sim.run(10);
    assert.equal(sim.store.get(sim.kinds.vm, 'default', 'gc-a'), undefined);
    assert.equal(pvc('gc-a-disk-0-iiiii'), undefined);
    assert.ok(pvc('pvc-csi-1'), 'only claims named in removedPersistentVolumeClaims are deleted');
  });

  it('the cloud-init Secret owned by the VM goes with it (ownerReference GC)', async () => {
    const created = sim.store.create(sim.kinds.vm, nodeDriverVm('owned', { secretRef: 'owned-cloudinit' }));
    sim.store.create(sim.kinds.secret, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'owned-cloudinit', namespace: 'default', ownerReferences: [{ apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine', name: 'owned', uid: String(created.metadata.uid) }] },
      data: { userdata: Buffer.from('#cloud-config\n').toString('base64') },
    });
    await sim.run(300);
    sim.store.delete(sim.kinds.vm, 'default', 'owned', {});
    await sim.run(10);
    assert.equal(sim.store.get(sim.kinds.secret, 'default', 'owned-cloudinit'), undefined);
  });
});
