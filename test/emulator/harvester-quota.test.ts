/**
 * ResourceQuota on the simulated Harvester (docs/design/capacity.md §quota): kube-apiserver's admission refuses
 * a launcher pod over the quota's limits with its 403 "exceeded quota" text, KubeVirt reports FailedCreate on
 * the VMI, the quota controller keeps status.used, and Harvester halts a VM over its Rancher project quota.
 */
import { strict as assert } from 'node:assert';
import { KubeObject } from '../../emulator/api/types';
import { expectStatusError, HarvesterSim, sizedVm, startHarvesterSim } from './harvester-fixture';

describe('simulated Harvester: resource quotas', () => {
  let sim: HarvesterSim;
  beforeEach(async () => {
    sim = await startHarvesterSim({ delays: { vmiSchedule: 10, vmiBoot: 10, guestAgent: 10 } });
  });
  afterEach(() => sim.close());

  const get = (kind: 'vm' | 'vmi', name: string): any => sim.store.get(sim.kinds[kind], 'default', name);
  const quota = (name: string, hard: Record<string, string>, labels?: Record<string, string>): KubeObject =>
    sim.store.create(sim.kinds.resourceQuota, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name, namespace: 'default', labels }, spec: { hard } });
  const events = (name: string, reason: string) => sim.store.list(sim.kinds.event, { namespace: 'default', fieldSelector: `involvedObject.name=${name},reason=${reason}` }).items;

  it('refuses the launcher pod over limits.cpu with the apiserver 403, leaves the VMI Pending with FailedCreate, and starts it once there is room', async () => {
    quota('compute', { 'limits.cpu': '6', 'limits.memory': '40Gi' });
    sim.store.create(sim.kinds.vm, sizedVm('a', 4, '8Gi'));
    await sim.run(50);
    assert.equal(get('vmi', 'a').status.phase, 'Running');
    const status = sim.store.get(sim.kinds.resourceQuota, 'default', 'compute')!.status as any;
    // 4 vCPUs + the console container's 15m; 8Gi + KubeVirt's overhead (450887104) + the console's 60M
    assert.deepEqual(status.used, { 'limits.cpu': '4015m', 'limits.memory': String(8589934592 + 450887104 + 60000000) });
    assert.deepEqual(status.hard, { 'limits.cpu': '6', 'limits.memory': '40Gi' });

    sim.store.create(sim.kinds.vm, sizedVm('b', 4, '8Gi'));
    await sim.run(50);
    const vmi = get('vmi', 'b');
    assert.equal(vmi.status.phase, 'Pending');
    const synchronized = vmi.status.conditions.find((c: any) => c.type === 'Synchronized');
    assert.equal(synchronized.status, 'False');
    assert.equal(synchronized.reason, 'FailedCreate');
    assert.match(
      synchronized.message,
      /^failed to create virtual machine pod: pods "virt-launcher-b-[a-z0-9]{5}" is forbidden: exceeded quota: compute, requested: limits\.cpu=4015m, used: limits\.cpu=4015m, limited: limits\.cpu=6$/,
    );
    const failed = events('b', 'FailedCreate');
    assert.equal(failed.length, 1);
    assert.equal(failed[0].type, 'Warning');
    assert.equal((failed[0].source as any).component, 'virtualmachine-controller');
    assert.match(String(failed[0].message), /^Error creating pod: pods "virt-launcher-b-[a-z0-9]{5}" is forbidden: exceeded quota: compute/);
    assert.equal(get('vm', 'b').status.printableStatus, 'Starting');
    assert.equal(get('vm', 'b').status.conditions.find((c: any) => c.type === 'Synchronized').reason, 'FailedCreate');
    assert.equal(sim.store.list(sim.kinds.pod, { namespace: 'default', labelSelector: 'vm.kubevirt.io/name=b' }).items.length, 0);

    // WHEN the quota grows THEN the pod is created and the VMI starts
    sim.store.patch(sim.kinds.resourceQuota, 'default', 'compute', 'merge', { spec: { hard: { 'limits.cpu': '10' } } });
    await sim.run(50);
    assert.equal(get('vmi', 'b').status.phase, 'Running');
    assert.equal(get('vmi', 'b').status.conditions.find((c: any) => c.type === 'Synchronized'), undefined);
    assert.equal(events('b', 'SuccessfulCreate').length, 1);
  });

  it('a quota on requests and pods counts them too; the refusal names only what is exceeded, sorted', async () => {
    quota('small', { 'requests.cpu': '200m', pods: '5', 'requests.memory': '100Gi' });
    sim.store.create(sim.kinds.vm, sizedVm('a', 4, '8Gi'));
    await sim.run(50);
    const msg = get('vmi', 'a').status.conditions.find((c: any) => c.type === 'Synchronized').message;
    assert.match(msg, /exceeded quota: small, requested: requests\.cpu=255m, used: requests\.cpu=0, limited: requests\.cpu=200m$/);
  });

  it('requires every container to state a quota-tracked resource (failed quota: … must specify)', () => {
    quota('limits', { 'limits.memory': '10Gi' });
    const err = expectStatusError(() =>
      sim.store.create(sim.kinds.pod, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bare', namespace: 'default' }, spec: { containers: [{ name: 'app', image: 'x' }] } }),
    );
    assert.equal(err.code, 403);
    assert.equal(err.status.message, 'pods "bare" is forbidden: failed quota: limits: must specify limits.memory for: app');
    assert.equal(err.status.reason, 'Forbidden');
  });

  it('refuses a PVC over requests.storage', () => {
    quota('disk', { 'requests.storage': '15Gi' });
    const pvc = (name: string) => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name, namespace: 'default' }, spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage: '10Gi' } } } });
    sim.store.create(sim.kinds.pvc, pvc('one'));
    const err = expectStatusError(() => sim.store.create(sim.kinds.pvc, pvc('two')));
    assert.equal(err.status.message, 'persistentvolumeclaims "two" is forbidden: exceeded quota: disk, requested: requests.storage=10Gi, used: requests.storage=10Gi, limited: requests.storage=15Gi');
  });

  it('Harvester halts a VM over its Rancher project quota and says why (annotation, Halted, event)', async () => {
    sim.store.patch(sim.kinds.namespace, undefined, 'default', 'merge', {
      metadata: { annotations: { 'field.cattle.io/resourceQuota': JSON.stringify({ limit: { limitsCpu: '6000m', limitsMemory: '40960Mi' } }) } },
    });
    quota('default-abcde', { 'limits.cpu': '6', 'limits.memory': '40Gi' }, { 'resourcequota.management.cattle.io/default-resource-quota': 'true' });
    sim.store.create(sim.kinds.vm, sizedVm('a', 4, '8Gi'));
    await sim.run(50);
    sim.store.create(sim.kinds.vm, sizedVm('b', 4, '8Gi'));
    await sim.run(50);
    const vm = get('vm', 'b');
    assert.equal(vm.spec.runStrategy, 'Halted');
    assert.equal(vm.metadata.annotations['harvesterhci.io/insufficient-resource-quota'], 'cpu insufficient resources due to resource quota');
    assert.equal(vm.status.printableStatus, 'Stopped');
    const halted = events('b', 'InsufficientResourceQuota');
    assert.equal(halted.length, 1);
    assert.equal(halted[0].message, 'Set runStrategy to Halted: cpu insufficient resources due to resource quota');
    assert.equal(get('vm', 'a').spec.runStrategy, 'RerunOnFailure', 'the VM that fits is left alone');
  });
});
