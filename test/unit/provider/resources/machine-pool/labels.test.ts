import assert from 'node:assert/strict';
import { formatLabelValue } from '../../../../../provider/resources/machine-pool/labels';
import { isReservedKey, labelKeyProblem, userEntries } from '../../../../../provider/core/labels';

describe('machine-pool labels: keys users may set, and values made the node driver\'s way', () => {
  it('accepts qualified keys and names what is wrong with the others', () => {
    for (const key of ['app', 'example.com/app', 'a.b-c/x_y.z', 'A1']) assert.equal(labelKeyProblem(key), undefined, key);
    const prefix = 'its prefix must be a DNS subdomain (e.g. "example.com/")';
    const name = 'its name must be 1–63 characters of letters, digits, "-", "_" or ".", starting and ending with a letter or digit';
    const table: [string, string][] = [
      ['Example.com/app', prefix],
      ['exa mple.com/app', prefix],
      [`${'a'.repeat(254)}/app`, prefix],
      ['example.com/', name],
      ['', name],
      ['a'.repeat(64), name],
      ['-app', name],
      ['app_', name],
    ];
    for (const [key, problem] of table) assert.equal(labelKeyProblem(key), problem, JSON.stringify(key));
    assert.equal(labelKeyProblem(`${'a'.repeat(253)}/${'b'.repeat(63)}`), undefined, 'both at their longest');
  });

  it('keeps a valid value, and hashes any other as hash_<base64url of FNV-1a 32>_z (driver labels.go)', () => {
    assert.equal(formatLabelValue('pool-a.1_x'), 'pool-a.1_x');
    assert.equal(formatLabelValue(''), '');
    // Expected values computed independently (FNV-1a 32 in Python, big-endian bytes, base64url without padding).
    assert.equal(formatLabelValue('has space'), 'hash_zGjxCQ_z');
    assert.equal(formatLabelValue('x'.repeat(64)), 'hash_0ZsaxQ_z');
    assert.equal(formatLabelValue('rancher/pool:ü'), 'hash_qCzxFg_z', 'bytes of UTF-8, not UTF-16 units');
  });

  it('treats the system prefixes as reserved, and keeps only user entries', () => {
    assert.equal(isReservedKey('harvesterhci.io/creator'), true);
    assert.equal(isReservedKey('app'), false);
    assert.deepEqual(userEntries({ app: 'web', 'harvesterhci.io/creator': 'x' }), { app: 'web' });
    assert.deepEqual(userEntries(undefined), {});
  });
});
