/**
 * The capacity reads and snapshot against the emulator (docs/design/capacity.md): what they read, that the
 * predicted per-VM footprint is what the launcher pods really request, that the check's count matches where the
 * scheduler stops placing, that the reads are shared across callers, and that forbidden reads become warnings
 * naming the permission while the namespaced quota check still works.
 */
import assert from 'node:assert/strict';
import YAML from 'yaml';
import type { KubeObject } from '../../emulator/api/types';
import { KINDS } from '../../emulator/kinds';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { cachedReadCapacity, capacityOf, clearCapacityCache, fit, footprint, podRequests } from '../../provider/capacity';
import { eventually, startTestEmulator, TestEmulator } from '../support/emulator-harness';
import { sizedVm } from '../emulator/harvester-fixture';

const GIB = 2 ** 30;

describe('capacity reads against the emulator', function () {
  this.timeout(60_000);
  let t: TestEmulator;
  let client: HarvesterClient;

  before(async () => {
    t = await startTestEmulator({
      hosts: { count: 3, cpu: '8', memory: '32Gi', systemRequests: { cpu: '1', memory: '4Gi' } },
      harvester: { delays: { vmiSchedule: 5, vmiBoot: 5, guestAgent: 5 } },
    });
    client = await HarvesterClient.connect({ kubeconfig: t.emulator.kubeconfig });
  });
  beforeEach(() => clearCapacityCache());
  after(() => t?.stop());

  const kinds = () => t.emulator.harvester!.kinds;
  const running = (name: string) =>
    eventually(() => (t.emulator.store.get(kinds().vmi, 'default', name)?.status as { phase?: string } | undefined)?.phase === 'Running', `${name} Running`);

  it('reads hosts, their pods\' requests and the live settings', async () => {
    const c = await capacityOf(client, { namespace: 'default' });
    assert.deepEqual(c.hosts.map((h) => [h.name, h.zone, h.allocatable.cpuMillis, h.requested.cpuMillis, h.requested.memoryBytes, h.requestsFrom]), [
      ['harvester-node-0', 'us-east-1a', 7020, 1000, 4 * GIB, 'pods'],
      ['harvester-node-1', 'us-east-1b', 7020, 1000, 4 * GIB, 'pods'],
      ['harvester-node-2', 'us-east-1c', 7020, 1000, 4 * GIB, 'pods'],
    ]);
    assert.equal(c.hosts[0].freeVcpus, Math.floor((6020 * 1600) / 100 / 1000));
    assert.deepEqual(c.settings, { overcommit: { cpu: 1600, memory: 150, storage: 200 }, overcommitSource: 'default', overheadRatio: 1.5, harvesterVersion: 'v1.6.1', kubevirtMinor: 5 });
    assert.deepEqual(c.quotas, []);
    assert.equal(c.certain, true);
    assert.deepEqual(c.warnings, ['capacity: could not read Longhorn disks (nodes.longhorn.io in longhorn-system); storage is not estimated (not served by this cluster)']);
  });

  it('predicts exactly what the launcher pod requests and limits, at the default and at a changed overcommit', async () => {
    for (const [name, overcommit] of [['fp-a', undefined], ['fp-b', '{"cpu":1000,"memory":120,"storage":100}']] as const) {
      if (overcommit) t.emulator.store.patch(KINDS.setting, undefined, 'overcommit-config', 'merge', { value: overcommit });
      t.emulator.store.create(kinds().vm, sizedVm(name, 4, '8Gi'));
      await running(name);
      clearCapacityCache();
      const c = await capacityOf(client, { namespace: 'default' });
      const predicted = footprint({ cpu: 4, memoryBytes: 8 * GIB }, c.settings);
      const pod = (await client.pods.list({ namespace: 'default', labelSelector: `vm.kubevirt.io/name=${name}` })).items[0];
      const { cpu, memory, pods } = podRequests(pod);
      assert.deepEqual({ cpu, memory, pods }, predicted.requests, `${name} requests`);
      const launcher = c.launchers!.find((l) => l.vm === name)!;
      assert.equal(launcher.quotaUsage['limits.cpu'], predicted.limits.cpu);
      assert.equal(launcher.quotaUsage['limits.memory'], predicted.limits.memory);
    }
    t.emulator.store.patch(KINDS.setting, undefined, 'overcommit-config', 'merge', { value: null });
    for (const name of ['fp-a', 'fp-b']) t.emulator.store.delete(kinds().vm, 'default', name);
  });

  it('says how many VMs a zone takes, and the scheduler stops exactly there', async () => {
    await eventually(() => t.emulator.store.list(KINDS.pod, { namespace: 'default' }).items.length === 0, 'earlier VMs gone');
    const c = await capacityOf(client, { namespace: 'default' });
    const vm = { cpu: 2, memoryBytes: 6 * GIB };
    const verdict = fit(c, { pool: 'z', namespace: 'default', vm, create: [{ zone: 'us-east-1a', count: 20 }], rules: { clusterNetworks: ['mgmt'] } });
    const n = verdict.zones[0].fits;
    assert.ok(n > 0 && n < 20, `zone takes ${n}`);
    assert.match(verdict.errors[0], new RegExp(`^zone "us-east-1a" can take ${n} of 20 new VMs \\(2 vCPU / 6 GiB each = 130m CPU \\+ 4\\.4 GiB requested at overcommit cpu 1600% / memory 150%\\); zone us-east-1a: hosts harvester-node-0, `));
    const zoneA = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-east-1a'] }] }] } } };
    for (let i = 0; i <= n; i++) t.emulator.store.create(kinds().vm, sizedVm(`z-${i}`, 2, '6Gi', {}, { affinity: zoneA }));
    await eventually(() => {
      const vms = t.emulator.store.list(kinds().vm, { namespace: 'default' }).items.map((v) => (v.status as { printableStatus?: string } | undefined)?.printableStatus);
      return vms.filter((s) => s === 'Running').length === n && vms.filter((s) => s === 'ErrorUnschedulable').length === 1;
    }, `${n} running and 1 unschedulable`);
    for (let i = 0; i <= n; i++) t.emulator.store.delete(kinds().vm, 'default', `z-${i}`);
  });

  it('shares one set of reads across callers for a few seconds (per connection and namespace)', async () => {
    const before = t.emulator.journal.mark();
    const [a, b] = await Promise.all([cachedReadCapacity(client, { namespace: 'default' }), cachedReadCapacity(client, { namespace: 'default' })]);
    await cachedReadCapacity(client, { namespace: 'default' });
    assert.equal(a, b);
    const nodeLists = () => t.emulator.journal.entries({ since: before, verb: 'list', path: '/api/v1/nodes' }).length;
    assert.equal(nodeLists(), 1);
    assert.equal(t.emulator.journal.entries({ since: before, verb: 'list', path: '/api/v1/pods' }).length, 1);
    await cachedReadCapacity(client, { namespace: 'other' });
    assert.equal(nodeLists(), 2, 'another namespace reads again');
  });

  it('a namespace-scoped identity gets warnings naming each missing permission, and the quota check still refuses', async () => {
    const { store } = t.emulator;
    const obj = (o: KubeObject) => o;
    store.create(KINDS.serviceAccount, obj({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'tenant', namespace: 'default' } }));
    store.create(KINDS.role, obj({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'quota-reader', namespace: 'default' }, rules: [{ apiGroups: [''], resources: ['resourcequotas'], verbs: ['list', 'get'] }] }));
    store.create(KINDS.roleBinding, obj({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'tenant', namespace: 'default' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'quota-reader' }, subjects: [{ kind: 'ServiceAccount', name: 'tenant', namespace: 'default' }] }));
    store.create(KINDS.secret, obj({ apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/service-account-token', metadata: { name: 'tenant-token', namespace: 'default', annotations: { 'kubernetes.io/service-account.name': 'tenant' } } }));
    const secret = await eventually(() => (store.get(KINDS.secret, 'default', 'tenant-token')?.data as Record<string, string> | undefined)?.token, 'token filled');
    const kubeconfig = YAML.parse(t.emulator.kubeconfig);
    kubeconfig.users[0].user = { token: Buffer.from(secret, 'base64').toString('utf8') };
    const tenant = await HarvesterClient.connect({ kubeconfig: YAML.stringify(kubeconfig) });
    store.create(KINDS.resourceQuota, obj({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'compute', namespace: 'default' }, spec: { hard: { 'limits.cpu': '6' } } }));
    await eventually(() => store.get(KINDS.resourceQuota, 'default', 'compute')?.status, 'quota status');

    const c = await capacityOf(tenant, { namespace: 'default', storage: false });
    assert.equal(c.certain, false);
    for (const permission of ['list on nodes at the cluster scope', 'list on pods at the cluster scope', 'get on settings.harvesterhci.io']) {
      assert.ok(c.warnings.some((w) => w.includes(`forbidden: the credentials lack ${permission}`)), `${permission}: ${c.warnings.join('\n')}`);
    }
    const verdict = fit(c, { pool: 'p', namespace: 'default', vm: { cpu: 4, memoryBytes: 8 * GIB }, create: [{ count: 2 }] });
    assert.deepEqual(verdict.problems.map((p) => [p.scope, p.certain]), [['hosts', false], ['quota', true]]);
    assert.match(verdict.errors[0], /^namespace "default" quota "compute" can take 1 of 2 new VMs \(4 vCPU \/ 8 GiB each = 4015m limits\.cpu\); limits\.cpu: 6 of 6 left; limits\.cpu is the limit\./);
    store.delete(KINDS.resourceQuota, 'default', 'compute');
  });
});
