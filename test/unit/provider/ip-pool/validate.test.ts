import assert from 'node:assert/strict';
import { conflictsWithOthers } from '../../../../provider/resources/ip-pool/conflicts';
import { isGlobalScope, scopesOverlap, validateInputs } from '../../../../provider/resources/ip-pool/validate';
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
    ['a range of the default gateway alone', { subnet: '10.0.0.0/24', rangeStart: '10.0.0.1', rangeEnd: '10.0.0.1' }, 'ranges[0]',
      /^10\.0\.0\.1-10\.0\.0\.1 hands out no address: 10\.0\.0\.1 is the default gateway \(the subnet's first address\), which Harvester skips: widen the range, or set gateway/],
    ['an address given for a /31', { subnet: '10.0.0.4/31', rangeStart: '10.0.0.4' }, 'ranges[0].rangeStart',
      /^10\.0\.0\.4 is the subnet's network address, which Harvester refuses in a range: leave it out: Harvester takes no address given for a \/31, and by default hands out 10\.0\.0\.4 alone$/],
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

  it('finds at preview what the webhook refuses because of other pools: overlap, a taken priority', () => {
    const other: IPPool = { apiVersion: 'x', kind: 'IPPool', metadata: { name: 'other' }, spec: { ranges: [{ subnet: '10.0.0.0/24', rangeStart: '10.0.0.15', rangeEnd: '10.0.0.40' }], selector: { priority: 5, scope: [{ namespace: 'a' }] } } };
    const inputs = validateInputs({ name: 'p', ranges: [{ subnet: '10.0.0.0/24', rangeStart: '10.0.0.10', rangeEnd: '10.0.0.20' }], selector: { priority: 5, scope: [{ namespace: 'b' }] } }).inputs!;
    const found = Object.fromEntries(conflictsWithOthers(inputs, [other]).map((f) => [f.property, f.reason]));
    assert.deepEqual(Object.keys(found).sort(), ['ranges[0]', 'selector.priority']);
    assert.match(found['ranges[0]'], /overlaps IPPool other \(10\.0\.0\.15-10\.0\.0\.40\)/);
    assert.match(found['selector.priority'], /5 is already the priority of IPPool other/);
  });

  it('a priority-0 scope another priority-0 pool covers is refused on its tuple, naming that pool, the network and the ways out', () => {
    const other: IPPool = { apiVersion: 'x', kind: 'IPPool', metadata: { name: 'team-pool' }, spec: { ranges: [{ subnet: '10.1.0.0/24' }], selector: { scope: [{ namespace: 'team' }] } } };
    const inputs = validateInputs({ name: 'p', ranges: [{ subnet: '10.0.0.0/24' }], selector: { scope: [{ namespace: 'team' }] } }).inputs!;
    assert.deepEqual(conflictsWithOthers(inputs, [other]), [{
      property: 'selector.scope[0]',
      reason: '{project *, namespace team, guestCluster *} is also in the scope of IPPool team-pool, and both pools have priority 0 on no network (the webhook refuses two pools a load balancer would match alike): set a non-zero selector.priority, unique among pools, or a scope IPPool team-pool does not cover',
    }]);
  });

  it('a second global pool is refused on selector.scope, and nothing else is compared for it (upstream checks only that)', () => {
    const other: IPPool = { apiVersion: 'x', kind: 'IPPool', metadata: { name: 'other' }, spec: { ranges: [{ subnet: '10.1.0.0/24' }], selector: { priority: 5, scope: [{ project: '*', namespace: '*', guestCluster: '*' }] } } };
    const inputs = validateInputs({ name: 'p', ranges: [{ subnet: '10.0.0.0/24' }], selector: { priority: 5, scope: [{}] } }).inputs!;
    assert.deepEqual(conflictsWithOthers(inputs, [other]).map((f) => f.property), ['selector.scope']);
    assert.match(conflictsWithOthers(inputs, [other])[0].reason, /global pool, but IPPool other already is/);
  });

  it('accepts the first and last usable addresses, and refuses a gateway on either end of the range', () => {
    assert.deepEqual(failuresOf({ name: 'p', ranges: [{ subnet: '10.0.0.0/24', rangeStart: '10.0.0.1', rangeEnd: '10.0.0.254' }] }), {});
    const edge = (gateway: string) => failuresOf({ name: 'p', ranges: [{ subnet: '10.0.0.0/24', rangeStart: '10.0.0.10', rangeEnd: '10.0.0.20', gateway }] });
    for (const gateway of ['10.0.0.10', '10.0.0.20']) assert.match(edge(gateway)['ranges[0].gateway'] ?? '', /lies inside the range 10\.0\.0\.10-10\.0\.0\.20/, gateway);
    for (const gateway of ['10.0.0.9', '10.0.0.21']) assert.deepEqual(edge(gateway), {}, gateway);
  });

  it('reports a subnet of the wrong type once, as a type error, not as a bad CIDR', () => {
    const reasons = validateInputs({ name: 'p', ranges: [{ subnet: 24 }] }).failures.filter((f) => f.property === 'ranges[0].subnet').map((f) => f.reason);
    assert.equal(reasons.length, 1, JSON.stringify(reasons));
    assert.doesNotMatch(reasons[0], /not an IPv4 CIDR/);
  });

  it('scopes overlap only when every field matches, "*" or unset matching anything', () => {
    const table: [Record<string, unknown>, Record<string, unknown>, boolean][] = [
      [{ namespace: 'a' }, { namespace: 'a' }, true],
      [{ namespace: 'a' }, { namespace: 'b' }, false],
      [{ namespace: 'a' }, { namespace: 'a', project: 'p' }, true],
      [{ project: 'x', namespace: 'a' }, { project: 'y', namespace: 'a' }, false],
      [{ guestCluster: 'g1' }, { guestCluster: 'g2' }, false],
      [{ project: '*' }, { project: 'q', guestCluster: 'g' }, true],
    ];
    for (const [a, b, expected] of table) assert.equal(scopesOverlap(a, b), expected, `${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
  });

  it('a pool is global only with a tuple of "*" alone', () => {
    assert.equal(isGlobalScope([{}]), true);
    assert.equal(isGlobalScope([{ namespace: 'a' }, { project: '*', namespace: '*', guestCluster: '*' }]), false, 'isGlobalIPPool: exactly one tuple');
    assert.equal(isGlobalScope([{}], ''), false, 'in a pool read from the cluster a missing field is "", not "*"');
    assert.equal(isGlobalScope([{ namespace: 'a' }]), false);
    assert.equal(isGlobalScope([{ guestCluster: 'g' }]), false);
    assert.equal(isGlobalScope([]), false);
    assert.equal(isGlobalScope(undefined), false);
  });

  it('two priority-0 pools without scopes do not conflict: nothing of ours is in theirs', () => {
    const other: IPPool = { apiVersion: 'x', kind: 'IPPool', metadata: { name: 'other' }, spec: { ranges: [{ subnet: '10.1.0.0/24' }], selector: { priority: 0, scope: [] } } };
    const inputs = validateInputs({ name: 'p', ranges: [{ subnet: '10.0.0.0/24' }] }).inputs!;
    assert.deepEqual(conflictsWithOthers(inputs, [other]), []);
  });
});
