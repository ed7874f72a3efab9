/**
 * The machine pool's capacity check, pure parts: the peak taken from converge's own plan (creates in their zones,
 * the roll's surge, the releases), the lower bound used while inputs are unknown, which inputs it needs known, and
 * the property and bucket of each finding by `capacityCheck`.
 */
import assert from 'node:assert/strict';
import { fit } from '../../../../../provider/capacity';
import { UNKNOWN } from '../../../../../provider/core/unknowns';
import { findingsOf, fitBaseOf, peakOfKnownCounts, peakOfPlan, poolShapeOf } from '../../../../../provider/resources/machine-pool/capacity-check';
import { desiredVirtualMachines } from '../../../../../provider/resources/machine-pool/desired';
import type { MachinePoolArgs } from '../../../../../provider/resources/machine-pool/model';
import { planPool } from '../../../../../provider/resources/machine-pool/plan';
import { GIB, host, snapshot } from '../../capacity/fixtures';
import { asHarvesterServes, context, inputs, observed } from './fixtures';

const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c'];

/** The live pool `args` would have made, and the peak of the plan that takes it to `next`. */
function peakFrom(args: Partial<MachinePoolArgs>, next: Partial<MachinePoolArgs>) {
  const live = observed(desiredVirtualMachines(inputs(args), context()).machines.map((m) => asHarvesterServes(m.vm)));
  const desired = desiredVirtualMachines(inputs(next), context());
  return peakOfPlan(planPool(desired, live), live, desired.rolling, desired.zones.length > 0);
}

describe('machine-pool capacity check: the peak of the plan', () => {
  it('a new pool: every VM created, in the zones the planner spreads them over', () => {
    const { peak } = peakFrom({ count: 0, zones: ZONES }, { count: 5, zones: ZONES });
    assert.deepEqual(peak, { create: [{ zone: 'us-east-1a', count: 2 }, { zone: 'us-east-1b', count: 2 }, { zone: 'us-east-1c', count: 1 }], surge: [], release: [], kept: [] });
  });

  it('a scale-up creates only the new VMs; the others stay (and count in the count a message suggests)', () => {
    const { peak } = peakFrom({ count: 3, zones: ZONES }, { count: 4, zones: ZONES });
    assert.deepEqual(peak.create, [{ zone: 'us-east-1a', count: 1 }]);
    assert.deepEqual(peak.kept, ZONES.map((zone) => ({ zone, count: 1 })));
  });

  it('a roll (maxSurge 1): every replacement, the replaced VMs\' room back, one VM of the old size alive at the peak', () => {
    const { peak, previousVm } = peakFrom({ count: 3, cpu: 2 }, { count: 3, cpu: 4 });
    assert.deepEqual(peak.create, [{ count: 3 }]);
    assert.deepEqual(peak.surge, [{ count: 1 }]);
    assert.deepEqual(peak.release, ['pool-a-0', 'pool-a-1', 'pool-a-2']);
    assert.deepEqual(peak.kept, []);
    assert.deepEqual(previousVm, { cpu: 2, memoryBytes: 4 * GIB }, 'the surge is of the old size');
  });

  it('a roll with maxSurge 0 keeps no old VM alive: count + 0', () => {
    const { peak } = peakFrom({ count: 3 }, { count: 3, cpu: 4, rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } });
    assert.deepEqual(peak.surge, []);
    assert.equal(peak.release.length, 3);
  });

  it('a scale-down releases what it deletes first and creates nothing', () => {
    const { peak } = peakFrom({ count: 3 }, { count: 1 });
    assert.deepEqual(peak, { create: [], surge: [], release: ['pool-a-2', 'pool-a-1'], kept: [{ count: 1 }] });
  });

  it('a change made in place (labels) needs no room', () => {
    const { peak } = peakFrom({ count: 2 }, { count: 2, labels: { team: 'blue' } });
    assert.deepEqual(peak.create, []);
  });

  it('with inputs unknown until up, the VMs there count as kept: only what fills the count (a lower bound)', () => {
    const live = observed(desiredVirtualMachines(inputs({ count: 2, zones: ZONES }), context()).machines.map((m) => asHarvesterServes(m.vm)));
    const peak = peakOfKnownCounts(poolShapeOf({ name: 'pool-a', count: 4, zones: ZONES })!, live);
    assert.deepEqual(peak.create, [{ zone: 'us-east-1a', count: 1 }, { zone: 'us-east-1c', count: 1 }]);
    assert.deepEqual(peak.surge, []);
    assert.deepEqual(peak.kept, [{ zone: 'us-east-1a', count: 1 }, { zone: 'us-east-1b', count: 1 }]);
  });
});

