/**
 * judgePublicKey on the text around the key, as golang.org/x/crypto/ssh ParseAuthorizedKey reads it for Harvester:
 * the empty text, comment and blank lines (indented ones too), blanks between the fields, the comment kept whole,
 * options with escaped quotes, and which reading's reason the user gets when no line holds a key (the exact text
 * check shows, on publicKey, with Harvester's own words).
 */
import { strict as assert } from 'node:assert';
import { judgePublicKey } from '../../../../../provider/resources/key-pair/public-key';
import { validateInputs } from '../../../../../provider/resources/key-pair/validate';
import { ed25519Blob, keyLine, NOT_OPENSSH, REQUIRED } from '../../../../support/keypair-rules';

const NO_LINE = 'has no line of the form "<type> <base64 key> [comment]"';
const EXAMPLE = 'paste the one line of your .pub file (e.g. ~/.ssh/id_ed25519.pub: "ssh-ed25519 AAAA… me@laptop")';

const refusal = (text: string): string => {
  const v = judgePublicKey(text);
  assert.equal(v.ok, false, `expected ${JSON.stringify(text.slice(0, 60))} to be refused`);
  return v.reason;
};
const accepted = (text: string) => {
  const v = judgePublicKey(text);
  assert.ok(v.ok, v.ok ? '' : v.reason);
  return v;
};

describe('HarvesterKeyPair public key: the lines around the key', () => {
  const ed = ed25519Blob();
  const b64 = ed.toString('base64');

  it('an empty key "is empty", and check says Harvester requires one', () => {
    assert.equal(refusal(''), 'is empty');
    assert.deepEqual(validateInputs({ name: 'k', publicKey: '' }).failures, [
      { property: 'publicKey', reason: `is empty (Harvester refuses it: "${REQUIRED}"): ${EXAMPLE}` },
    ]);
  });

  it('text with no line of two words, or only comment lines (indented or not), has no key line', () => {
    for (const text of ['FAKE_PUBLIC_KEY', '# a key\n# another', '   # an indented comment', '\t# tab indented\r\n\n  \n']) {
      assert.equal(refusal(text), NO_LINE, JSON.stringify(text));
    }
    assert.deepEqual(validateInputs({ name: 'k', publicKey: '# my key' }).failures, [
      { property: 'publicKey', reason: `${NO_LINE} (Harvester refuses it: "${NOT_OPENSSH}"): ${EXAMPLE}` },
    ]);
  });

  it('data that is not padded standard base64 says so', () => {
    assert.equal(refusal('ssh-rsa not-base64!!'), 'holds no key Harvester accepts: the key data is not padded standard base64');
  });

  it('takes several blanks or tabs between the fields, and keeps a comment of several words', () => {
    for (const text of [`ssh-ed25519  ${b64}   my work laptop`, `ssh-ed25519\t${b64}\tmy work laptop`, `  ssh-ed25519 ${b64} my work laptop  `]) {
      const v = accepted(text);
      assert.deepEqual(v.wire, ed, JSON.stringify(text));
      assert.equal(v.comment, 'my work laptop');
    }
    assert.equal(accepted(keyLine('ssh-ed25519', ed)).comment, '');
  });

  it('reads options whose quoted value holds escaped quotes and blanks up to the key', () => {
    const v = accepted(`command="echo \\"a b\\" c",no-pty ${keyLine('ssh-ed25519', ed, 'me@laptop')}`);
    assert.deepEqual(v.wire, ed);
    assert.equal(v.comment, 'me@laptop');
  });

  it('a line whose type word is wrong gets the reason of the reading with the key data: the type it should have said', () => {
    // The options reading (`<b64> me@laptop`) would blame the comment for not being base64.
    assert.equal(refusal(`ed25519 ${b64} me@laptop`), 'holds no key Harvester accepts: the line says ed25519 but the key data is ssh-ed25519');
  });
});
