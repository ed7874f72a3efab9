/**
 * Secrets as the runner's engine handles them (runner/secrets.ts): the SDK's signature object unwrapped at any
 * depth and reported by top-level property, wrapped again on the way back; and the SecretBox that seals values of
 * the state file and Pulumi.<stack>.yaml with the stack's key file, made (mode 0600) on the first seal only.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isSecretValue, SECRET_SIG_KEY, SECRET_SIG_VALUE, SecretBox, secretValue, unwrapSecrets, wrapSecrets } from '../../../runner/secrets';

describe('runner secrets: the SDK signature', () => {
  it('recognises only the signature object with the secret signature value', () => {
    assert.deepEqual(secretValue('x'), { '4dabf18193072939515e22adb298388d': '1b47061264138c4ac30d75fd1eb44270', value: 'x' });
    assert.equal(isSecretValue(secretValue(undefined)), true);
    assert.equal(isSecretValue({ [SECRET_SIG_KEY]: 'another signature', value: 'x' }), false);
    assert.equal(isSecretValue({ value: 'x' }), false);
    assert.equal(isSecretValue(null), false);
    assert.equal(isSecretValue(SECRET_SIG_VALUE), false);
  });

  it('unwraps at any depth, nested secrets too, and reports each top-level property once, sorted', () => {
    const { plain, secretKeys } = unwrapSecrets({
      z: secretValue({ inner: secretValue('deep') }),
      a: [1, { b: secretValue(2) }],
      plain: { n: null, s: 'x' },
      count: 3,
    });
    assert.deepEqual(plain, { z: { inner: 'deep' }, a: [1, { b: 2 }], plain: { n: null, s: 'x' }, count: 3 });
    assert.deepEqual(secretKeys, ['a', 'z']);
    assert.deepEqual(unwrapSecrets({}), { plain: {}, secretKeys: [] });
  });

  it('wraps only named properties that hold a value', () => {
    const wrapped = wrapSecrets({ a: 'x', b: 'y', gone: undefined }, ['a', 'gone', 'missing']);
    assert.deepEqual(wrapped, { a: secretValue('x'), b: 'y', gone: undefined });
    assert.equal('missing' in wrapped, false);
    assert.deepEqual(wrapSecrets({ a: 0 }, ['a']), { a: secretValue(0) });
  });
});

describe('runner secrets: SecretBox', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'runner-secrets-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('makes its key on the first seal only, in a new folder, private, 32 random bytes in base64', () => {
    const keyFile = join(dir, 'state', 'dev.key');
    const box = SecretBox.forKeyFile(keyFile);
    assert.equal(box.keyFile, keyFile);
    assert.equal(existsSync(keyFile), false);
    const sealed = box.seal({ a: [1, 'two'] });
    assert.equal(statSync(keyFile).mode & 0o777, 0o600);
    assert.equal(Buffer.from(readFileSync(keyFile, 'utf8'), 'base64').length, 32);
    assert.match(sealed, /^sealed:aes-256-gcm:[A-Za-z0-9+/]+=*$/);
    assert.notEqual(box.seal({ a: [1, 'two'] }), sealed, 'a fresh IV per seal');
    assert.deepEqual(SecretBox.forKeyFile(keyFile).open(sealed), { a: [1, 'two'] });
  });

  it('a second box of the same file uses the key already there', () => {
    const keyFile = join(dir, 'k');
    const sealed = SecretBox.forKeyFile(keyFile).seal('one');
    const key = readFileSync(keyFile, 'utf8');
    assert.equal(SecretBox.forKeyFile(keyFile).open(SecretBox.forKeyFile(keyFile).seal('two')), 'two');
    assert.equal(readFileSync(keyFile, 'utf8'), key);
    assert.equal(SecretBox.forKeyFile(keyFile).open(sealed), 'one');
  });

  it('opening without its key file says the values cannot be opened and how to set them again', () => {
    const keyFile = join(dir, 'dev.key');
    const sealed = SecretBox.forKeyFile(keyFile).seal('x');
    rmSync(keyFile);
    assert.throws(() => SecretBox.forKeyFile(keyFile).open(sealed), {
      message: `${keyFile} does not exist: the values sealed with it cannot be opened (was the state folder moved or deleted?). Set secret config again with \`harvester-iac-run config set --secret\`.`,
    });
    assert.equal(existsSync(keyFile), false, 'opening never makes a key');
  });

  it('refuses a key file that is not a 32-byte key, and a value sealed with another key or altered', () => {
    const keyFile = join(dir, 'bad.key');
    writeFileSync(keyFile, Buffer.alloc(16).toString('base64'));
    assert.throws(() => SecretBox.forKeyFile(keyFile).seal('x'), { message: `${keyFile} does not hold a 32-byte base64 key; delete it only if nothing was sealed with it` });
    const other = SecretBox.forKeyFile(join(dir, 'other.key')).seal('x');
    const mine = SecretBox.forKeyFile(join(dir, 'mine.key'));
    mine.seal('make the key');
    assert.throws(() => mine.open(other), { message: `a sealed value does not open with ${join(dir, 'mine.key')}: it was sealed with another key, or altered` });
    assert.throws(() => mine.open('v1:pulumi-cli-ciphertext'), { message: 'not a sealed value' });
  });

  it('isSealed: strings with the runner\'s prefix only', () => {
    assert.equal(SecretBox.isSealed('sealed:aes-256-gcm:abc'), true);
    assert.equal(SecretBox.isSealed('v1:abc'), false);
    assert.equal(SecretBox.isSealed({ secure: 'sealed:aes-256-gcm:abc' }), false);
  });

  it('seals and opens only the named properties: a missing one is skipped, a non-string one is not opened', () => {
    const box = SecretBox.forKeyFile(join(dir, 'k'));
    const sealed = box.sealProps({ a: 'x', b: 'y', c: 0 }, ['a', 'c', 'missing']);
    assert.equal(sealed.b, 'y');
    assert.ok(SecretBox.isSealed(sealed.a) && SecretBox.isSealed(sealed.c));
    assert.equal('missing' in sealed, false);
    assert.deepEqual(box.openProps(sealed, ['a', 'c', 'missing']), { a: 'x', b: 'y', c: 0 });
    assert.deepEqual(box.openProps({ a: 5 }, ['a']), { a: 5 });
    assert.equal(existsSync(join(dir, 'none.key')), false);
    SecretBox.forKeyFile(join(dir, 'none.key')).sealProps({ a: undefined }, ['a']);
    assert.equal(existsSync(join(dir, 'none.key')), false, 'nothing sealed, no key made');
  });
});
