/**
 * The names of GuestClusterCredentials' objects are joined as wrangler's `name.SafeConcatName` joins them
 * (docs/design/harvester-naming.md): the cases of wrangler's own test table (pkg/name/name_test.go
 * TestSafeConcatName), restated, through the function the package exports (`harvester-iac/provider`).
 * test/integration/guest-credentials-names.test.ts holds the objects' names on a cluster to the same rule.
 */
import assert from 'node:assert/strict';
import { guestClusterCredentialSets } from '../../../../provider';

const a = (n: number) => 'a'.repeat(n);

/** Upstream's table: parts in, the name out (the hashes are upstream's expectations, not computed here). */
const UPSTREAM_CASES: { what: string; parts: string[]; name: string }[] = [
  { what: 'no parts', parts: [], name: '' },
  { what: 'one part of 63 characters: kept', parts: [a(63)], name: a(63) },
  { what: 'one part of 64 characters: cut to 57, a dash and 5 hex digits of its sha256', parts: [a(64)], name: `${a(57)}-ffe05` },
  { what: 'parts joined by dashes', parts: ['first', 'second', 'third'], name: 'first-second-third' },
  { what: 'two parts joined to 65 characters: cut to 57, hashed', parts: [a(32), a(32)], name: `${a(32)}-${a(24)}-da5ed` },
  { what: '64 characters whose 57th is a dash: cut to 56, a dash and 6 hex digits', parts: [`${a(56)}-${a(7)}`], name: `${a(56)}-768c62` },
  { what: '64 characters whose 56th and 57th are dashes: cut to 56 (ending in a dash), 6 hex digits', parts: [`${a(55)}--${a(7)}`], name: `${a(55)}--9e8cfe` },
];

describe('GuestClusterCredentials names: wrangler SafeConcatName, upstream\'s test table', () => {
  for (const c of UPSTREAM_CASES) {
    it(c.what, () => {
      assert.equal(guestClusterCredentialSets.safeConcatName(...c.parts), c.name);
    });
  }

  it('a joined name of 63 characters is kept, of 64 and 65 cut and hashed (the token Secret, the bindings)', () => {
    const names = (namespace: string, serviceAccount: string) => guestClusterCredentialSets.credentialNames(namespace, serviceAccount);
    assert.equal(names('default', 'b'.repeat(57)).tokenSecret, `${'b'.repeat(57)}-token`);
    assert.equal(names('default', 'b'.repeat(58)).tokenSecret, `${'b'.repeat(57)}-28800`);
    assert.equal(names('default', 'b'.repeat(59)).tokenSecret, `${'b'.repeat(57)}-e3cb7`);
    assert.equal(names(a(32), a(31)).roleBinding, `${a(32)}-${a(24)}-0f23c`);
    assert.equal(names(a(32), a(32)).clusterRoleBinding, `${a(32)}-${a(24)}-da5ed`);
  });
});
