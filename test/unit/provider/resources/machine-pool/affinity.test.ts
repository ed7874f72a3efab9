import assert from 'node:assert/strict';
import { buildAffinity, defaultAntiAffinity, mentionsNodeKey, splitAffinity, ZONE_KEY } from '../../../../../provider/resources/machine-pool/affinity';
import { nodeAffinitySchema } from '../../../../../provider/resources/machine-pool/affinity-schema';

type Obj = Record<string, unknown>;
const MS = 'pool-ms';
const HOST = 'kubernetes.io/hostname';
// The driver's weight-1 anti-affinity term for machine set MS (what buildAffinity appends).
const msTerm = (name = MS) => ({ weight: 1, podAffinityTerm: { labelSelector: { matchLabels: { 'harvesterhci.io/machineSetName': name } }, topologyKey: HOST } });
const userTerm = { weight: 50, podAffinityTerm: { labelSelector: { matchLabels: { app: 'db' } }, topologyKey: HOST } };
const expr = (key: string, values = ['x'], operator = 'In') => ({ key, operator, values });
const required = (...terms: Obj[]) => ({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } });

describe('machine-pool affinity build and split', () => {
  it('uses the driver default for a missing or empty raw affinity', () => {
    assert.deepEqual(buildAffinity(undefined, MS, undefined), defaultAntiAffinity());
    assert.deepEqual(buildAffinity({}, MS, undefined), defaultAntiAffinity());
  });

  it('leaves a node-only raw affinity alone (no machine-set term without pod affinity)', () => {
    const raw = required({ matchExpressions: [expr('disk', ['ssd'])] });
    assert.deepEqual(buildAffinity(raw, MS, undefined), raw);
  });

  it('ANDs the zone into each existing required term without adding a term', () => {
    const raw = required({ matchExpressions: [expr('disk', ['ssd'])] }, { matchFields: [expr('metadata.name', ['n1'])] });
    assert.deepEqual(buildAffinity(raw, MS, 'z1'), required(
      { matchExpressions: [expr('disk', ['ssd']), expr(ZONE_KEY, ['z1'])] },
      { matchFields: [expr('metadata.name', ['n1'])], matchExpressions: [expr(ZONE_KEY, ['z1'])] },
    ));
  });

  // Each raw affinity must come back exactly from its built form (else read-back reports false drift).
  const roundTrips: [string, Obj, string | undefined][] = [
    ['user preferred anti-affinity keeps its own term', { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [userTerm] } }, undefined],
    ['pod affinity alone loses the added anti-affinity block', { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [userTerm] } }, 'z1'],
    ['required anti-affinity keeps its block', { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [userTerm.podAffinityTerm] } }, undefined],
    ['another machine set\'s term is the user\'s', { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [msTerm('other')] } }, 'z2'],
    ['node affinity next to a zone', required({ matchExpressions: [expr('disk', ['ssd'])] }), 'z1'],
  ];
  for (const [name, raw, zone] of roundTrips) {
    it(`splits a built affinity back into zone and raw: ${name}`, () => {
      assert.deepEqual(splitAffinity(buildAffinity(raw, MS, zone), MS), { zone, raw });
    });
  }

  it('appends the machine-set term after the user\'s own terms', () => {
    const built = buildAffinity({ podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [userTerm] } }, MS, undefined);
    assert.deepEqual((built.podAntiAffinity as Obj).preferredDuringSchedulingIgnoredDuringExecution, [userTerm, msTerm()]);
  });

  it('reads the driver default, with or without a zone, as no user affinity', () => {
    assert.deepEqual(splitAffinity(buildAffinity(undefined, MS, 'z3'), MS), { zone: 'z3' });
    assert.deepEqual(splitAffinity(undefined, MS), { zone: undefined });
  });

  it('does not take a user\'s own one-value expression, or a multi-zone one, for the pool zone', () => {
    for (const e of [expr('disk', ['ssd']), expr(ZONE_KEY, ['z1', 'z2']), expr(ZONE_KEY, ['z1'], 'NotIn')]) {
      const raw = required({ matchExpressions: [e] });
      assert.deepEqual(splitAffinity(raw, MS), { zone: undefined, raw }, JSON.stringify(e));
    }
  });
});

describe('machine-pool mentionsNodeKey', () => {
  const cases: [string, Obj | undefined, string, boolean][] = [
    ['no node affinity', { podAffinity: {} }, ZONE_KEY, false],
    ['a key in a preferred term only', { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchExpressions: [expr(ZONE_KEY)] } }] } }, ZONE_KEY, true],
    ['one of two required terms', required({ matchExpressions: [expr('disk')] }, { matchExpressions: [expr(ZONE_KEY)] }), ZONE_KEY, true],
    ['one of two expressions, in matchFields', required({ matchExpressions: [expr('disk')], matchFields: [expr(ZONE_KEY)] }), ZONE_KEY, true],
    ['a longer key is not the key', required({ matchExpressions: [expr(`${ZONE_KEY}-x`)] }), ZONE_KEY, false],
    ['a prefix matches keys under it', required({ matchExpressions: [expr('network.harvesterhci.io/mgmt')] }), 'network.harvesterhci.io/', true],
    ['a prefix does not match other keys', required({ matchExpressions: [expr('disk')] }), 'network.harvesterhci.io/', false],
    ['a null expression is skipped', required({ matchExpressions: [null] }), ZONE_KEY, false],
  ];
  for (const [name, raw, key, want] of cases) {
    it(`${name}: ${want}`, () => assert.equal(mentionsNodeKey(raw, key), want));
  }
});

describe('machine-pool affinity schema value rules', () => {
  const issues = (operator: string, values?: string[]) => {
    const r = nodeAffinitySchema.safeParse(required({ matchExpressions: [{ key: 'k', operator, values }] }).nodeAffinity);
    return r.success ? [] : r.error.issues.map((i) => i.message);
  };
  const INT = (op: string) => `must be exactly one integer with operator ${op}, e.g. ["3"]`;
  const cases: [string, string[] | undefined, string[]][] = [
    ['In', [], ['must list at least one value with operator In']],
    ['NotIn', undefined, ['must list at least one value with operator NotIn']],
    ['NotIn', ['a'], []],
    ['Exists', ['a', 'b'], ['must be empty with operator Exists (got 2 values); remove values']],
    ['DoesNotExist', [], []],
    ['DoesNotExist', ['a'], ['must be empty with operator DoesNotExist (got 1 values); remove values']],
    ['Gt', ['x'], [INT('Gt')]],
    ['Lt', ['3x'], [INT('Lt')]],
    ['Lt', ['1', '2'], [INT('Lt')]],
    ['Gt', [], [INT('Gt')]],
    ['Gt', ['-42'], []],
    ['Lt', ['10'], []],
  ];
  for (const [operator, values, want] of cases) {
    it(`${operator} ${JSON.stringify(values)}: ${want.length ? 'refused' : 'accepted'}`, () => assert.deepEqual(issues(operator, values), want));
  }
});
