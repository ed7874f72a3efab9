import assert from 'node:assert/strict';
import { conflictsWithOthers } from '../../../../provider/resources/ip-pool/handlers';
import { validateInputs } from '../../../../provider/resources/ip-pool/validate';
import { desiredPool, diffInputs, driftOf } from '../../../../provider/resources/ip-pool/plan';
import type { IPPool } from '../../../../provider/client/objects';

const UNKNOWN = '04da6b54-80e4-46f7-96ec-b56ff0331ba9';
const failuresOf = (raw: Record<string, unknown>) => Object.fromEntries(validateInputs(raw).failures.map((f) => [f.property, f.reason]));

describe('HarvesterIPPool: check rules (the IPPool webhook mirrored at preview)', () => {
  const table: [string, Record<string, unknown>, string, RegExp][] = [
    ['a subnet that is not a CIDR', { subnet: '10.0.0.0' }, 'ranges[0].subnet', /not an IPv4 CIDR/],
    ['host bits in the subnet', { subnet: '10.0.0.5/24' }, 'ranges[0].subnet', /host bits set: the subnet is 10\.0\.0\.0\/24/],
    ['a start outside the subnet', { subnet: '10.0.0.0/24', rangeStart: '10.0.1.5' }, 'ranges[0].rangeStart', /outside subnet 10\.0\.0\.0\/24/],
    ['the network address as start', { subnet: '10.0.0.0/24', rangeStart: '10.0.0.0' }, 'ranges[0].rangeStart', /network address/],
    ['the broadcast address as end', { subnet: '10.0.0.0/24', rangeEnd: '10.0.0.255' }, 'ranges[0].rangeEnd', /broadcast address/],
    ['an end before the start', { subnet: '10.0.0.0/24', rangeStart: '10.0.0.50', rangeEnd: '10.0.0.10' }, 'ranges[0].rangeEnd', /before rangeStart 10\.0\.0\.50: swap them/],
    ['a gateway inside the range', { subnet: '10.0.0.0/24', rangeStart: '10.0.0.10', rangeEnd: '10.0.0.20', gateway: '10.0.0.15' }, 'ranges[0].gateway', /inside the range 10\.0\.0\.10-10\.0\.0\.20/],
    ['a gateway outside the subnet', { subnet: '10.0.0.0/24', gateway: '10.0.9.1', rangeStart: '10.0.0.10' }, 'ranges[0].gateway', /outside subnet/],
    ['a malformed address', { subnet: '10.0.0.0/24', rangeStart: '10.0.0.300' }, 'ranges[0].rangeStart', /not an IPv4 address/],
  ];
  for (const [label, range, property, reason] of table) {
    it(`refuses ${label} on ${property}`, () => {
      const f = failuresOf({ name: 'p', ranges: [range] });
      assert.match(f[property] ?? '', reason, JSON.stringify(f));
    });
  }

  it('refuses overlapping ranges of one pool and overlapping scopes, all at once', () => {
    const f = failuresOf({
      name: 'p',
      ranges: [{ subnet: '10.0.0.0/24', rangeStart: '10.0.0.10', rangeEnd: '10.0.0.20' }, { subnet: '10.0.0.0/24', rangeStart: '10.0.0.20', rangeEnd: '10.0.0.30' }],
      selector: { scope: [{ namespace: 'a' }, { namespace: '*', project: 'x' }] },
    });
    assert.match(f['ranges[1]'], /overlaps ranges\[0\]/);
    assert.match(f['selector.scope[1]'], /overlaps selector\.scope\[0\]/);
  });

  it('accepts a valid pool with defaults, and unknowns during preview', () => {
    const v = validateInputs({ name: 'p', ranges: [{ subnet: '10.0.0.0/24', rangeStart: '10.0.0.10', rangeEnd: '10.0.0.20', gateway: '10.0.0.1' }] });
    assert.deepEqual(v.failures, []);
    assert.deepEqual(v.inputs!.selector, { priority: 0, scope: [] });
    assert.deepEqual(validateInputs({ name: 'p', ranges: [{ subnet: UNKNOWN }] }).failures, []);
    assert.match(failuresOf({ name: 'p', ranges: [] }).ranges, /at least one range/);
  });

  it('finds at preview what the webhook refuses because of other pools: overlap, a second global pool, a taken priority', () => {
    const other: IPPool = { apiVersion: 'x', kind: 'IPPool', metadata: { name: 'other' }, spec: { ranges: [{ subnet: '10.0.0.0/24', rangeStart: '10.0.0.15', rangeEnd: '10.0.0.40' }], selector: { priority: 5, scope: [{ project: '*', namespace: '*', guestCluster: '*' }] } } };
    const inputs = validateInputs({ name: 'p', ranges: [{ subnet: '10.0.0.0/24', rangeStart: '10.0.0.10', rangeEnd: '10.0.0.20' }], selector: { priority: 5, scope: [{}] } }).inputs!;
    const found = Object.fromEntries(conflictsWithOthers(inputs, [other]).map((f) => [f.property, f.reason]));
    assert.match(found['ranges[0]'], /overlaps IPPool other \(10\.0\.0\.15-10\.0\.0\.40\)/);
    assert.match(found['selector.scope'], /global pool, but IPPool other already is/);
    assert.match(found['selector.priority'], /5 is already the priority of IPPool other/);
  });
});

describe('HarvesterIPPool: plan', () => {
  const inputs = validateInputs({ name: 'p', description: 'd', ranges: [{ subnet: '10.0.0.0/24' }], selector: { network: 'default/vm-net', scope: [{ namespace: 'ns' }] } }).inputs!;

  it('builds the object with ownership labels and the spec only', () => {
    const pool = desiredPool(inputs);
    assert.equal(pool.metadata.labels!['app.kubernetes.io/managed-by'], 'harvester-iac');
    assert.deepEqual(pool.spec, { ranges: [{ subnet: '10.0.0.0/24' }], selector: { priority: 0, scope: [{ project: '*', namespace: 'ns', guestCluster: '*' }], network: 'default/vm-net' }, description: 'd' });
    assert.equal(pool.status, undefined);
  });

  it('reports an out-of-band edit as drift per field, and nothing for what it wrote', () => {
    const live = { ...desiredPool(inputs), status: { allocated: { '10.0.0.2': 'default/lb' } } };
    assert.deepEqual(driftOf(inputs, live), []);
    const edited = { ...live, spec: { ...live.spec, ranges: [{ subnet: '10.0.0.0/24', rangeEnd: '10.0.0.99' }] } };
    assert.deepEqual(driftOf(inputs, edited).length, 1);
    assert.match(driftOf(inputs, edited)[0], /IPPool p: ranges is/);
  });

  it('replaces only on a name change; a range change updates in place', () => {
    const outs = { ...inputs, drift: [] as string[] };
    assert.deepEqual(diffInputs(outs, { ...inputs, name: 'q' }).replaces, ['name']);
    const d = diffInputs(outs, { ...inputs, ranges: [{ subnet: '10.0.1.0/24' }] });
    assert.equal(d.changes, true);
    assert.deepEqual(d.replaces, []);
    assert.equal(diffInputs(outs, inputs).changes, false);
  });
});
