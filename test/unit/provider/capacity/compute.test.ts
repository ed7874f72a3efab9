/** computeCapacity() and peakOfRoll(): the snapshot from reads, and a pool's peak demand (tables). */
import { strict as assert } from 'node:assert';
import { CapacityReads, computeCapacity, peakOfRoll, podRequests } from '../../../../provider/capacity';
import type { Node, Pod } from '../../../../provider/client/objects';

function node(name: string, zone: string, extra: Partial<Node> = {}): Node {
  return {
    metadata: { name, labels: { 'topology.kubernetes.io/zone': zone, 'kubevirt.io/schedulable': 'true' }, ...(extra.metadata ?? {}) },
    spec: extra.spec ?? {},
    status: { allocatable: { cpu: '30900m', memory: '128Gi', pods: '200' }, conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

function pod(host: string, cpu: string, memory: string, extra: Partial<Pod> = {}): Pod {
  return { metadata: { name: `p-${host}-${cpu}`, namespace: 'default' }, spec: { nodeName: host, containers: [{ name: 'c', resources: { requests: { cpu, memory } } }] }, status: { phase: 'Running' }, ...extra };
}

function reads(extra: Partial<CapacityReads> = {}): CapacityReads {
  return {
    nodes: [node('h1', 'a'), node('h2', 'a'), node('h3', 'b', { spec: { unschedulable: true, taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }] } })],
    pods: [pod('h1', '1', '4Gi'), pod('h1', '500m', '1Gi'), pod('h2', '250m', '512Mi')],
    settings: { overcommit: { metadata: { name: 'overcommit-config' }, default: '{"cpu":1600,"memory":150,"storage":200}' }, overheadRatio: null, serverVersion: { metadata: { name: 'server-version' }, value: 'v1.6.1' } },
    settingsRead: { overcommit: true, overheadRatio: true, serverVersion: true },
    warnings: [],
    readAt: '2026-11-27T00:00:00.000Z',
    ...extra,
  };
}

describe('capacity snapshot', () => {
  it('per host: allocatable − Σ pod requests, free vCPUs at the live overcommit; per zone: the sums', () => {
    const c = computeCapacity(reads());
    const h1 = c.hosts.find((h) => h.name === 'h1')!;
    assert.deepEqual(h1.requested, { cpuMillis: 1500, memoryBytes: 5 * 2 ** 30, pods: 2 });
    assert.deepEqual(h1.free, { cpuMillis: 29_400, memoryBytes: 123 * 2 ** 30, pods: 198 });
    assert.equal(h1.freeVcpus, 470);
    assert.equal(c.hosts.find((h) => h.name === 'h3')!.schedulable, false);
    assert.deepEqual(c.hosts.find((h) => h.name === 'h3')!.taints, ['node.kubernetes.io/unschedulable:NoSchedule']);
    assert.deepEqual(c.zones.map((z) => [z.zone, z.hosts, z.free.cpuMillis]), [['a', ['h1', 'h2'], 29_400 + 30_650], ['b', ['h3'], 30_900]]);
    assert.equal(c.settings.overcommitSource, 'default');
    assert.equal(c.settings.overheadRatio, undefined, 'a missing ratio setting is off');
    assert.equal(c.certain, true);
  });

  it('counts init containers as kube-scheduler does (the larger of their max and the containers\' sum) and pod overhead', () => {
    const p = pod('h1', '100m', '100Mi');
    p.spec!.initContainers = [{ name: 'init', resources: { requests: { cpu: '300m', memory: '10Mi' } } }];
    p.spec!.overhead = { cpu: '10m' };
    assert.deepEqual(podRequests(p), { cpu: 310, memory: 100 * 2 ** 20, pods: 1 });
  });

  it('falls back to Harvester\'s pod-requests annotation when pods cannot be listed, else warns that free is an upper bound', () => {
    const annotated = node('h1', 'a', { metadata: { name: 'h1', annotations: { 'management.cattle.io/pod-requests': '{"cpu":"1360m","memory":"2240Mi","pods":"12"}' } } });
    const c = computeCapacity(reads({ nodes: [annotated, node('h2', 'a')], pods: undefined, warnings: ['capacity: could not read pods'] }));
    assert.equal(c.hosts[0].requestsFrom, 'annotation');
    assert.equal(c.hosts[0].requested.cpuMillis, 1360);
    assert.equal(c.hosts[1].requestsFrom, 'unknown');
    assert.equal(c.certain, false);
    assert.ok(c.warnings.some((w) => /what the pods request is unknown on h2: free capacity shown as allocatable \(an upper bound\)/.test(w)));
  });

  it('an unreadable overcommit-config is assumed from the version and makes the snapshot uncertain', () => {
    const c = computeCapacity(reads({ settings: { serverVersion: { metadata: { name: 'server-version' }, value: 'v1.8.0' } }, settingsRead: { overcommit: false, overheadRatio: false, serverVersion: true } }));
    assert.deepEqual(c.settings.overcommit, { cpu: 1000, memory: 150, storage: 100 });
    assert.equal(c.settings.overcommitSource, 'assumed');
    assert.equal(c.settings.overheadRatio, 1.5);
    assert.equal(c.certain, false);
    assert.ok(c.warnings.some((w) => /overcommit-config could not be read; assumed cpu 1000% \/ memory 150% \(the v1\.8\.0 default\)/.test(w)));
  });

  it('Longhorn disks: what new replicas may still take under over-provisioning', () => {
    const c = computeCapacity(
      reads({
        longhorn: {
          overProvisioning: 100,
          nodes: [
            {
              metadata: { name: 'h1' },
              spec: { disks: { d1: { path: '/var/lib/harvester/defaultdisk', allowScheduling: true, storageReserved: 100 } } },
              status: { diskStatus: { d1: { storageMaximum: 1100, storageScheduled: 300, storageAvailable: 900, conditions: [{ type: 'Schedulable', status: 'True' }] } } },
            },
          ],
        },
      }),
    );
    assert.deepEqual(c.hosts[0].storage, [{ host: 'h1', disk: 'd1', path: '/var/lib/harvester/defaultdisk', schedulable: true, maximumBytes: 1100, reservedBytes: 100, scheduledBytes: 300, availableBytes: 900, provisionableBytes: 700 }]);
    assert.equal(c.hosts[1].storage, undefined);
  });

  describe('peakOfRoll', () => {
    const members = (n: number, zones: string[], outdated = false) => [...Array(n).keys()].map((i) => ({ name: `w-${i}`, zone: zones[i % zones.length], outdated }));
    const rolling = { maxSurge: 1, maxUnavailable: 0 };
    const table: [string, Parameters<typeof peakOfRoll>[0], ReturnType<typeof peakOfRoll>][] = [
      ['a new pool spreads over its zones', { count: 5, zones: ['a', 'b'], existing: [], rolling }, { create: [{ zone: 'a', count: 3 }, { zone: 'b', count: 2 }], surge: [], release: [] }],
      ['scale-up adds only the missing VMs', { count: 4, zones: [], existing: members(3, ['a']), rolling }, { create: [{ count: 1 }], surge: [], release: [] }],
      ['a roll replaces every outdated VM, keeps maxSurge old ones at the peak, frees the rest', { count: 3, zones: [], existing: members(3, [], true), rolling: { maxSurge: 2, maxUnavailable: 0 } }, { create: [{ count: 3 }], surge: [{ count: 2 }], release: ['w-0', 'w-1', 'w-2'] }],
      ['scale-down frees outdated VMs first, then the last ones', { count: 2, zones: [], existing: [{ name: 'w-0', outdated: false }, { name: 'w-1', outdated: true }, { name: 'w-2', outdated: false }], rolling }, { create: [], surge: [], release: ['w-1'] }],
      ['maxSurge 0 (delete first): no old VM at the peak', { count: 2, zones: ['a'], existing: members(2, ['a'], true), rolling: { maxSurge: 0, maxUnavailable: 1 } }, { create: [{ zone: 'a', count: 2 }], surge: [], release: ['w-0', 'w-1'] }],
    ];
    for (const [name, input, want] of table) it(name, () => assert.deepEqual(peakOfRoll(input), want));
  });
});
