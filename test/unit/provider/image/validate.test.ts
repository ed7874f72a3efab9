/**
 * HarvesterImage's pure input rules beyond the model: URLs Harvester could not download (the webhook's url.Parse,
 * Longhorn's http(s) with a host) and label keys and values the apiserver refuses, each refused on its field with
 * the exact reason; what the apiserver takes is accepted.
 */
import assert from 'node:assert/strict';
import { formatPath } from '../../../../provider/core/input-errors';
import { urlProblem, validateInputs } from '../../../../provider/resources/image/validate';

const failuresOf = (extra: Record<string, unknown>) =>
  Object.fromEntries(validateInputs({ name: 'img', url: 'https://example.com/x.img', ...extra }).failures.map((f) => [f.property, f.reason]));
/** The property a failure of label `key` names. */
const label = (key: string) => formatPath(['labels', key]);
const NOT_A_KEY = 'is not a label key: at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit';
const NOT_A_VALUE = 'is not a label value: at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit';
const NO_HOST = 'has no host: write it as http(s)://host/path';

describe('HarvesterImage validate: urls and labels', () => {
  it('a %-sign must start a two-digit escape: "%a" followed by a letter that is not hex is refused', () => {
    assert.equal(urlProblem('https://example.com/%41%2f.img'), undefined);
    assert.equal(
      urlProblem('https://example.com/%az.img'),
      'holds "%az", which is not a %-escape (Harvester\'s webhook refuses it: "invalid URL escape"): write "%25" for a literal "%"',
    );
  });

  it('a URL with user info names the host after the "@"', () => {
    assert.equal(urlProblem('https://user@example.com/x.img'), undefined);
    assert.equal(urlProblem('https://user:secret@example.com:8443/x.img'), undefined);
    // Go's url.Parse splits the user info at the last "@" of the authority, and allows "@" inside it.
    assert.equal(urlProblem('https://a@b@example.com/x.img'), undefined);
    assert.match(urlProblem('https://a@b@exa_mple.com/x.img') ?? '', /^has host "exa_mple.com"/);
  });

  it('a URL the WHATWG parser repairs but Go reads without a host is refused for its host', () => {
    // Leading blanks, one slash, three slashes: WHATWG finds a host, Go's url.Parse (and so Longhorn) none.
    assert.equal(urlProblem(' https://example.com/x.img'), NO_HOST);
    assert.equal(urlProblem('https:/example.com/x.img'), NO_HOST);
    assert.equal(urlProblem('https:///example.com/x.img'), NO_HOST);
  });

  it('label keys: a DNS-subdomain prefix of at most 253 characters, then a name of at most 63', () => {
    const prefix253 = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`;
    assert.equal(prefix253.length, 253);
    const name63 = 'n'.repeat(63);
    assert.deepEqual(failuresOf({ labels: { 'example.com/tier': 'web', team: 'a', [`${prefix253}/${name63}`]: 'v', [name63]: 'v' } }), {});
    const long = `${prefix253}e`;
    assert.deepEqual(failuresOf({ labels: { [`${long}/x`]: 'v', 'Example.com/x': 'v', '/x': 'v', [`a/${name63}n`]: 'v', [`${name63}n`]: 'v', 'example.com/': 'v', 'a/-x': 'v' } }), {
      [label(`${long}/x`)]: `"${long}/x" has a prefix that is not a DNS subdomain, e.g. "example.com/tier"`,
      [label('Example.com/x')]: '"Example.com/x" has a prefix that is not a DNS subdomain, e.g. "example.com/tier"',
      [label('/x')]: '"/x" has a prefix that is not a DNS subdomain, e.g. "example.com/tier"',
      [label(`a/${name63}n`)]: `"a/${name63}n" ${NOT_A_KEY}`,
      [label(`${name63}n`)]: `"${name63}n" ${NOT_A_KEY}`,
      [label('example.com/')]: `"example.com/" ${NOT_A_KEY}`,
      [label('a/-x')]: `"a/-x" ${NOT_A_KEY}`,
    });
  });

  it('label values: at most 63 characters of the label alphabet, or empty', () => {
    const v63 = 'v'.repeat(63);
    assert.deepEqual(failuresOf({ labels: { a: v63, b: '', c: 'x.y_z-1' } }), {});
    assert.deepEqual(failuresOf({ labels: { a: `${v63}v`, b: 'a b', c: '-x' } }), {
      [label('a')]: `"${v63}v" ${NOT_A_VALUE}`,
      [label('b')]: `"a b" ${NOT_A_VALUE}`,
      [label('c')]: `"-x" ${NOT_A_VALUE}`,
    });
  });

  it('labels that are not an object are refused once, by the model, and never read as keys', () => {
    assert.deepEqual(failuresOf({ labels: 'a b' }), { labels: 'must be an object of string keys (got a string ("a b"))' });
    assert.deepEqual(failuresOf({ labels: ['a b'] }), { labels: 'must be an object of string keys (got a list)' });
    assert.deepEqual(failuresOf({ labels: null }), { labels: 'must be an object of string keys (got null)' });
  });
});
