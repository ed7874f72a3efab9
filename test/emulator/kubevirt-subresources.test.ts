/**
 * KubeVirt's `subresources.kubevirt.io` as kubectl and virtctl meet it. Expected answers (docs/design/
 * kube-api.md §6) from kubevirt/kubevirt at f40c1e28: pkg/virt-api/api.go (the advertised APIResourceList:
 * names and `namespaced` only; each route's method) and pkg/virt-api/rest/lifecycle.go (StartVM, StopVM,
 * RestartVM, MigrateVMRequestHandler: 202 with no body, their 409 texts on virtualmachine.kubevirt.io), and
 * from kubernetes v1.32 kube-aggregator's conversion of a legacy list into aggregated discovery
 * (`a/b` → subresource `b` of a parent `a` with an empty responseKind).
 */
import assert from 'node:assert/strict';
import { KINDS } from '../../emulator/kinds';
import type { KubeObject } from '../../emulator/api/types';
import { eventually, startTestEmulator, TestEmulator } from '../support/emulator-harness';
import { rawRequest } from './raw-http';

const BASE = '/apis/subresources.kubevirt.io/v1/namespaces/default';

function vm(name: string, spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine', metadata: { name, namespace: 'default' }, spec: { ...spec, template: { spec: { domain: { devices: {}, resources: { requests: { memory: '1Gi' } } } } } } };
}

