/**
 * HarvesterMachinePool's capacity check (issue 35) through Pulumi's real dynamic-provider host, against an emulator
 * of six small hosts (8 cores, 32 GiB, 1 core and 4 GiB taken by Harvester's own pods; two hosts per zone) on
 * Harvester v1.6's default overcommit (cpu 1600%, memory 150%):
 * - a pool that cannot fit is refused at preview in the issue's message shape, and nothing is written (the emulator's
 *   request journal holds no write);
 * - overcommit-config 1600 vs 1000, a cordoned host, a roll's count + maxSurge, a ResourceQuota on limits each change
 *   the verdict; a namespace-scoped token gets warnings naming what it may not read, and the quota check still holds;
 * - when someone takes the room between preview and up, up's readiness wait fails at once with kube-scheduler's own
 *   message and the numbers (a partial failure), and destroy leaves nothing.
 * A new host process stands for a new `pulumi` run wherever the cluster changed: one process shares its capacity
 * reads for a few seconds, as one preview's resources do.
 */
import assert from 'node:assert/strict';
import YAML from 'yaml';
import type { KubeObject } from '../../emulator/api/types';
import { KINDS } from '../../emulator/kinds';
import { DynamicHostError, type DynamicHost } from '../../runner/dynamic-host';
import { sizedVm } from '../emulator/harvester-fixture';
import { eventually } from '../support/emulator-harness';
import { startEngineHarness, until, type EngineHarness } from './engine-support';

/** One VM of 8 vCPUs and 2 GiB: 505m CPU at 1600% (11 per host), 805m at 1000% (7 per host); memory never the limit. */
const CPU_BOUND = { cpu: 8, memory: '2Gi' };
const WRITE_VERBS = ['create', 'update', 'patch', 'delete', 'deletecollection'];
const hostname = (host: string) => ({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [host] }] }] } } });

