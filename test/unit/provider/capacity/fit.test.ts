/** fit(): the verdict and its message on hand-built snapshots (docs/design/capacity.md §fit, §messages). */
import { strict as assert } from 'node:assert';
import { fit, FitPlan } from '../../../../provider/capacity';
import { GIB, host, snapshot, V16, V18 } from './fixtures';

const VM = { cpu: 4, memoryBytes: 8 * GIB };
const plan = (extra: Partial<FitPlan> = {}): FitPlan => ({ pool: 'workers', namespace: 'default', vm: VM, create: [{ zone: 'b', count: 50 }], rules: { clusterNetworks: ['mgmt'] }, ...extra });

/** Zone b of the issue: h4, h5, h6 with 2.2 cores and 96 GiB free together, h7 cordoned; zone a elsewhere. */
function zoneB(settings = V18) {
  return snapshot(
    [
      host('h1', 'a', 20_000, 200),
      host('h4', 'b', 900, 32),
      host('h5', 'b', 810, 32),
      host('h6', 'b', 490, 32),
      host('h7', 'b', 25_000, 200, { schedulable: false }),
    ],
    settings,
  );
}

describe('capacity fit', () => {
  it('refuses 50 × 4 vCPU in a zone with 2.2 cores free, in the issue\'s shape', () => {
    const verdict = fit(zoneB(), plan());
    assert.equal(verdict.fits, false);
    assert.deepEqual(verdict.errors, [
      'zone "b" can take 5 of 50 new VMs (4 vCPU / 8 GiB each = 405m CPU + 5.8 GiB requested at overcommit cpu 1000% / memory 150%); ' +
        'zone b: hosts h4, h5, h6 (h7 cordoned), 22 vCPU (2.2 cores) and 96 GiB free; CPU is the limit. ' +
        'Options: lower the count in zone b to 5, add hosts or zones, raise overcommit-config cpu (now 1000%), give each VM fewer vCPUs, or free CPU on hosts h4, h5, h6.',
    ]);
    assert.deepEqual(verdict.zones[0].excluded, [{ host: 'h7', reason: 'cordoned' }]);
    assert.equal(verdict.zones[0].limiting, 'cpu');
  });

  it('packs per host: free CPU split across hosts takes fewer VMs than its sum would', () => {
    const split = snapshot([host('x', 'b', 800, 64), host('y', 'b', 800, 64), host('z', 'b', 600, 64)]);
    // 2200m in total would take 5 × 405m, but no VM spans hosts: 1 + 1 + 1
    assert.equal(fit(split, plan()).zones[0].fits, 3);
  });

  it('the live overcommit changes the verdict: 1600% takes what 1000% does not', () => {
    const few = plan({ create: [{ zone: 'b', count: 7 }] });
    assert.equal(fit(zoneB(V18), few).zones[0].fits, 5);
    const at1600 = fit(zoneB({ ...V18, overcommit: { cpu: 1600, memory: 150, storage: 200 } }), few);
    assert.equal(at1600.fits, true, at1600.errors.join('\n'));
    // 255m each: 3 + 3 + 1
    assert.equal(at1600.zones[0].fits, 7);
  });

  it('memory can be the limit, and then the options talk about memory', () => {
    const roomy = snapshot([host('h4', 'b', 30_000, 12), host('h5', 'b', 30_000, 12)]);
    const verdict = fit(roomy, plan({ create: [{ zone: 'b', count: 5 }] }));
    // 5.8 GiB each: two per host
    assert.equal(verdict.zones[0].fits, 4);
    assert.equal(verdict.zones[0].limiting, 'memory');
    assert.match(verdict.errors[0], /; memory is the limit\. Options: lower the count in zone b to 4, add hosts or zones, give each VM less memory, raise overcommit-config memory \(now 150%\)/);
  });

  it('excludes hosts that are not ready, tainted, off the VM\'s cluster network or outside its affinity, saying why', () => {
    const snap = snapshot([
      host('h1', 'b', 30_000, 100, { ready: false }),
      host('h2', 'b', 30_000, 100, { taints: ['node-role.kubernetes.io/etcd=true:NoExecute'] }),
      host('h3', 'b', 30_000, 100, { labels: { 'kubevirt.io/schedulable': 'true', 'topology.kubernetes.io/zone': 'b' } }),
      host('h4', 'b', 30_000, 100, { labels: { 'kubevirt.io/schedulable': 'true', 'network.harvesterhci.io/mgmt': 'true', 'network.harvesterhci.io/vlan2': 'true' } }),
    ]);
    const verdict = fit(snap, plan({ create: [{ zone: 'b', count: 1 }], rules: { clusterNetworks: ['mgmt'], nodeSelectorTerms: [{ matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }] }] } }));
    assert.deepEqual(verdict.zones[0].excluded, [
      { host: 'h1', reason: 'not ready' },
      { host: 'h2', reason: 'tainted node-role.kubernetes.io/etcd=true:NoExecute' },
      { host: 'h3', reason: 'not on cluster network mgmt' },
      { host: 'h4', reason: "outside the pool's node affinity" },
    ]);
    assert.match(verdict.errors[0], /^zone "b" can take 0 of 1 new VMs .*; zone b: no eligible host \(h1 not ready, h2 tainted node-role\.kubernetes\.io\/etcd=true:NoExecute, h3 not on cluster network mgmt, h4 outside the pool's node affinity\), 0 vCPU \(0 cores\) and 0 GiB free; no host is eligible\. Options: /);
    const tolerated = fit(snap, plan({ create: [{ zone: 'b', count: 1 }], rules: { clusterNetworks: ['mgmt'], tolerations: [{ key: 'node-role.kubernetes.io/etcd', operator: 'Exists' }] } }));
    assert.deepEqual(tolerated.zones[0].eligible, ['h2', 'h4'], 'tolerating the taint (and no affinity) admits h2 and h4');
  });

  it('a roll needs room for count + maxSurge at its peak; the VMs it replaces give theirs back', () => {
    // Three 4 vCPU VMs run in zone b; each host has room for exactly one more (405m free).
    const snap = snapshot([host('h4', 'b', 405, 64), host('h5', 'b', 405, 64), host('h6', 'b', 405, 64)], V18, {
      launchers: ['w-0', 'w-1', 'w-2'].map((vm, i) => ({ vm, host: `h${4 + i}`, requests: { cpuMillis: 405, memoryBytes: 6 * GIB, pods: 1 }, quotaUsage: {} })),
    });
    // Resize to 8 vCPU (805m each): 3 replacements + 1 old VM still alive at the peak.
    const resize = plan({ vm: { cpu: 8, memoryBytes: 8 * GIB }, previousVm: VM, create: [{ zone: 'b', count: 3 }], surge: [{ zone: 'b', count: 1 }], release: ['w-0', 'w-1', 'w-2'] });
    const verdict = fit(snap, resize);
    // 810m per host once the old VMs go; the surviving old VM takes 405m of one host: 2 of 3 fit
    assert.equal(verdict.zones[0].fits, 2);
    assert.match(verdict.errors[0], /can take 2 of 3 new VMs \(8 vCPU \/ 8 GiB each = 805m CPU \+ 5\.9 GiB requested at overcommit cpu 1000% \/ memory 150%; and room for 1 VM of the old size at the roll's peak\)/);
    assert.equal(fit(snap, { ...resize, surge: [] }).fits, true, 'without the surge the three fit');
  });

  it('a quota on limits refuses while the hosts have room; counted on the launcher pods\' limits', () => {
    const snap = snapshot([host('h1', undefined, 30_000, 200)], V18, {
      quotas: [{ name: 'compute', hard: { 'limits.cpu': 16_000, 'limits.memory': 64 * GIB }, used: { 'limits.cpu': 8030, 'limits.memory': 17 * GIB } }],
    });
    const verdict = fit(snap, plan({ create: [{ count: 5 }] }));
    assert.ok(verdict.zones[0].fits >= 5, 'the hosts have room');
    assert.deepEqual(verdict.errors, [
      'namespace "default" quota "compute" can take 1 of 5 new VMs (4 vCPU / 8 GiB each = 4015m limits.cpu + 8.5 GiB limits.memory); limits.cpu: 7970m of 16 left; limits.cpu is the limit. ' +
        "Options: lower the count to 1, raise the quota's limits.cpu, or stop other VMs in namespace default.",
    ]);
  });

  it('an uncertain snapshot (a read was forbidden) only warns about hosts, but the quota check still refuses', () => {
    const snap = snapshot([host('h4', 'b', 900, 32)], V18, {
      certain: false,
      warnings: ['capacity: could not read the pods\' requests (pods in all namespaces) (forbidden: the credentials lack list on pods at the cluster scope)'],
      quotas: [{ name: 'q', hard: { 'limits.cpu': 4000 }, used: {} }],
    });
    const verdict = fit(snap, plan({ create: [{ zone: 'b', count: 3 }] }));
    assert.equal(verdict.fits, false);
    assert.equal(verdict.problems.length, 2);
    assert.deepEqual(verdict.problems.map((p) => [p.scope, p.certain]), [['hosts', false], ['quota', true]]);
    assert.equal(verdict.errors.length, 1);
    assert.match(verdict.errors[0], /^namespace "default" quota "q" can take 0 of 3 new VMs/);
    assert.ok(verdict.warnings.some((w) => /forbidden: the credentials lack list on pods at the cluster scope/.test(w)));
    assert.ok(verdict.warnings.some((w) => /^capacity \(uncertain: see the warnings above\): zone "b" can take 2 of 3/.test(w)));
  });

  it('without zones the eligible hosts are one group; v1.6 settings make the VM smaller', () => {
    const verdict = fit(snapshot([host('h1', 'a', 1000, 100), host('h2', 'c', 1000, 100)], V16), plan({ create: [{ count: 10 }] }));
    // 255m each at 1600%: 3 + 3
    assert.equal(verdict.zones[0].fits, 6);
    assert.match(verdict.errors[0], /^the eligible hosts can take 6 of 10 new VMs \(4 vCPU \/ 8 GiB each = 255m CPU \+ 5\.8 GiB requested at overcommit cpu 1600% \/ memory 150%\); hosts h1, h2, 32 vCPU \(2 cores\) and 200 GiB free; CPU is the limit\. Options: lower the count to 6, add hosts, /);
  });

  it('fits quietly when everything fits', () => {
    const verdict = fit(zoneB(), plan({ create: [{ zone: 'a', count: 10 }] }));
    assert.equal(verdict.fits, true);
    assert.deepEqual(verdict.errors, []);
  });
});
