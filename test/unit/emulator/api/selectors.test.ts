import assert from 'node:assert/strict';
import { parseFieldSelector, parseLabelSelector } from '../../../../emulator/api/selectors';
import { KubeObject } from '../../../../emulator/api/types';
import { expectStatus } from './fixtures';

describe('label selectors', () => {
  const labels = { app: 'demo', tier: 'web', n: '5', 'topology.kubernetes.io/zone': 'z1' };
  const cases: Record<string, { selector: string; want: boolean }> = {
    'empty selects all': { selector: '', want: true },
    'equals': { selector: 'app=demo', want: true },
    'double equals': { selector: 'app==demo', want: true },
    'equals mismatch': { selector: 'app=x', want: false },
    'not equals on other value': { selector: 'app!=x', want: true },
    'not equals on missing key': { selector: 'missing!=x', want: true },
    'not equals same value': { selector: 'app!=demo', want: false },
    'in': { selector: 'app in (demo,x)', want: true },
    'in without spaces': { selector: 'app in(x,demo)', want: true },
    'in miss': { selector: 'app in (x, y)', want: false },
    'notin hit': { selector: 'app notin (demo)', want: false },
    'notin on missing key': { selector: 'missing notin (a)', want: true },
    'exists': { selector: 'tier', want: true },
    'exists missing': { selector: 'missing', want: false },
    'not exists': { selector: '!missing', want: true },
    'not exists present': { selector: '!app', want: false },
    'prefixed key': { selector: 'topology.kubernetes.io/zone=z1', want: true },
    'AND of requirements': { selector: 'app=demo, tier in (web), !missing', want: true },
    'AND with one false': { selector: 'app=demo,tier=db', want: false },
    'greater than': { selector: 'n>3', want: true },
    'less than': { selector: 'n<3', want: false },
    'empty value equals': { selector: 'missing=', want: false },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(`${name}: ${JSON.stringify(c.selector)}`, () => {
      assert.equal(parseLabelSelector(c.selector).matches(labels), c.want);
    });
  }

  it('an empty value matches a label with an empty value', () => {
    assert.equal(parseLabelSelector('a=').matches({ a: '' }), true);
  });

  it('rejects malformed selectors with 400 (texts: label-selector.test.ts)', () => {
    for (const bad of ['app in demo', '=x', 'app=demo,', 'app=a b', 'bad key=1', 'n>x', 'app in (a', '!']) {
      expectStatus(() => parseLabelSelector(bad), 400, 'BadRequest');
    }
  });
});

describe('field selectors', () => {
  const obj = { apiVersion: 'v1', kind: 'X', metadata: { name: 'lb1', namespace: 'default' } } as KubeObject;

  it('supports metadata.name and metadata.namespace with =, ==, != and comma-AND', () => {
    assert.equal(parseFieldSelector('metadata.name=lb1').matches(obj), true);
    assert.equal(parseFieldSelector('metadata.name==lb1').matches(obj), true);
    assert.equal(parseFieldSelector('metadata.name!=lb1').matches(obj), false);
    assert.equal(parseFieldSelector('metadata.name=lb1,metadata.namespace=other').matches(obj), false);
    assert.equal(parseFieldSelector('metadata.namespace!=other,metadata.name=lb1').matches(obj), true);
    assert.equal(parseFieldSelector('').matches(obj), true);
    assert.equal(parseFieldSelector('metadata.name=lb1').exact('metadata.name'), 'lb1');
  });

  it('handles escaped values', () => {
    const odd = { ...obj, metadata: { name: 'a,b=c' } } as KubeObject;
    assert.equal(parseFieldSelector('metadata.name=a\\,b\\=c').matches(odd), true);
  });

  it('400 field label not supported for any other field', () => {
    const e = expectStatus(() => parseFieldSelector('spec.ipam=pool'), 400, 'BadRequest');
    assert.equal(e.message, 'field label not supported: spec.ipam');
  });

  it('400 for terms without an operator', () => {
    expectStatus(() => parseFieldSelector('metadata.name'), 400, 'BadRequest');
    expectStatus(() => parseFieldSelector('metadata.name=a=b'), 400, 'BadRequest');
  });

  it('accepts extra field labels when given', () => {
    const node = { ...obj, spec: { unschedulable: true } } as KubeObject;
    const sel = parseFieldSelector('spec.unschedulable=true', { 'spec.unschedulable': (o) => String((o.spec as Record<string, unknown>)?.unschedulable ?? false) });
    assert.equal(sel.matches(node), true);
  });
});
