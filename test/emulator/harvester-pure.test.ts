/** Pure parts of the simulated Harvester: cloud-init guest-agent detection, IPAM math, pool selection, scheduling. */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { KubeObject } from '../../emulator/api/types';
import { cloudConfigRunsGuestAgent } from '../../emulator/controllers/guest-agent';
import { allocateAddress, makeRange, makeRangeSet, rangeSetContains, totalOf } from '../../emulator/controllers/ipam';
import { formatIPv4 } from '../../emulator/util/ipv4';
import { selectPool } from '../../emulator/controllers/ippool-selector';
import { placeVmi } from '../../emulator/controllers/scheduler';

describe('simulated Harvester: guest agent detection (cloud-init is parsed, not grepped)', () => {
  const cases: Record<string, { userData: string | undefined; want: boolean }> = {
    'docs snippet (list-form runcmd)': {
      userData: "#cloud-config\npackage_update: true\npackages: [qemu-guest-agent]\nruncmd:\n  - [systemctl, enable, '--now', qemu-guest-agent.service]\n",
      want: true,
    },
    'string runcmd with enable --now': { userData: '#cloud-config\npackages:\n  - qemu-guest-agent\nruncmd:\n  - systemctl enable --now qemu-guest-agent\n', want: true },
    'string runcmd with start, in a && chain, with sudo': {
      userData: '#cloud-config\npackages:\n  - curl\n  - qemu-guest-agent\nruncmd:\n  - apt-get update && sudo systemctl start qemu-guest-agent.service\n',
      want: true,
    },
    'jinja header before #cloud-config': { userData: '## template: jinja\n#cloud-config\npackages: [qemu-guest-agent]\nruncmd: ["systemctl restart qemu-guest-agent"]\n', want: true },
    'package with version pair': { userData: '#cloud-config\npackages:\n  - [qemu-guest-agent, "1:6.2"]\nruncmd:\n  - systemctl enable --now qemu-guest-agent\n', want: true },
    'installed but never started': { userData: '#cloud-config\npackages: [qemu-guest-agent]\n', want: false },
    'enabled without --now (starts only after a reboot)': { userData: '#cloud-config\npackages: [qemu-guest-agent]\nruncmd:\n  - systemctl enable qemu-guest-agent\n', want: false },
    'started but not installed': { userData: '#cloud-config\nruncmd:\n  - systemctl enable --now qemu-guest-agent\n', want: false },
    'mentioned only in a comment': { userData: '#cloud-config\n# packages: [qemu-guest-agent]\n# runcmd: systemctl enable --now qemu-guest-agent\nhostname: x\n', want: false },
    'a shell script, not #cloud-config': { userData: '#!/bin/sh\napt-get install -y qemu-guest-agent\nsystemctl enable --now qemu-guest-agent\n', want: false },
    'malformed YAML': { userData: '#cloud-config\npackages: [qemu-guest-agent\nruncmd: [\n', want: false },
    'no user data': { userData: undefined, want: false },
  };
  for (const [reason, c] of Object.entries(cases)) {
    it(`${c.want ? 'runs' : 'does not run'} the agent: ${reason}`, () => {
      assert.equal(cloudConfigRunsGuestAgent(c.userData), c.want);
    });
  }
});

describe('simulated Harvester: IPAM', () => {
  it('defaults a range like MakeRange: .1 … .254, gateway .1 skipped; /32 is one address', () => {
    const r = makeRange({ subnet: '192.168.0.0/24' });
    assert.equal(totalOf([r]), 253);
    assert.equal(totalOf(makeRangeSet([{ subnet: '192.168.41.0/24' }, { subnet: '172.16.231.0/24', rangeStart: '172.16.231.10', rangeEnd: '172.16.231.13' }])), 253 + 4);
    assert.equal(totalOf([makeRange({ subnet: '10.0.0.5/32' })]), 1);
    const swapped = makeRange({ subnet: '10.0.0.0/24', rangeStart: '10.0.0.20', rangeEnd: '10.0.0.10' });
    assert.equal(formatIPv4(swapped.start), '10.0.0.10');
  });

  it('hands out distinct in-range non-gateway addresses until the set is exhausted (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 24, max: 30 }), fc.integer({ min: 0, max: 255 }), (prefix, third) => {
        const set = makeRangeSet([{ subnet: `10.${third}.0.0/${prefix}` }]);
        const allocated: Record<string, string> = {};
        let last: string | undefined;
        const total = totalOf(set);
        for (let i = 0; i < total; i++) {
          const ip = allocateAddress(set, { allocated, lastAllocated: last }, `ns/lb${i}`);
          assert.notEqual(ip, undefined);
          const text = formatIPv4(ip!);
          assert.equal(allocated[text], undefined, 'no address twice');
          assert.ok(rangeSetContains(set, ip!));
          assert.notEqual(ip, set[0].gateway);
          allocated[text] = `ns/lb${i}`;
          last = text;
        }
        assert.equal(allocateAddress(set, { allocated, lastAllocated: last }, 'ns/extra'), undefined);
      }),
      { numRuns: 25 },
    );
  });

  it('prefers the address an LB held before', () => {
    const set = makeRangeSet([{ subnet: '10.0.0.0/24' }]);
    const ip = allocateAddress(set, { allocated: {}, allocatedHistory: { '10.0.0.77': 'default/web' }, lastAllocated: '10.0.0.3' }, 'default/web');
    assert.equal(formatIPv4(ip!), '10.0.0.77');
  });
});