describe('machine-pool capacity check: inputs and findings', () => {
  it('needs count, cpu, memory, zones, affinity, rollingUpdate and the pool\'s name known; not the image or networks', () => {
    assert.deepEqual(poolShapeOf({ name: 'p', count: 2, disks: UNKNOWN, networks: [{ network: UNKNOWN }] }), {
      name: 'p', namespace: 'default', count: 2, cpu: 2, memory: '4Gi', zones: [], rollingUpdate: { maxSurge: 1, maxUnavailable: 0 }, capacityCheck: 'error',
    });
    assert.equal(poolShapeOf({ name: 'p', count: UNKNOWN }), undefined);
    assert.equal(poolShapeOf({ name: 'p', zones: ['a', UNKNOWN] }), undefined);
  });

  const refused = (pool: ReturnType<typeof inputs>, hosts = [host('h1', 'us-east-1a', 400, 64), host('h2', 'us-east-1b', 400, 64, { schedulable: false })]) => {
    const base = fitBaseOf(pool, ['mgmt']);
    return findingsOf(fit(snapshot(hosts), { ...base, create: pool.zones.length ? pool.zones.map((zone) => ({ zone, count: 1 })) : [{ count: pool.count }] }), pool);
  };

  it('a shortfall is on count; a zone with no eligible host on that zone; no eligible host at all under affinity on affinity', () => {
    assert.deepEqual(refused(inputs({ count: 3, cpu: 8 })).failures.map((f) => f.property), ['count']);
    assert.deepEqual(refused(inputs({ count: 2, zones: ['us-east-1a', 'us-east-1b'] })).failures.map((f) => f.property), ['zones[1]']);
    const pinned = inputs({ count: 1, affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['h9'] }] }] } } } });
    assert.deepEqual(refused(pinned).failures.map((f) => f.property), ['affinity']);
    const named = inputs({ count: 1, affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['h1'] }] }] } } } });
    assert.deepEqual(refused(named).failures, [], 'a node named by metadata.name is eligible');
  });

  it('capacityCheck "warn" turns the refusal into a warning; a read that failed makes it uncertain: a warning only', () => {
    const warned = refused(inputs({ count: 3, cpu: 8, capacityCheck: 'warn' }));
    assert.deepEqual(warned.failures, []);
    assert.match(warned.warnings.join('\n'), /^capacity: the eligible hosts can take \d of 3 new VMs/m);
    const pool = inputs({ count: 3, cpu: 8 });
    const uncertain = findingsOf(fit(snapshot([host('h1', undefined, 400, 64)], undefined, { certain: false, warnings: ['capacity: could not read x'] }), { ...fitBaseOf(pool, []), create: [{ count: 3 }] }), pool);
    assert.deepEqual(uncertain.failures, []);
    assert.match(uncertain.warnings.join('\n'), /capacity \(uncertain: see the warnings above\): the eligible hosts can take/);
  });

  it('the count a message suggests counts the VMs that stay', () => {
    const pool = inputs({ count: 5 });
    const verdict = fit(snapshot([host('h1', undefined, 300, 64)]), { ...fitBaseOf(pool, []), create: [{ count: 2 }], kept: [{ count: 3 }] });
    assert.match(verdict.errors[0], /^the eligible hosts can take 1 of 2 new VMs .* Options: lower the count to 4, /);
  });
});