describe('engine contract: machine pool capacity at preview and during up', function () {
  this.timeout(180_000);
  let h: EngineHarness;
  let text: string;
  const hostLines: string[] = [];
  before(async () => {
    h = await startEngineHarness({
      onHostLine: (line) => hostLines.push(line),
      emulator: { hosts: { count: 6, cpu: '8', memory: '32Gi', systemRequests: { cpu: '1', memory: '4Gi' } } },
    });
    text = await h.providerText('machinePool');
  });
  after(async () => h?.stop());

  const urn = (pool: string) => h.urn('HarvesterMachinePool', pool);
  /** A `pulumi` run of its own: no capacity read shared with an earlier check. */
  const freshHost = (): Promise<DynamicHost> => h.newHost();
  const writesSince = (mark: number) => h.t.emulator.journal.entries({ since: mark }).filter((e) => WRITE_VERBS.includes(e.verb ?? ''));
  const poolObjects = async (pool: string) => {
    const opts = { namespace: 'default', labelSelector: `harvester-iac.io/resource-name=${pool}` };
    const names = (items: { metadata: { name?: string } }[]) => items.map((i) => i.metadata.name);
    return [...names((await h.client.virtualMachines.list(opts)).items), ...names((await h.client.secrets.list(opts)).items), ...names((await h.client.persistentVolumeClaims.list(opts)).items)];
  };
  const warningsSince = (from: number) => hostLines.slice(from).filter((l) => l.startsWith('warning: HarvesterMachinePool: '));

  it('refuses 50 VMs that a zone can take 8 of, at preview, in the issue\'s shape, with no write to the cluster', async () => {
    const pool = 'too-big';
    const mark = h.t.emulator.journal.mark();
    const checked = await h.host.check(urn(pool), {}, h.poolInputs(pool, text, { count: 50, cpu: 4, memory: '8Gi', zones: ['us-east-1b'] }));
    assert.deepEqual(checked.failures.map((f) => f.property), ['count']);
    assert.equal(
      checked.failures[0].reason,
      'zone "us-east-1b" can take 8 of 50 new VMs (4 vCPU / 8 GiB each = 255m CPU + 5.8 GiB requested at overcommit cpu 1600% / memory 150%); ' +
        'zone us-east-1b: hosts harvester-node-1, harvester-node-4, 192 vCPU (12.04 cores) and 56 GiB free; memory is the limit. ' +
        'Options: lower the count in zone us-east-1b to 8, add hosts or zones, give each VM less memory, raise overcommit-config memory (now 150%), or free memory on hosts harvester-node-1, harvester-node-4.',
    );
    assert.deepEqual(writesSince(mark).map((e) => `${e.verb} ${e.path}`), [], 'preview wrote nothing');
    // The capacity check's own reads, whatever the pool's size: one LIST of the pool's VMs (shared with the name
    // check, whose GET per planned name is its own), of the pods and of the namespace's quotas.
    const lists = (path: RegExp) => h.t.emulator.journal.entries({ since: mark, verb: 'list', path }).length;
    assert.deepEqual([lists(/\/virtualmachines$/), lists(/^\/api\/v1\/pods$/), lists(/\/resourcequotas$/)], [1, 1, 1]);
    // Another pool of the same preview (the same host process) shares those reads.
    const other = await h.host.check(urn(`${pool}-too`), {}, h.poolInputs(`${pool}-too`, text, { count: 50, cpu: 4, memory: '8Gi', zones: ['us-east-1a'] }));
    assert.match(other.failures[0]?.reason ?? '', /^zone "us-east-1a" can take 8 of 50 new VMs/);
    assert.deepEqual([lists(/^\/api\/v1\/pods$/), lists(/\/resourcequotas$/)], [1, 1], 'read once per preview');
    assert.deepEqual(await poolObjects(pool), []);
  });

  it('changes its verdict with overcommit-config: 20 VMs of 8 vCPUs fit a zone at cpu 1600%, not at 1000%', async () => {
    const pool = 'overcommit';
    const program = h.poolInputs(pool, text, { count: 20, ...CPU_BOUND, zones: ['us-east-1c'] });
    assert.deepEqual((await freshHost().then((host) => host.check(urn(pool), {}, program))).failures, [], '11 per host at 1600%');
    await h.client.settings.mergePatch('overcommit-config', { value: '{"cpu":1000,"memory":150,"storage":200}' });
    try {
      const refused = await (await freshHost()).check(urn(pool), {}, program);
      assert.deepEqual(refused.failures.map((f) => f.property), ['count']);
      assert.match(refused.failures[0].reason, /^zone "us-east-1c" can take 14 of 20 new VMs \(8 vCPU \/ 2 GiB each = 805m CPU \+ [\d.]+ GiB requested at overcommit cpu 1000% \/ memory 150%\); zone us-east-1c: hosts harvester-node-2, harvester-node-5, .*; CPU is the limit\. Options: lower the count in zone us-east-1c to 14, .*raise overcommit-config cpu \(now 1000%\)/);
    } finally {
      await h.client.settings.mergePatch('overcommit-config', { value: null });
    }
  });

  it('leaves a cordoned host out: the zone\'s other host alone cannot take 20', async () => {
    const pool = 'cordoned';
    const program = h.poolInputs(pool, text, { count: 20, ...CPU_BOUND, zones: ['us-east-1a'] });
    assert.deepEqual((await (await freshHost()).check(urn(pool), {}, program)).failures, []);
    await h.client.nodes.mergePatch('harvester-node-3', { spec: { unschedulable: true } });
    try {
      const refused = await (await freshHost()).check(urn(pool), {}, program);
      assert.deepEqual(refused.failures.map((f) => f.property), ['count']);
      assert.match(refused.failures[0].reason, /^zone "us-east-1a" can take 11 of 20 new VMs .*; zone us-east-1a: hosts harvester-node-0 \(harvester-node-3 cordoned\), .*; CPU is the limit\./);
    } finally {
      await h.client.nodes.mergePatch('harvester-node-3', { spec: { unschedulable: null } });
    }
  });

  it('a roll needs count + maxSurge: 11 VMs filling a host are refused a roll with maxSurge 1, allowed one with maxUnavailable 1 instead', async () => {
    const pool = 'rolling';
    const program = h.poolInputs(pool, text, { count: 11, ...CPU_BOUND, affinity: hostname('harvester-node-2') });
    const checked = await h.host.check(urn(pool), {}, program);
    assert.deepEqual(checked.failures, [], 'eleven fit the host exactly');
    const created = await h.host.create(urn(pool), checked.inputs);
    try {
      const host = await freshHost();
      const rolled = { ...program, userData: '#cloud-config\nhostname: rolled\n' };
      const refused = await host.check(urn(pool), checked.inputs, rolled);
      assert.deepEqual(refused.failures.map((f) => f.property), ['count']);
      assert.match(refused.failures[0].reason, /^the eligible hosts can take 10 of 11 new VMs \(8 vCPU \/ 2 GiB each = 505m CPU \+ [\d.]+ GiB requested at overcommit cpu 1600% \/ memory 150%; and room for 1 VM of the old size at the roll's peak\); hosts harvester-node-2 \(harvester-node-0 outside the pool's node affinity, /);
      const oneAtATime = await host.check(urn(pool), checked.inputs, { ...rolled, rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } });
      assert.deepEqual(oneAtATime.failures, [], 'count + 0 fits');
      // A VM lost out of band that no host could take again: an unchanged program still previews (trap 10 of docs/design/dynamic-host-contract.md: up has
      // nothing to do unless a refresh recorded the loss, and then its wait fails at once), a changed one is refused.
      await h.client.virtualMachines.delete(`${pool}-10`, { namespace: 'default' });
      await until(async () => !(await h.client.virtualMachines.get(`${pool}-10`, 'default')));
      await h.client.nodes.mergePatch('harvester-node-2', { spec: { unschedulable: true } });
      try {
        const later = await freshHost();
        assert.deepEqual((await later.check(urn(pool), checked.inputs, program)).failures, []);
        const changed = await later.check(urn(pool), checked.inputs, { ...program, labels: { team: 'blue' } });
        assert.deepEqual(changed.failures.map((f) => f.property), ['affinity']);
        assert.match(changed.failures[0].reason, /^the eligible hosts can take 0 of 1 new VMs .*; no eligible host \(harvester-node-0 outside the pool's node affinity, .*harvester-node-2 cordoned/);
      } finally {
        await h.client.nodes.mergePatch('harvester-node-2', { spec: { unschedulable: null } });
      }
    } finally {
      await h.host.delete(urn(pool), created.id, created.properties);
    }
    assert.deepEqual(await poolObjects(pool), []);
  });

  it('refuses on a ResourceQuota\'s limits while the hosts have room', async () => {
    const pool = 'quota';
    h.t.emulator.store.create(KINDS.resourceQuota, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'compute', namespace: 'default' }, spec: { hard: { 'limits.cpu': '10' } } } as KubeObject);
    try {
      await eventually(() => h.t.emulator.store.get(KINDS.resourceQuota, 'default', 'compute')?.status, 'quota status');
      const refused = await (await freshHost()).check(urn(pool), {}, h.poolInputs(pool, text, { count: 3, cpu: 4, memory: '2Gi' }));
      assert.deepEqual(refused.failures, [{
        property: 'count',
        reason: 'namespace "default" quota "compute" can take 2 of 3 new VMs (4 vCPU / 2 GiB each = 4015m limits.cpu); limits.cpu: 10 of 10 left; limits.cpu is the limit. ' +
          'Options: lower the count to 2, raise the quota\'s limits.cpu, or stop other VMs in namespace default.',
      }]);
    } finally {
      h.t.emulator.store.delete(KINDS.resourceQuota, 'default', 'compute');
    }
  });

  it('a namespace-scoped token: warnings name each read it may not make, and the quota check still refuses', async () => {
    const { store } = h.t.emulator;
    const obj = (o: Record<string, unknown>) => o as KubeObject;
    const rules = [
      { apiGroups: [''], resources: ['secrets', 'persistentvolumeclaims', 'resourcequotas'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['kubevirt.io'], resources: ['virtualmachines', 'virtualmachineinstances'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['harvesterhci.io'], resources: ['virtualmachineimages', 'keypairs'], verbs: ['get'] },
      { apiGroups: ['k8s.cni.cncf.io'], resources: ['network-attachment-definitions'], verbs: ['get'] },
    ];
    store.create(KINDS.serviceAccount, obj({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'tenant', namespace: 'default' } }));
    store.create(KINDS.role, obj({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'tenant', namespace: 'default' }, rules }));
    store.create(KINDS.roleBinding, obj({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'tenant', namespace: 'default' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'tenant' }, subjects: [{ kind: 'ServiceAccount', name: 'tenant', namespace: 'default' }] }));
    // What the pool's own checks read outside the namespace: the namespace itself and the hosts (zones, cluster networks).
    store.create(KINDS.clusterRole, obj({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'tenant-hosts' }, rules: [{ apiGroups: [''], resources: ['namespaces'], verbs: ['get'] }, { apiGroups: [''], resources: ['nodes'], verbs: ['list'] }] }));
    store.create(KINDS.clusterRoleBinding, obj({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'tenant-hosts' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'tenant-hosts' }, subjects: [{ kind: 'ServiceAccount', name: 'tenant', namespace: 'default' }] }));
    store.create(KINDS.secret, obj({ apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/service-account-token', metadata: { name: 'tenant-token', namespace: 'default', annotations: { 'kubernetes.io/service-account.name': 'tenant' } } }));
    const token = await eventually(() => (store.get(KINDS.secret, 'default', 'tenant-token')?.data as Record<string, string> | undefined)?.token, 'token filled');
    const kubeconfig = YAML.parse(h.t.emulator.kubeconfig);
    kubeconfig.users[0].user = { token: Buffer.from(token, 'base64').toString('utf8') };
    const tenant = { kubeconfig: YAML.stringify(kubeconfig) };
    const pool = 'tenant';
    const from = hostLines.length;
    const host = await freshHost();

    // Without a quota the hosts' verdict cannot be trusted (their pods and the settings are unreadable): a warning.
    const warned = await host.check(urn(pool), {}, h.poolInputs(pool, text, { ...tenant, count: 50, cpu: 4, memory: '8Gi', zones: ['us-east-1b'] }));
    assert.deepEqual(warned.failures, []);
    const lines = warningsSince(from).join('\n');
    for (const permission of ['list on pods at the cluster scope', 'get on settings.harvesterhci.io']) {
      assert.ok(lines.includes(`pool default/tenant: capacity: could not read `) && lines.includes(`forbidden: the credentials lack ${permission}`), `${permission}:\n${lines}`);
    }
    assert.match(lines, /pool default\/tenant: capacity \(uncertain: see the warnings above\): zone "us-east-1b" can take \d+ of 50 new VMs/);

    store.create(KINDS.resourceQuota, obj({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'compute', namespace: 'default' }, spec: { hard: { 'limits.cpu': '10' } } }));
    try {
      await eventually(() => store.get(KINDS.resourceQuota, 'default', 'compute')?.status, 'quota status');
      const refused = await (await freshHost()).check(urn(pool), {}, h.poolInputs(pool, text, { ...tenant, count: 3, cpu: 4, memory: '2Gi' }));
      assert.deepEqual(refused.failures.map((f) => f.property), ['count']);
      assert.match(refused.failures[0].reason, /^namespace "default" quota "compute" can take 2 of 3 new VMs \(4 vCPU \/ 2 GiB each = 4015m limits\.cpu\); limits\.cpu: 10 of 10 left;/);
    } finally {
      store.delete(KINDS.resourceQuota, 'default', 'compute');
    }
  });

  it('when someone takes the room after preview, up fails at once with the scheduler\'s message and the numbers; destroy leaves nothing', async () => {
    const pool = 'squeezed';
    const program = h.poolInputs(pool, text, { count: 3, ...CPU_BOUND, affinity: hostname('harvester-node-5'), timeouts: { create: '10m', update: '10m', delete: '60s' } });
    const checked = await h.host.check(urn(pool), {}, program);
    assert.deepEqual(checked.failures, [], 'at preview the host has room for 11');
    // Another team's ten VMs land on the host between preview and up: room for one more of ours is left.
    const kinds = h.t.emulator.harvester!.kinds;
    const theirs = Array.from({ length: 10 }, (_, i) => `other-team-${i}`);
    for (const name of theirs) h.t.emulator.store.create(kinds.vm, sizedVm(name, 8, '2Gi', {}, { affinity: hostname('harvester-node-5') }));
    try {
      await eventually(() => theirs.every((n) => (h.t.emulator.store.get(kinds.vm, 'default', n)?.status as { printableStatus?: string } | undefined)?.printableStatus === 'Running'), 'their VMs running');
      // The create's 10-minute wait would outlast this test's timeout: only the scheduler's verdict can end it in time.
      const err = await h.host.create(urn(pool), checked.inputs).then(() => undefined, (e: unknown) => e);
      assert.ok(err instanceof DynamicHostError && err.initFailure, `a partial failure, got ${String(err)}`);
      // At once: as soon as one VM's verdict is in, the others may still be waiting for theirs; all are fitted anew.
      assert.match(err.message, /^Machine pool default\/squeezed: (1 VM|2 VMs) cannot be placed on any host \(the scheduler's reason below\), so waiting for (it|them) would only run out the timeout:\n {2}- VirtualMachine default\/squeezed-\d: 0\/6 nodes are available: 1 Insufficient cpu, 5 node\(s\) didn't match Pod's node affinity\/selector\. preemption: 0\/6 nodes are available: 1 No preemption victims found for incoming pod, 5 Preemption is not helpful for scheduling\.\.\n/);
      assert.match(err.message, /\nCapacity now:\n {2}- the eligible hosts can take 0 of 2 new VMs \(8 vCPU \/ 2 GiB each = 505m CPU \+ [\d.]+ GiB requested at overcommit cpu 1600% \/ memory 150%\); hosts harvester-node-5 \(.*\), 7 vCPU \(0\.465 cores\) and [\d.]+ GiB free; CPU is the limit\. Options: lower the count to 1, /);
      assert.equal(err.message.includes('WaitTimeout'), false);
      const recorded = err.initFailure.properties;
      assert.deepEqual((recorded.machines as { name: string }[]).map((m) => m.name), ['squeezed-0', 'squeezed-1', 'squeezed-2'], 'every VM made is recorded');
      await h.host.delete(urn(pool), err.initFailure.id, recorded);
      assert.deepEqual(await poolObjects(pool), [], 'destroy leaves nothing');
    } finally {
      for (const name of theirs) h.t.emulator.store.delete(kinds.vm, 'default', name);
    }
  });
});