describe('simulated Harvester: pool selection', () => {
  const pool = (name: string, selector: Record<string, unknown>): KubeObject => ({
    apiVersion: 'loadbalancer.harvesterhci.io/v1beta1',
    kind: 'IPPool',
    metadata: { name },
    spec: { ranges: [{ subnet: '10.0.0.0/24' }], selector },
  });
  const lb = (annotations: Record<string, string>, workloadType = 'vm'): KubeObject => ({
    apiVersion: 'loadbalancer.harvesterhci.io/v1beta1',
    kind: 'LoadBalancer',
    metadata: { name: 'x', namespace: 'team-a', annotations },
    spec: { workloadType },
  });
  const pools = [
    pool('by-project', { scope: [{ project: 'local/p-1', namespace: '*', guestCluster: '*' }] }),
    pool('by-cluster', { scope: [{ project: '*', namespace: '*', guestCluster: 'gc1' }], priority: 3 }),
    pool('blank-scope', { scope: [{ project: '', namespace: 'team-b', guestCluster: '' }] }),
  ];

  it('matches the project scope', () => {
    assert.equal(selectPool(pools, lb({ 'loadbalancer.harvesterhci.io/project': 'local/p-1' }))?.metadata.name, 'by-project');
  });
  it('a higher priority wins among matches', () => {
    const picked = selectPool(pools, lb({ 'loadbalancer.harvesterhci.io/project': 'local/p-1', 'loadbalancer.harvesterhci.io/cluster': 'gc1' }));
    assert.equal(picked?.metadata.name, 'by-cluster');
  });
  it('only cluster LBs retry in loose mode (blank project/guestCluster match anything)', () => {
    const annotations = { 'loadbalancer.harvesterhci.io/namespace': 'team-b', 'loadbalancer.harvesterhci.io/project': 'local/p-9', 'loadbalancer.harvesterhci.io/cluster': 'gc9' };
    assert.equal(selectPool(pools, lb(annotations, 'vm')), undefined);
    assert.equal(selectPool(pools, lb(annotations, 'cluster'))?.metadata.name, 'blank-scope');
  });
});

describe('simulated Harvester: VMI placement', () => {
  const host = (name: string, labels: Record<string, string>, extra: Record<string, unknown> = {}): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels },
    spec: extra,
    status: { conditions: [{ type: 'Ready', status: 'True' }] },
  });
  const nodes = [host('n0', { zone: 'a', ssd: 'yes' }), host('n1', { zone: 'b' }), host('n2', { zone: 'c' }, { unschedulable: true })];
  const affinity = (exprs: Record<string, unknown>[]) => ({
    affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: exprs }] } } },
  });

  it('honours In / NotIn / Exists / DoesNotExist and nodeSelector', () => {
    assert.equal(placeVmi(affinity([{ key: 'zone', operator: 'In', values: ['b', 'c'] }]), nodes, new Map()).node?.metadata.name, 'n1');
    assert.equal(placeVmi(affinity([{ key: 'zone', operator: 'NotIn', values: ['a'] }]), nodes, new Map()).node?.metadata.name, 'n1');
    assert.equal(placeVmi(affinity([{ key: 'ssd', operator: 'Exists' }]), nodes, new Map()).node?.metadata.name, 'n0');
    assert.equal(placeVmi(affinity([{ key: 'ssd', operator: 'DoesNotExist' }]), nodes, new Map()).node?.metadata.name, 'n1');
    assert.equal(placeVmi({ nodeSelector: { zone: 'a' } }, nodes, new Map()).node?.metadata.name, 'n0');
  });

  it('spreads over the least loaded fitting host', () => {
    assert.equal(placeVmi({}, nodes, new Map([['n0', 2], ['n1', 1]])).node?.metadata.name, 'n1');
  });

  it('explains why nothing fits in kube-scheduler\'s words, with the preemption verdict', () => {
    const placement = placeVmi(affinity([{ key: 'zone', operator: 'In', values: ['z'] }]), nodes, new Map());
    assert.equal(placement.node, undefined);
    assert.equal(
      placement.message,
      "0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling..",
    );
  });
});
