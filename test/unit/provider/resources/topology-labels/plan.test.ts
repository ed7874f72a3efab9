import assert from 'node:assert/strict';
import { OWNER_ANNOTATION, PREVIOUS_ANNOTATION } from '../../../../../provider/resources/topology-labels/model';
import { distinctZones, driftOf, liveInputs, planHost, previousOnHost, sameManagedState, zoneWarning, type LiveHost } from '../../../../../provider/resources/topology-labels/plan';

const ZONE = 'topology.kubernetes.io/zone';
const REGION = 'topology.kubernetes.io/region';

function host(name: string, labels: Record<string, string> = {}, annotations: Record<string, string> = {}): LiveHost {
  return { name, labels: { 'kubernetes.io/hostname': name, ...labels }, annotations, resourceVersion: '7' };
}

describe('TopologyLabels plan: label patch computation', () => {
  it('patches only the named keys, records what they held, and claims the host', () => {
    const p = planHost('site', host('h0', { [ZONE]: 'old-z', 'rack': 'r1' }), { zone: 'z1', region: 'r' });
    assert.deepEqual(p.patch, {
      metadata: {
        labels: { [REGION]: 'r', [ZONE]: 'z1' },
        annotations: { [OWNER_ANNOTATION]: 'site', [PREVIOUS_ANNOTATION]: '{"region":null,"zone":"old-z"}' },
      },
    });
    assert.deepEqual(p.previous, { region: null, zone: 'old-z' });
    assert.deepEqual(p.applied, { zone: 'z1', region: 'r' });
  });

  it('leaves a key it is not given alone, even when the host has it', () => {
    const p = planHost('site', host('h0', { [REGION]: 'theirs' }), { zone: 'z1' });
    assert.deepEqual(p.patch!.metadata.labels, { [ZONE]: 'z1' });
    assert.deepEqual(p.previous, { zone: null });
  });

  it('sends no patch when the host already is as wanted and claimed', () => {
    const live = host('h0', { [ZONE]: 'z1' }, { [OWNER_ANNOTATION]: 'site', [PREVIOUS_ANNOTATION]: '{"zone":null}' });
    const p = planHost('site', live, { zone: 'z1' }, { previous: { zone: null }, applied: { zone: 'z1' } });
    assert.equal(p.patch, undefined);
  });

  it('keeps the first previous value across updates (state first, else the host annotation)', () => {
    const live = host('h0', { [ZONE]: 'z1' }, { [OWNER_ANNOTATION]: 'site', [PREVIOUS_ANNOTATION]: '{"zone":"orig"}' });
    assert.deepEqual(planHost('site', live, { zone: 'z2' }, { previous: { zone: 'from-state' } }).previous, { zone: 'from-state' });
    assert.deepEqual(planHost('site', live, { zone: 'z2' }).previous, { zone: 'orig' }, 'a create that failed half-way resumes from the annotation');
  });
});

describe('TopologyLabels plan: restore on delete', () => {
  const claimed = (labels: Record<string, string>, previous: string) => host('h0', labels, { [OWNER_ANNOTATION]: 'site', [PREVIOUS_ANNOTATION]: previous, other: 'x' });

  it('restores previous values and removes keys that were absent, then drops the annotations', () => {
    const live = claimed({ [ZONE]: 'z1', [REGION]: 'r1' }, '{"region":"before","zone":null}');
    const p = planHost('site', live, undefined, { previous: { region: 'before', zone: null }, applied: { region: 'r1', zone: 'z1' } });
    assert.deepEqual(p.patch, {
      metadata: { labels: { [REGION]: 'before', [ZONE]: null }, annotations: { [OWNER_ANNOTATION]: null, [PREVIOUS_ANNOTATION]: null } },
    });
    assert.deepEqual(p.previous, {});
  });

  it('never overwrites a value changed outside since it was written (their edit wins)', () => {
    const live = claimed({ [ZONE]: 'ui-edit' }, '{"zone":"before"}');
    const p = planHost('site', live, undefined, { previous: { zone: 'before' }, applied: { zone: 'z1' } });
    assert.equal(p.patch!.metadata.labels, undefined);
    assert.match(p.changes[0], /kept "ui-edit" \(changed outside since this resource set "z1"; not restoring "before"\)/);
  });

  it('restores only the key that left the inputs on update', () => {
    const live = claimed({ [ZONE]: 'z1', [REGION]: 'r1' }, '{"region":null,"zone":"zb"}');
    const p = planHost('site', live, { zone: 'z1' }, { previous: { region: null, zone: 'zb' }, applied: { region: 'r1', zone: 'z1' } });
    assert.deepEqual(p.patch!.metadata.labels, { [REGION]: null });
    assert.deepEqual(p.patch!.metadata.annotations, { [PREVIOUS_ANNOTATION]: '{"zone":"zb"}' });
  });
});