describe('KubeVirt subresources (subresources.kubevirt.io)', function () {
  this.timeout(60_000);
  let t: TestEmulator;
  const put = (path: string, body = '{}') => rawRequest(t, 'PUT', `${BASE}/${path}`, body, { 'Content-Type': 'application/json' });
  const strategy = (name: string) => (t.emulator.store.get(KINDS.virtualMachine, 'default', name)!.spec as { runStrategy?: string; running?: boolean });

  before(async () => {
    t = await startTestEmulator({ bootDelayMs: 50 });
  });
  after(() => t?.stop());

  it('discovery lists the group, v1 preferred, with what virt-api advertises (kubectl api-versions, get --raw)', async () => {
    const versions = (await t.kubectlOk(['api-versions'])).split('\n');
    assert.ok(versions.includes('subresources.kubevirt.io/v1') && versions.includes('subresources.kubevirt.io/v1alpha3'), versions.join(' '));
    const list = JSON.parse(await t.kubectlOk(['get', '--raw', '/apis/subresources.kubevirt.io/v1']));
    assert.equal(list.groupVersion, 'subresources.kubevirt.io/v1');
    const names = list.resources.map((r: { name: string }) => r.name);
    for (const n of ['virtualmachines/start', 'virtualmachines/stop', 'virtualmachines/restart', 'virtualmachines/migrate', 'virtualmachineinstances/console', 'virtualmachineinstances/vnc', 'virtualmachineinstances/guestosinfo', 'expand-vm-spec']) {
      assert.ok(names.includes(n), n);
    }
    assert.deepEqual(list.resources[1], { name: 'virtualmachineinstances/vnc', singularName: '', namespaced: true, kind: '', verbs: null });
    const group = JSON.parse(await t.kubectlOk(['get', '--raw', '/apis/subresources.kubevirt.io']));
    assert.deepEqual(group.preferredVersion, { groupVersion: 'subresources.kubevirt.io/v1', version: 'v1' });
  });

  it('aggregated discovery nests the subresources under made-up parents; kubectl get vm still means kubevirt.io', async () => {
    const r = await rawRequest(t, 'GET', '/apis', undefined, { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' });
    const group = r.json.items.find((i: { metadata: { name: string } }) => i.metadata.name === 'subresources.kubevirt.io');
    const v1 = group.versions.find((v: { version: string }) => v.version === 'v1');
    const vms = v1.resources.find((x: { resource: string }) => x.resource === 'virtualmachines');
    assert.deepEqual(vms.responseKind, { group: '', version: '', kind: '' });
    assert.deepEqual(vms.subresources.map((s: { subresource: string }) => s.subresource), ['start', 'stop', 'restart', 'migrate', 'expand-spec']);
    const vmis = v1.resources.find((x: { resource: string }) => x.resource === 'virtualmachineinstances');
    assert.ok(vmis.subresources.some((s: { subresource: string }) => s.subresource === 'sev/fetchcertchain'));
    t.emulator.store.create(KINDS.virtualMachine, vm('listed', { runStrategy: 'Halted' }));
    assert.match(await t.kubectlOk(['get', 'vm', 'listed', '-o', 'name']), /^virtualmachine\.kubevirt\.io\/listed$/m);
  });

  it('start: Halted → runStrategy Always (202); a running VM 409; Always "does not support manual start requests"', async () => {
    t.emulator.store.create(KINDS.virtualMachine, vm('web', { runStrategy: 'Halted' }));
    const started = await put('virtualmachines/web/start');
    assert.equal(started.status, 202, started.text);
    assert.equal(started.text, '');
    assert.equal(strategy('web').runStrategy, 'Always');
    await eventually(() => (t.emulator.store.get(KINDS.virtualMachineInstance, 'default', 'web')?.status as { phase?: string } | undefined)?.phase === 'Running', 'the VMI to run');
    const again = await put('virtualmachines/web/start');
    assert.equal(again.status, 409);
    assert.equal(again.json.message, 'Operation cannot be fulfilled on virtualmachine.kubevirt.io "web": VM is already running');
    assert.deepEqual(again.json.details, { name: 'web', group: 'kubevirt.io', kind: 'virtualmachine' });
  });

  it('migrate creates a VirtualMachineInstanceMigration; restart replaces the VMI; stop sets Halted', async () => {
    assert.equal((await put('virtualmachines/web/migrate')).status, 202);
    const migrations = t.emulator.store.list(KINDS.virtualMachineInstanceMigration, { namespace: 'default' }).items;
    assert.equal(migrations.length, 1);
    assert.match(migrations[0].metadata.name!, /^kubevirt-migrate-vm-/);
    assert.deepEqual(migrations[0].spec, { vmiName: 'web' });

    const before = t.emulator.store.get(KINDS.virtualMachineInstance, 'default', 'web')!.metadata.uid;
    assert.equal((await put('virtualmachines/web/restart')).status, 202);
    await eventually(() => {
      const uid = t.emulator.store.get(KINDS.virtualMachineInstance, 'default', 'web')?.metadata.uid;
      return uid !== undefined && uid !== before;
    }, 'a new VMI');

    assert.equal((await put('virtualmachines/web/stop')).status, 202);
    assert.equal(strategy('web').runStrategy, 'Halted');
    const restartHalted = await put('virtualmachines/web/restart');
    assert.equal(restartHalted.json.message, 'Operation cannot be fulfilled on virtualmachine.kubevirt.io "web": RunStategy Halted does not support manual restart requests');
  });

  it('a VM using spec.running is started and stopped through spec.running', async () => {
    t.emulator.store.create(KINDS.virtualMachine, vm('legacy', { running: false }));
    assert.equal((await put('virtualmachines/legacy/start')).status, 202);
    assert.deepEqual([strategy('legacy').running, strategy('legacy').runStrategy], [true, undefined]);
    assert.equal((await put('virtualmachines/legacy/stop')).status, 202);
    assert.equal(strategy('legacy').running, false);
  });

  it('answers what it cannot serve plainly: 404 for an unknown VM or route, 405 for another method, 501 for a guest stream', async () => {
    const missing = await put('virtualmachines/nope/start');
    assert.equal(missing.status, 404);
    assert.equal(missing.json.message, 'virtualmachine.kubevirt.io "nope" not found');
    assert.equal((await put('virtualmachines/web/teleport')).status, 404);
    const wrongMethod = await rawRequest(t, 'GET', `${BASE}/virtualmachines/web/start`);
    assert.equal(wrongMethod.status, 405);
    const console = await rawRequest(t, 'GET', `${BASE}/virtualmachineinstances/web/console`);
    assert.equal(console.status, 501);
    assert.equal(console.json.reason, 'NotImplemented');
    assert.match(console.json.message, /does not simulate virtualmachineinstances\/console/);
    assert.equal((await rawRequest(t, 'GET', `${BASE}/virtualmachineinstances/web/portforward/22`)).status, 501);
  });

  it('RBAC governs the group like any other: a service account without rights gets 403', async () => {
    const sa = await rawRequest(t, 'PUT', `${BASE}/virtualmachines/web/start`, '{}', { 'Content-Type': 'application/json', 'Impersonate-User': 'system:serviceaccount:default:nobody' });
    assert.equal(sa.status, 403);
    assert.match(sa.json.message, /cannot update resource "virtualmachines\/start" in API group "subresources\.kubevirt\.io" in the namespace "default"/);
  });
});

describe('KubeVirt subresources: run-strategy rules without controllers', function () {
  this.timeout(30_000);
  let t: TestEmulator;
  const put = (path: string) => rawRequest(t, 'PUT', `${BASE}/${path}`, '{}', { 'Content-Type': 'application/json' });

  before(async () => {
    t = await startTestEmulator({ controllers: false });
  });
  after(() => t?.stop());

  it('Always and Once refuse a manual start; Halted refuses stop without a VMI; Manual (state-change requests) is 501', async () => {
    for (const runStrategy of ['Always', 'Once']) {
      t.emulator.store.create(KINDS.virtualMachine, vm(runStrategy.toLowerCase(), { runStrategy }));
      const r = await put(`virtualmachines/${runStrategy.toLowerCase()}/start`);
      assert.equal(r.status, 409);
      assert.equal(r.json.message, `Operation cannot be fulfilled on virtualmachine.kubevirt.io "${runStrategy.toLowerCase()}": ${runStrategy} does not support manual start requests`);
    }
    t.emulator.store.create(KINDS.virtualMachine, vm('halted', { runStrategy: 'Halted' }));
    assert.equal((await put('virtualmachines/halted/stop')).json.message, 'Operation cannot be fulfilled on virtualmachine.kubevirt.io "halted": VM is not running');
    assert.equal((await put('virtualmachines/halted/restart')).status, 409);
    t.emulator.store.create(KINDS.virtualMachine, vm('manual', { runStrategy: 'Manual' }));
    assert.equal((await put('virtualmachines/manual/start')).status, 501);
  });
});
