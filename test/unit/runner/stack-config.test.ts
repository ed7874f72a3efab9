/**
 * Pulumi.<stack>.yaml in process (runner/stack-config.ts): keys qualified and shown as the Pulumi CLI does; values
 * listed sorted, secrets sealed with the stack's key and opened only when asked; the CLI's `v1:` ciphertext and a
 * malformed file refused naming the file and the fix; comments and other keys kept; the file written atomically.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SecretBox } from '../../../runner/secrets';
import { displayKey, qualifyKey, StackConfigFile } from '../../../runner/stack-config';

describe('runner stack config: keys', () => {
  it('qualifies a bare key with the project and keeps a namespaced one', () => {
    assert.equal(qualifyKey('region', 'proj'), 'proj:region');
    assert.equal(qualifyKey('harvester:kubeconfig', 'proj'), 'harvester:kubeconfig');
  });

  it('refuses an empty or malformed key, saying what a key looks like', () => {
    for (const bad of ['', '  ']) assert.throws(() => qualifyKey(bad, 'p'), { message: 'a config key cannot be empty' });
    for (const bad of ['a:b:c', ':b', 'a:']) {
      assert.throws(() => qualifyKey(bad, 'p'), { message: `config key "${bad}": expected NAME or NAMESPACE:NAME (e.g. harvester:kubeconfig)` });
    }
  });

  it("shows the project's own keys without their namespace, others whole", () => {
    assert.equal(displayKey('proj:region', 'proj'), 'region');
    assert.equal(displayKey('harvester:kubeconfig', 'proj'), 'harvester:kubeconfig');
    assert.equal(displayKey('project:x', 'proj'), 'project:x');
  });
});

describe('runner stack config: the file', () => {
  let dir: string;
  let file: (stack?: string) => StackConfigFile;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'runner-stack-config-'));
    file = (stack = 'dev') => StackConfigFile.of(dir, join(dir, '.state'), stack);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const write = (text: string, stack = 'dev') => writeFileSync(join(dir, `Pulumi.${stack}.yaml`), text);

  it('is Pulumi.<stack>.yaml of the folder; without it there is no config and nothing is written', () => {
    assert.equal(file('prod').path, join(dir, 'Pulumi.prod.yaml'));
    assert.equal(file().stack, 'dev');
    assert.deepEqual(file().entries(true), []);
    assert.equal(file().get('p:x'), undefined);
    assert.equal(file().remove('p:x'), false);
    assert.deepEqual(readdirSync(dir), []);
  });

  it('a plain value: written in the CLI layout under a header, no key made, mode 0644, nothing left aside', () => {
    file().set('p:region', 'eu-west', false);
    const text = readFileSync(file().path, 'utf8');
    assert.ok(text.startsWith('# Stack config of the harvester-iac local runner (harvester-iac-run config set/get/rm), laid out as the Pulumi\n'), text);
    assert.match(text, /\nconfig:\n {2}p:region: eu-west\n$/);
    assert.equal(statSync(file().path).mode & 0o777, 0o644);
    assert.deepEqual(readdirSync(dir), ['Pulumi.dev.yaml']);
    assert.deepEqual(file().entries(false), [{ key: 'p:region', value: 'eu-west', secret: false }]);
    file().set('p:region', 'eu-east', false);
    assert.equal(readFileSync(file().path, 'utf8').split('# Stack config').length, 2, 'the header is written once');
    assert.deepEqual(file().get('p:region'), { key: 'p:region', value: 'eu-east', secret: false });
  });

  it('a secret: sealed under `secure:` with the state key, listed as "" until opened, got opened', () => {
    file().set('harvester:kubeconfig', 'token: abc', true);
    const text = readFileSync(file().path, 'utf8');
    assert.match(text, /^ {2}harvester:kubeconfig:\n {4}secure: sealed:aes-256-gcm:\S+$/m);
    assert.equal(text.includes('abc'), false);
    assert.ok(existsSync(join(dir, '.state', 'dev.key')));
    assert.deepEqual(file().entries(false), [{ key: 'harvester:kubeconfig', value: '', secret: true }]);
    assert.deepEqual(file().entries(true), [{ key: 'harvester:kubeconfig', value: 'token: abc', secret: true }]);
    assert.deepEqual(file().get('harvester:kubeconfig'), { key: 'harvester:kubeconfig', value: 'token: abc', secret: true });
  });

  it('lists every value sorted by key; structured values as JSON, an object without `secure` is plain', () => {
    write('config:\n  p:z: last\n  p:a: 3\n  p:list: [1, two]\n  p:obj:\n    k: v\n  p:flag: true\n  p:nothing: null\n');
    assert.deepEqual(file().entries(false), [
      { key: 'p:a', secret: false, value: '3' },
      { key: 'p:flag', secret: false, value: 'true' },
      { key: 'p:list', secret: false, value: '[1,"two"]' },
      { key: 'p:nothing', secret: false, value: 'null' },
      { key: 'p:obj', secret: false, value: '{"k":"v"}' },
      { key: 'p:z', secret: false, value: 'last' },
    ]);
  });

  it('an empty file, or one with `config:` empty or absent, holds no values; set then adds the map', () => {
    for (const text of ['', 'config:\n', 'config: null\n', 'other: 1\n']) {
      write(text);
      assert.deepEqual(file().entries(true), [], JSON.stringify(text));
    }
    file().set('p:a', '1', false);
    assert.match(readFileSync(file().path, 'utf8'), /^other: 1\nconfig:\n {2}p:a: "1"\n$/);
  });

  it('set into a file whose `config:` holds nothing makes it a block map', () => {
    for (const text of ['config:\n', 'config: null\n', 'config: ~\n']) {
      write(text);
      file().set('p:a', '1', false);
      file().set('p:b', 'two', false);
      assert.equal(readFileSync(file().path, 'utf8'), 'config:\n  p:a: "1"\n  p:b: two\n', JSON.stringify(text));
    }
  });

  it('get of a plain value opens no secret: a value sealed elsewhere (the CLI\'s `v1:`) beside it is no obstacle', () => {
    write('config:\n  harvester:kubeconfig:\n    secure: v1:AAAA\n  p:region: eu\n');
    assert.deepEqual(file().get('p:region'), { key: 'p:region', value: 'eu', secret: false });
    assert.equal(existsSync(join(dir, '.state')), false, 'no key file looked for or made');
  });

  it('a long value with blanks stays on one line; the file is 0644 whatever the umask', () => {
    const words = 'word '.repeat(40).trim();
    const umask = process.umask(0o000);
    try {
      file().set('p:motd', words, false);
    } finally {
      process.umask(umask);
    }
    assert.equal(readFileSync(file().path, 'utf8').split('\n').filter((l) => l.includes('word')).length, 1);
    assert.equal(file().get('p:motd')?.value, words);
    assert.equal(statSync(file().path).mode & 0o777, 0o644);
  });

  it('keeps comments, order and other keys when a value is set or removed', () => {
    write('# my notes\nconfig:\n  p:b: 2 # why b\n  p:a: 1\nencryptionsalt: x\n');
    file().set('p:c', '3', false);
    assert.equal(file().remove('p:a'), true);
    assert.equal(file().remove('p:a'), false);
    assert.equal(readFileSync(file().path, 'utf8'), '# my notes\nconfig:\n  p:b: 2 # why b\n  p:c: "3"\nencryptionsalt: x\n');
  });

  it("refuses the Pulumi CLI's ciphertext naming the key, the file and the command that sets it again", () => {
    write('config:\n  harvester:kubeconfig:\n    secure: v1:AAAA\n');
    const message = `${file().path}: the secure value of harvester:kubeconfig was not sealed by harvester-iac-run (the Pulumi CLI's secrets provider seals \`v1:…\`); set it again with \`harvester-iac-run config set --secret harvester:kubeconfig\``;
    assert.throws(() => file().entries(true), { message });
    assert.throws(() => file().get('harvester:kubeconfig'), { message });
    assert.deepEqual(file().entries(false), [{ key: 'harvester:kubeconfig', value: '', secret: true }], 'listing needs no key');
  });

  it('refuses a sealed value that does not hold text', () => {
    mkdirSync(join(dir, '.state'));
    const sealed = SecretBox.forKeyFile(join(dir, '.state', 'dev.key')).seal({ not: 'text' });
    write(`config:\n  p:x:\n    secure: ${sealed}\n`);
    assert.throws(() => file().get('p:x'), { message: `${file().path}: the secure value of p:x does not hold text` });
  });

  it('refuses a file that is not YAML, not a map, or whose `config:` is not a map, naming the file', () => {
    const path = join(dir, 'Pulumi.dev.yaml');
    write('config: [unclosed\n');
    assert.throws(() => file().entries(false), (err: Error) => err.message.startsWith(`${path}: not valid YAML: `));
    write('- a list\n');
    assert.throws(() => file().entries(false), { message: `${path}: expected a map with a \`config:\` key` });
    write('config: [a, b]\n');
    assert.throws(() => file().set('p:a', '1', false), { message: `${path}: \`config:\` must be a map of KEY: value` });
    write('config: text\n');
    assert.throws(() => file().remove('p:a'), { message: `${path}: \`config:\` must be a map of KEY: value` });
  });

  it("keeps one stack's file and key apart from another's, and long values on one line", () => {
    const long = 'x'.repeat(200);
    file('dev').set('p:a', long, false);
    file('prod').set('p:a', 'prod', true);
    assert.equal(file('dev').get('p:a')?.value, long);
    assert.equal(readFileSync(file('dev').path, 'utf8').split('\n').filter((l) => l.includes('xxx')).length, 1);
    assert.equal(file('prod').get('p:a')?.value, 'prod');
    assert.deepEqual(readdirSync(join(dir, '.state')), ['prod.key']);
  });
});