describe('TopologyLabels plan: conflicts, drift and zones', () => {
  it('treats a concurrent edit of other labels as harmless, and of our keys as a conflict', () => {
    const a = host('h0', { [ZONE]: 'z1' });
    assert.equal(sameManagedState(a, { ...a, labels: { ...a.labels, rack: 'r2' }, resourceVersion: '8' }), true);
    assert.equal(sameManagedState(a, { ...a, labels: { ...a.labels, [ZONE]: 'z9' } }), false);
    assert.equal(sameManagedState(a, { ...a, annotations: { [OWNER_ANNOTATION]: 'other' } }), false, 'a claim taken in between');
    assert.equal(sameManagedState(a, { ...a, annotations: { [PREVIOUS_ANNOTATION]: '{"zone":null}' } }), false, 'a record of previous values rewritten in between');
  });

  it('reads the previous values recorded on a host, keeping only strings and nulls of our two keys; an unreadable record is none', () => {
    const recorded = (text: string) => previousOnHost(host('h0', {}, { [PREVIOUS_ANNOTATION]: text }));
    assert.deepEqual(recorded('{"region":null,"zone":"z1","rack":"r1"}'), { region: null, zone: 'z1' });
    assert.deepEqual(recorded('{"region":7,"zone":["z1"]}'), {});
    assert.equal(recorded('{not json'), undefined);
    assert.equal(previousOnHost(host('h0')), undefined);
  });

  it('reports a UI edit and a lost claim as drift, and returns live values as inputs', () => {
    const live = new Map([['h0', host('h0', { [ZONE]: 'ui' }, { [OWNER_ANNOTATION]: 'site' })], ['h1', host('h1', { [ZONE]: 'z2' })]]);
    const applied = { h0: { zone: 'z1' }, h1: { zone: 'z2' }, h2: { zone: 'z3' } };
    assert.deepEqual(driftOf('site', applied, live), [
      `host h0: ${ZONE} is "ui", this resource set "z1"`,
      `host h1: annotation ${OWNER_ANNOTATION} is absent, expected "site"`,
      'host h2: missing (removed from the Harvester cluster)',
    ]);
    assert.deepEqual(liveInputs(applied, live), { h0: { zone: 'ui' }, h1: { zone: 'z2' }, h2: {} });
  });

  it('warns below three distinct zones citing harvester#6546, and not at three or with no zones', () => {
    const two = [host('a', { [ZONE]: 'z1' }), host('b', { [ZONE]: 'z1' }), host('c', { [ZONE]: 'z2' })];
    assert.deepEqual(distinctZones(two), ['z1', 'z2']);
    assert.match(zoneWarning(two)!, /only 2 distinct zones \(z1, z2\) over 3 Harvester hosts.*harvester\/harvester#6546/);
    assert.equal(zoneWarning([...two, host('d', { [ZONE]: 'z3' })]), undefined);
    assert.equal(zoneWarning([host('a'), host('b')]), undefined);
  });

  it('words the zone warning for one zone, one host, and hosts without a zone', () => {
    const fix = ': Harvester stops promoting hosts to its HA control plane while fewer than three distinct zones exist (harvester/harvester#6546). ' +
      'Spread the hosts over at least three zones, or leave zones unset.';
    assert.equal(zoneWarning([host('a', { [ZONE]: 'z1' })]), `only 1 distinct zone (z1) over 1 Harvester host${fix}`);
    assert.equal(zoneWarning([host('a', { [ZONE]: 'z1' }), host('b'), host('c')]), `only 1 distinct zone (z1) over 3 Harvester hosts (without a zone: b, c)${fix}`);
  });
});
