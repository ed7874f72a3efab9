/**
 * The label-selector grammar against kube-apiserver's parser. Expected answers come from apimachinery's own
 * tests, restated here in our words: k8s.io/apimachinery pkg/labels/selector_test.go at v0.32.9
 * (TestSelectorParse, TestSelectorMatches, TestSetSelectorParser, TestRequirementSelectorMatching, and the
 * lexer tables, where `in`/`notin` become plain values), plus the error texts of pkg/labels/selector.go.
 * See docs/design/kube-api.md §2.
 */
import assert from 'node:assert/strict';
import { LabelRequirement, parseLabelSelector } from '../../../../emulator/api/label-selector';
import { expectStatus } from './fixtures';

type Op = LabelRequirement['operator'];
const req = (key: string, operator: Op, values: string[] = []): LabelRequirement => ({ key, operator, values });
const parsed = (s: string): LabelRequirement[] => parseLabelSelector(s).requirements;
const rejects = (s: string): string => expectStatus(() => parseLabelSelector(s), 400, 'BadRequest').message;

describe('label selectors: the grammar of apimachinery pkg/labels', () => {
  describe('TestSelectorParse', () => {
    for (const good of ['x=a,y=b,z=c', '', 'x!=a,y=b', 'x=', 'x= ', 'x=,z= ', 'x= ,z= ', '!x', 'x>1', 'x>1,z<5']) {
      it(`accepts ${JSON.stringify(good)}`, () => assert.doesNotThrow(() => parseLabelSelector(good)));
    }
    for (const bad of ['x=a||y=b', 'x==a==b', '!x=a', 'x<a']) {
      it(`refuses ${JSON.stringify(bad)}`, () => rejects(bad));
    }
  });

  describe('TestSetSelectorParser (input → requirements, sorted by key)', () => {
    const table: [string, LabelRequirement[]][] = [
      ['', []],
      ['\rx', [req('x', 'exists')]],
      ['this-is-a-dns.domain.com/key-with-dash', [req('this-is-a-dns.domain.com/key-with-dash', 'exists')]],
      ['this-is-another-dns.domain.com/key-with-dash in (so,what)', [req('this-is-another-dns.domain.com/key-with-dash', 'in', ['so', 'what'])]],
      ['0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)', [req('0.1.2.domain/99', 'notin', ['10.10.100.1', 'tick.tack.clock'])]],
      ['foo  in\t (abc)', [req('foo', 'in', ['abc'])]],
      ['x notin\n (abc)', [req('x', 'notin', ['abc'])]],
      ['x  notin\t\t(abc,def)', [req('x', 'notin', ['abc', 'def'])]],
      ['x in (abc,def)', [req('x', 'in', ['abc', 'def'])]],
      ['x in (abc,)', [req('x', 'in', ['', 'abc'])]],
      ['x in ()', [req('x', 'in', [''])]],
      ['x notin (abc,,def),bar,z in (),w', [req('bar', 'exists'), req('w', 'exists'), req('x', 'notin', ['', 'abc', 'def']), req('z', 'in', [''])]],
      ['x=a', [req('x', 'equals', ['a'])]],
      ['x>1', [req('x', 'gt', ['1'])]],
      ['x<7', [req('x', 'lt', ['7'])]],
      ['x=a,y!=b', [req('x', 'equals', ['a']), req('y', 'notequals', ['b'])]],
      ['x=a,y!=b,z in (h,i,j)', [req('x', 'equals', ['a']), req('y', 'notequals', ['b']), req('z', 'in', ['h', 'i', 'j'])]],
      ['x notin ( )', [req('x', 'notin', [''])]],
      ['x notin (, a)', [req('x', 'notin', ['', 'a'])]],
      ['a ', [req('a', 'exists')]],
      // `in` and `notin` inside the list are values, not operators.
      ['a in (x,y,notin, z,in)', [req('a', 'in', ['in', 'notin', 'x', 'y', 'z'])]],
    ];
    for (const [input, want] of table) {
      it(`${JSON.stringify(input)}`, () => assert.deepEqual(parsed(input), want));
    }
    it('"x,y in (a)" parses (upstream marks only its requirement order as not matching)', () => {
      assert.deepEqual(parsed('x,y in (a)'), [req('x', 'exists'), req('y', 'in', ['a'])]);
    });
    for (const bad of ['x=a||y=b', 'x,,y', ',x,y', 'x nott in (y)', 'a in (xyz),', 'a in (xyz)b notin ()', 'a in (xyz abc)', 'a notin(', 'a (', '(']) {
      it(`refuses ${JSON.stringify(bad)}`, () => rejects(bad));
    }
  });

  describe('in and notin as values (the Values parser context)', () => {
    const labels = { mode: 'in', other: 'notin', notin: 'in' };
    const table: [string, LabelRequirement[], boolean][] = [
      ['mode=in', [req('mode', 'equals', ['in'])], true],
      ['mode!=in', [req('mode', 'notequals', ['in'])], false],
      ['mode=notin', [req('mode', 'equals', ['notin'])], false],
      ['mode==notin', [req('mode', 'equals', ['notin'])], false],
      ['mode in (in,notin)', [req('mode', 'in', ['in', 'notin'])], true],
      ['other notin (in)', [req('other', 'notin', ['in'])], true],
      // TestSelectorMatches: "notin=in" matches {notin: in}; a key may be spelled like an operator.
      ['notin=in', [req('notin', 'equals', ['in'])], true],
      ['in', [req('in', 'exists')], false],
    ];
    for (const [input, want, matches] of table) {
      it(`${input} parses and ${matches ? 'matches' : 'does not match'} ${JSON.stringify(labels)}`, () => {
        assert.deepEqual(parsed(input), want);
        assert.equal(parseLabelSelector(input).matches(labels), matches);
      });
    }
  });

  describe('TestSelectorMatches and TestRequirementSelectorMatching', () => {
    const table: [string, Record<string, string>, boolean][] = [
      ['', { x: 'y' }, true],
      ['x=y', { x: 'y' }, true],
      ['x=y,z=w', { x: 'y', z: 'w' }, true],
      ['x!=y,z!=w', { x: 'z', z: 'a' }, true],
      ['x', { x: 'z' }, true],
      ['!x', { y: 'z' }, true],
      ['x>1', { x: '2' }, true],
      ['x<1', { x: '0' }, true],
      ['x=z', {}, false],
      ['x=y', { x: 'z' }, false],
      ['x=y,z=w', { x: 'w', z: 'w' }, false],
      ['x!=y,z!=w', { x: 'z', z: 'w' }, false],
      ['x', { y: 'z' }, false],
      ['!x', { x: 'z' }, false],
      ['x>1', { x: '0' }, false],
      ['x<1', { x: '2' }, false],
      ['foo=bar,baz=blah', { foo: 'bar', baz: 'blah' }, true],
      ['foo=bar,foobar=bar,baz=blah', { foo: 'bar', baz: 'blah' }, false],
      ['x in (foo),y notin (alpha)', { x: 'foo', y: 'baz' }, true],
      ['x in (foo),y in (alpha)', { x: 'foo', y: 'baz' }, false],
      ['x notin (),y', { y: '' }, true],
      ['!x,y', { y: '' }, true],
      ['x notin (),!y', { y: '' }, false],
      ['x in ()', { y: 'baz' }, false],
      ['z>1', { z: '2' }, true],
      ['z>1', { z: 'v2' }, false],
    ];
    for (const [selector, labels, want] of table) {
      it(`${JSON.stringify(selector)} on ${JSON.stringify(labels)} → ${want}`, () => assert.equal(parseLabelSelector(selector).matches(labels), want));
    }
    it('reads integers as Go strconv.ParseInt: a + sign is fine, beyond int64 is not a number', () => {
      assert.equal(parseLabelSelector('n>4').matches({ n: '+5' }), true);
      assert.equal(parseLabelSelector('n>4').matches({ n: '99999999999999999999' }), false);
    });
  });

  describe('error texts (pkg/labels/selector.go)', () => {
    const table: [string, string][] = [
      ['x=a||y=b', 'unable to parse requirement: values[0][x]: Invalid value: "a||y": a valid label must be an empty string or consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyValue\',  or \'my_value\',  or \'12345\', regex used for validation is \'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?\')'],
      ['x==a==b', "found '==', expected: ',' or 'end of string'"],
      ['!x=a', "found '=', expected: ',' or 'end of string'"],
      ['x<a', 'unable to parse requirement: values[0]: Invalid value: "a": for \'Gt\', \'Lt\' operators, the value must be an integer'],
      ['x,,y', "found ',', expected: identifier after ','"],
      [',x', "found ',', expected: !, identifier, or 'end of string'"],
      ['a in (xyz),', "found '', expected: identifier after ','"],
      ['x nott in (y)', "unable to parse requirement: found 'nott', expected: in, notin, =, ==, !=, gt, lt"],
      ['a in (xyz abc)', "unable to parse requirement: found 'abc', expected: ',' or ')'"],
      ['a notin(', "unable to parse requirement: found '', expected: ',', ')' or identifier"],
      ['a in x', "unable to parse requirement: found 'x' expected: '('"],
      ['!', "unable to parse requirement: found '', expected: identifier"],
      ['x>=1', "unable to parse requirement: found '=', expected: identifier"],
      ['-x', 'unable to parse requirement: <nil>: Invalid value: "-x": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')'],
    ];
    for (const [input, message] of table) {
      it(`${JSON.stringify(input)}`, () => assert.equal(rejects(input), message));
    }
  });
});
