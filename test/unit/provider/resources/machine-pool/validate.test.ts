import assert from 'node:assert/strict';
import { UNKNOWN } from '../../../../../provider/core/unknowns';
import { validateInputs } from '../../../../../provider/resources/machine-pool/validate';
import { formatFailure } from '../../../../../provider/core/input-errors';
import { REPLACE_INPUTS, SECRET_INPUTS } from '../../../../../provider/resources/machine-pool/model';

const valid = {
  name: 'pool-a',
  disks: [{ image: 'default/ubuntu-22.04-server-cloudimg', size: '40Gi' }],
  networks: [{ network: 'default/vm-net' }],
};

function reasons(raw: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(validateInputs(raw).failures.map((f) => [f.property, f.reason]));
}

describe('machine-pool validateInputs', () => {
  it('fills the driver\'s defaults', () => {
    const { inputs, failures } = validateInputs({ ...valid, __provider: 'serialized' });
    assert.deepEqual(failures, []);
    assert.equal(inputs?.namespace, 'default');
    assert.equal(inputs?.cpu, 2);
    assert.equal(inputs?.memory, '4Gi');
    assert.equal(inputs?.count, 1);
    assert.equal(inputs?.disks[0].bus, 'virtio');
    assert.equal(inputs?.networks[0].type, 'bridge');
    assert.equal(inputs?.guestAgent, 'install');
    assert.equal(inputs?.volumeDeletion, 'delete');
    assert.deepEqual(inputs?.rollingUpdate, { maxSurge: 1, maxUnavailable: 0 });
  });

  const cases: Record<string, { reason: string; given: Record<string, unknown>; property: string; want: RegExp }> = {
    negativeCount: { reason: 'count must be ≥ 0', given: { count: -1 }, property: 'count', want: /at least 0 \(got -1\)/ },
    fractionalCpu: { reason: 'cpu is whole cores', given: { cpu: 1.5 }, property: 'cpu', want: /whole number/ },
    badMemory: { reason: 'memory is a quantity', given: { memory: '4 GB' }, property: 'memory', want: /"4Gi"/ },
    noDisks: { reason: 'a boot disk is needed', given: { disks: [] }, property: 'disks', want: /boot disk/ },
    bootWithoutImage: { reason: 'disks[0] must be an image', given: { disks: [{ size: '10Gi' }] }, property: 'disks[0].image', want: /cloud image/ },
    imageAndClass: { reason: 'image disks take the image\'s class', given: { disks: [{ image: 'img', size: '10Gi', storageClass: 'fast' }] }, property: 'disks[0].storageClass', want: /status\.storageClassName/ },
    badBus: { reason: 'bus is an enum', given: { disks: [{ image: 'img', size: '10Gi', bus: 'ide' }] }, property: 'disks[0].bus', want: /"virtio", "scsi", "sata" \(got "ide"\)/ },
    badName: { reason: 'name is a DNS label', given: { name: 'Pool_A' }, property: 'name', want: /DNS label/ },
    longName: { reason: 'VM names must stay hostnames', given: { name: 'a'.repeat(58) }, property: 'name', want: /at most 57/ },
    typo: { reason: 'unknown properties get a hint', given: { memroy: '8Gi' }, property: 'memroy', want: /did you mean "memory"/ },
    zeroRolling: { reason: 'a roll needs surge or unavailability', given: { rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } }, property: 'rollingUpdate', want: /both 0/ },
    duplicateZone: { reason: 'zones once each', given: { zones: ['us-east-1a', 'us-east-1a'] }, property: 'zones[1]', want: /twice/ },
    reservedLabel: { reason: 'system label keys are ours', given: { labels: { 'harvesterhci.io/creator': 'me' } }, property: 'labels["harvesterhci.io/creator"]', want: /reserved/ },
    badLabelValue: { reason: 'label values are validated', given: { labels: { team: 'a b' } }, property: 'labels["team"]', want: /not a valid label value/ },
    scriptUserData: { reason: 'agent merge needs cloud-config', given: { userData: '#!/bin/bash\necho pw=hunter2' }, property: 'userData', want: /shell script.*qemu-guest-agent/s },
    badTimeout: { reason: 'timeouts are durations', given: { timeouts: { create: 'ten minutes' } }, property: 'timeouts.create', want: /"10m"/ },
    zoneInAffinity: { reason: 'zones and a zone affinity conflict', given: { zones: ['us-east-1a'], affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['x'] }] }] } } } }, property: 'affinity', want: /zones/ },
    zonePinInAffinity: {
      reason: 'an affinity pinning every VM to one zone reads back as zones',
      given: { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [
        { matchExpressions: [{ key: 'disk', operator: 'Exists' }, { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['x'] }] },
        { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['x'] }] },
      ] } } } },
      property: 'affinity',
      want: /pins every VM to zone "x".*Set zones: \["x"\]/,
    },
    affinityTypo: {
      reason: 'a misspelt affinity field would be pruned by the API server, and drift forever',
      given: { affinity: { nodeAffinity: { requiredDuringScheduling: { nodeSelectorTerms: [] } } } },
      property: 'affinity.nodeAffinity.requiredDuringScheduling',
      want: /unknown property.*known: requiredDuringSchedulingIgnoredDuringExecution, preferredDuringSchedulingIgnoredDuringExecution/,
    },
    affinityNestedTypo: {
      reason: 'typos deep inside a term get a hint',
      given: { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologykey: 'kubernetes.io/hostname' }] } } },
      property: 'affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologykey',
      want: /did you mean "topologyKey"/,
    },
    affinityOperator: {
      reason: 'operators are the API server\'s',
      given: { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'gpu', operator: 'Has' }] }] } } } },
      property: 'affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator',
      want: /"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt" \(got "Has"\)/,
    },
    affinityInWithoutValues: {
      reason: 'In needs values, as the API server says',
      given: { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'gpu', operator: 'In' }] }] } } } },
      property: 'affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values',
      want: /at least one value with operator In/,
    },
    affinityWeight: {
      reason: 'weights are 1–100',
      given: { affinity: { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 0, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname' } }] } } },
      property: 'affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight',
      want: /at least 1 \(got 0\)/,
    },
    affinityNoTopologyKey: {
      reason: 'a pod affinity term needs a topology key',
      given: { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'x' } } }] } } },
      property: 'affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey',
      want: /is required/,
    },
    masquerade: {
      reason: 'KubeVirt binds masquerade only to the pod network, and every pool network is a VM network',
      given: { networks: [{ network: 'default/vm-net', type: 'masquerade' }] },
      property: 'networks[0].type',
      want: /masquerade.*only.*pod network.*"bridge"/s,
    },
    clusterNetworkInAffinity: {
      reason: 'Harvester owns the cluster-network node keys',
      given: { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'network.harvesterhci.io/data', operator: 'In', values: ['true'] }] }] } } } },
      property: 'affinity.nodeAffinity',
      want: /Harvester adds those itself from the VM networks/,
    },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(`rejects ${name}: ${c.reason}`, () => {
      const r = reasons({ ...valid, ...c.given });
      assert.ok(r[c.property], `no failure on ${c.property}; got ${JSON.stringify(r)}`);
      const reason = r[c.property];
      assert.match(reason, c.want);
      assert.ok(!reason.startsWith(`${c.property}:`), `the reason repeats its property: ${reason}`);
      // A sentence about its input ("userData is …") names it already; any other reason is printed after its property, once.
      const sentence = reason.startsWith(`${c.property} `);
      assert.equal(formatFailure({ property: c.property, reason }), sentence ? reason : `${c.property}: ${reason}`, 'the user reads the property once');
    });
  }

  it('accepts a full Kubernetes affinity', () => {
    const affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'gpu', operator: 'Exists' }, { key: 'cores', operator: 'Gt', values: ['8'] }] }] },
        preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, preference: { matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }] } }],
      },
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 50, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['db'] }] }, namespaces: ['default'] } }],
      },
    };
    const v = validateInputs({ ...valid, affinity });
    assert.deepEqual(v.failures, []);
    assert.deepEqual(v.inputs?.affinity, affinity);
  });

  it('accepts, without zones, a zone affinity that does not pin every VM to one zone (two zones; one term of several)', () => {
    const zone = (values: string[]) => ({ key: 'topology.kubernetes.io/zone', operator: 'In', values });
    for (const terms of [[{ matchExpressions: [zone(['a', 'b'])] }], [{ matchExpressions: [zone(['a'])] }, { matchExpressions: [{ key: 'gpu', operator: 'Exists' }] }]]) {
      const affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } };
      assert.deepEqual(validateInputs({ ...valid, affinity }).failures, [], JSON.stringify(terms));
    }
  });

  it('refuses what Harvester\'s VM mutator strips from required terms: a cpumanager rule, a key beginning with network.harvesterhci.io; without zones, a term of matchFields alone', () => {
    const TERM = 'affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms';
    const required = (...nodeSelectorTerms: unknown[]) => ({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms } } });
    const byName = { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['host-1'] }] };
    const gpu = { matchExpressions: [{ key: 'gpu', operator: 'Exists' }] };
    assert.deepEqual(reasons({ ...valid, affinity: required(gpu, { matchExpressions: [{ key: 'cpumanager', operator: 'In', values: ['true'] }] }) }), {
      [`${TERM}[1]`]: 'uses the cpumanager key: Harvester sets it itself for dedicated CPU placement and removes it otherwise. Remove that expression.',
    });
    assert.deepEqual(reasons({ ...valid, affinity: required(gpu, byName) }), {
      [`${TERM}[1]`]: 'has no matchExpressions of its own: Harvester\'s VM mutator drops such a term (matchFields and all), so it would never apply. Express it with matchExpressions, e.g. { key: "kubernetes.io/hostname", operator: "In", values: [...] } for hosts by name.',
    });
    assert.deepEqual(validateInputs({ ...valid, zones: ['zone-a'], affinity: required(byName) }).failures, [], 'with zones every term gets the zone\'s expression, so none is dropped');
    assert.deepEqual(validateInputs({ ...valid, affinity: required({ ...gpu, ...byName }) }).failures, [], 'matchFields beside an expression stay');
    for (const key of ['network.harvesterhci.io.x', 'network.harvesterhci.ioz']) {
      assert.deepEqual(reasons({ ...valid, affinity: required(gpu, { matchExpressions: [{ key: 'gpu', operator: 'Exists' }, { key, operator: 'Exists' }] }) }), {
        [`${TERM}[1]`]: `uses the key "${key}": Harvester's VM mutator removes every required rule whose key begins with network.harvesterhci.io, so it would never apply. Label the hosts under another prefix and select that.`,
      }, key);
    }
    assert.deepEqual(validateInputs({ ...valid, affinity: required({ matchExpressions: [{ key: 'harvesterhci.io/network', operator: 'Exists' }] }) }).failures, [], 'only the prefix counts');
    assert.deepEqual(Object.keys(reasons({ ...valid, affinity: required(gpu, { matchExpressions: [{ key: 'network.harvesterhci.io/data', operator: 'Exists' }] }) })), ['affinity.nodeAffinity'], 'a cluster-network key is refused once, as Harvester\'s own');
    const preferred = { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchExpressions: [{ key: 'cpumanager', operator: 'In', values: ['true'] }, { key: 'network.harvesterhci.io.x', operator: 'Exists' }] } }] } };
    assert.deepEqual(validateInputs({ ...valid, affinity: preferred }).failures, [], 'the mutator leaves preferred terms alone');
  });

  it('reports every problem at once', () => {
    const r = reasons({ ...valid, count: -1, cpu: 0, memory: 'x' });
    assert.deepEqual(Object.keys(r).sort(), ['count', 'cpu', 'memory']);
  });

  it('never quotes secret inputs', () => {
    const { failures } = validateInputs({ ...valid, userData: 12345, kubeconfig: '' , networkData: 'version: 3\npassword: hunter2' });
    const text = JSON.stringify(failures);
    assert.ok(failures.some((f) => f.property === 'userData'));
    assert.ok(failures.some((f) => f.property === 'networkData'));
    assert.ok(!text.includes('12345') && !text.includes('hunter2'));
  });

  it('tolerates Pulumi\'s unknown sentinel during preview, still judging known values', () => {
    const v = validateInputs({ ...valid, count: UNKNOWN, userData: UNKNOWN, zones: [UNKNOWN], disks: [{ image: UNKNOWN, size: '40Gi' }], cpu: 0 });
    assert.deepEqual(v.failures.map((f) => f.property), ['cpu']);
    assert.equal(v.hasUnknowns, true);
    assert.equal(v.inputs, undefined);
    assert.deepEqual(validateInputs({ ...valid, networks: UNKNOWN }).failures, []);
    const unknownOperator = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'gpu', operator: UNKNOWN }] }] } } };
    assert.deepEqual(validateInputs({ ...valid, affinity: unknownOperator }).failures, []);
    assert.deepEqual(validateInputs({ ...valid, affinity: UNKNOWN }).failures, []);
  });

  it('judges the cross-field rules: unknown zones are never duplicates, a problem is reported once per property', () => {
    assert.deepEqual(validateInputs({ ...valid, zones: [UNKNOWN, UNKNOWN] }).failures, []);
    // The schema already refuses both entries; the duplicate rule must not report zones[1] a second time.
    assert.deepEqual(validateInputs({ ...valid, zones: ['-a', '-a'] }).failures.map((f) => f.property), ['zones[0]', 'zones[1]']);
  });

  it('explains an invalid label key, and quotes at most 70 characters of a bad label value', () => {
    assert.deepEqual(reasons({ ...valid, labels: { '-bad': 'x', team: 'x'.repeat(100) } }), {
      'labels["-bad"]': 'key is invalid: its name must be 1–63 characters of letters, digits, "-", "_" or ".", starting and ending with a letter or digit.',
      'labels["team"]': `value "${'x'.repeat(70)}" is not a valid label value (at most 63 characters of letters, digits, "-", "_", ".", starting and ending with a letter or digit).`,
    });
  });

  it('checks user data against sshKeys when guestAgent is "none"', () => {
    assert.deepEqual(reasons({ ...valid, guestAgent: 'none', userData: '#!/bin/sh\n', sshKeys: ['default/k'] }), {
      userData: 'userData is a shell script (it starts with "#!"). The key pairs in sshKeys are added to ssh_authorized_keys, which needs a #cloud-config document. ' +
        'Rewrite it as #cloud-config (put script lines under runcmd or write_files), or remove sshKeys and add the keys in your script.',
    });
  });
});

describe('machine-pool model flags', () => {
  it('derives secret and replace-on-change inputs from the schema metadata', () => {
    assert.deepEqual([...SECRET_INPUTS].sort(), ['guestCredentials', 'guestKubeconfig', 'initUserData', 'kubeconfig', 'networkData', 'userData']);
    assert.deepEqual([...REPLACE_INPUTS].sort(), ['name', 'namespace']);
  });
});
