import assert from 'node:assert/strict';
import { desiredVirtualMachines } from '../../../../../provider/resources/machine-pool/desired';
import type { VirtualMachine } from '../../../../../provider/client/objects';
import { judgeMachine } from '../../../../../provider/resources/machine-pool/differences';
import { asHarvesterServes, context, inputs } from './fixtures';

const vmDifferences = (live: VirtualMachine, desired: VirtualMachine) => judgeMachine(live, desired, 'default').differences;

function pair(overrides = {}, serve = {}) {
  const pool = desiredVirtualMachines(inputs(overrides), context());
  const desired = pool.machines[0].vm;
  return { desired, live: asHarvesterServes(desired, serve), pool };
}

describe('machine-pool planner judgement (read-back against read-back)', () => {
  it('ignores everything Harvester adds (MACs, run strategy, requests, guest memory, mgmt affinity, finalizers, hot-plugged volumes)', () => {
    for (const overrides of [{}, { zones: ['us-east-1a'] }, { affinity: { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [] } } }]) {
      const { desired, live } = pair(overrides, { hotplug: true });
      assert.deepEqual(vmDifferences(live, desired), [], JSON.stringify(overrides));
    }
  });

  it('ignores the node affinity Harvester adds for VM networks on any cluster network, not only mgmt', () => {
    for (const overrides of [{}, { zones: ['us-east-1a'] }, { affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 5, preference: { matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }] } }] } } }]) {
      const { desired, live } = pair(overrides, { clusterNetworks: ['data', 'mgmt'] });
      assert.deepEqual(vmDifferences(live, desired), [], JSON.stringify(overrides));
    }
  });

  it('ignores memory spelled differently but equal in value', () => {
    const { desired, live } = pair({ memory: '4096Mi' });
    (live.spec!.template!.spec as any).domain.resources.limits.memory = '4Gi';
    assert.deepEqual(vmDifferences(live, desired), []);
  });

  it('names a CPU edit made out of band by its input, with both values; the CPU limit, which no input reads back, by its field', () => {
    const { desired, live } = pair();
    (live.spec!.template!.spec as any).domain.cpu.cores = 4;
    (live.spec!.template!.spec as any).domain.resources.limits.cpu = '4';
    const diffs = vmDifferences(live, desired);
    assert.deepEqual(diffs.map((d) => [d.input, d.field, d.detail, d.inPlace]), [
      ['cpu', undefined, 'cpu is 4, inputs say 2', false],
      [undefined, 'spec.template.spec.domain.resources.limits.cpu', 'spec.template.spec.domain.resources.limits.cpu is "4", the pool writes "2" (no input reads it back)', false],
    ]);
  });

  it('sees a moved zone, a changed image and a changed network', () => {
    const { desired: a } = pair({ zones: ['us-east-1a'] });
    const { desired: b } = pair({ zones: ['us-east-1b'] });
    assert.deepEqual(vmDifferences(asHarvesterServes(a), b).map((d) => d.input), ['zones']);
    const { desired: c } = pair({ disks: [{ image: 'opensuse-leap-15.6', size: '40Gi' }] });
    assert.ok(vmDifferences(asHarvesterServes(a), c).some((d) => d.input === 'disks'));
    const { desired: n } = pair({ networks: [{ network: 'other-net' }] });
    assert.ok(vmDifferences(asHarvesterServes(pair().desired), n).some((d) => d.input === 'networks'));
  });

  it('patches user labels and annotations in place, including removals', () => {
    const { desired: before } = pair({ labels: { team: 'a', tier: 'web' }, annotations: { note: 'x' } });
    const { desired: after } = pair({ labels: { team: 'b' } });
    const diffs = vmDifferences(asHarvesterServes(before), after);
    assert.ok(diffs.length > 0);
    assert.ok(diffs.every((d) => d.inPlace), JSON.stringify(diffs));
    assert.deepEqual([...new Set(diffs.map((d) => d.input))].sort(), ['annotations', 'labels']);
  });

  it('rolls on a user-data change without showing it', () => {
    const { desired: a } = pair({ userData: '#cloud-config\npassword: one\n' });
    const { desired: b } = pair({ userData: '#cloud-config\npassword: two\n' });
    const diffs = vmDifferences(asHarvesterServes(a), b);
    assert.deepEqual(diffs.map((d) => d.input), ['userData']);
    assert.ok(!JSON.stringify(diffs).includes('password'));
  });

  it('rolls when the guest cluster changes (driver labels): its label on the VM names the input, the labels no input reads back (its copy on the template, the derived machine set) their fields', () => {
    const { desired: a } = pair({ guestCluster: 'gc1' });
    const { desired: b } = pair({ guestCluster: 'gc2' });
    const diffs = vmDifferences(asHarvesterServes(a), b);
    assert.ok(diffs.every((d) => !d.inPlace), JSON.stringify(diffs));
    assert.deepEqual(diffs.map((d) => d.input ?? d.field), [
      'guestCluster',
      'metadata.labels["harvesterhci.io/machineSetName"]',
      'spec.template.metadata.labels["guestcluster.harvesterhci.io/name"]',
      'spec.template.metadata.labels["harvesterhci.io/machineSetName"]',
    ]);
  });
});
