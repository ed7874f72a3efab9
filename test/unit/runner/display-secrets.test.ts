/**
 * The runner's pure helpers in process (moved from test/runner/, which starts programs and hosts, so that the unit-only
 * mutation run reaches them): the display of changes, steps, outputs, diagnostics and the summary; secret wrapping,
 * sealing and the state file; the host error's shape.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Display, formatValue, propertyChanges } from '../../../runner/display';
import { DynamicHostError, UNKNOWN_VALUE } from '../../../runner/dynamic-host';
import { SecretBox, secretValue, unwrapSecrets, wrapSecrets } from '../../../runner/secrets';
import { StateStore } from '../../../runner/state';

describe('local runner: display', () => {
  it('shows changes down to the leaf that changed, with its path', () => {
    const olds = { hosts: { a: { zone: 'z1', region: 'r' }, b: { zone: 'z2', region: 'r' } }, count: 3, zones: ['z1', 'z2'] };
    const news = { hosts: { a: { zone: 'z1', region: 'r' }, b: { zone: 'moved', region: 'r' } }, count: 5, zones: ['z1', 'z2', 'z3'] };
    assert.deepEqual(propertyChanges(olds, news), [
      '~ count: 3 => 5',
      '~ hosts.b.zone: "z2" => "moved"',
      '~ zones: ["z1","z2"] => ["z1","z2","z3"]',
    ]);
  });

  it('walks a map\'s keys in sorted order at every depth, whatever order the objects hold them in', () => {
    const olds = { spec: { zone: 'a', cpu: 1, memory: '1Gi' } };
    const news = { spec: { memory: '2Gi', zone: 'b', cpu: 2 } };
    assert.deepEqual(propertyChanges(olds, news), ['~ spec.cpu: 1 => 2', '~ spec.memory: "1Gi" => "2Gi"', '~ spec.zone: "a" => "b"']);
  });

  it('adds, removes, marks replacements, hides __provider and never prints a secret', () => {
    const lines = propertyChanges(
      { __provider: 'old', name: 'a', userData: '#cloud-config\npassword: hunter2', gone: 1 },
      { __provider: 'new', name: 'b', userData: '#cloud-config\npassword: other', added: true },
      { secretKeys: ['userData'], replaceKeys: ['name'] },
    );
    assert.deepEqual(lines, ['+ added: true', '- gone: 1', '~ name: "a" => "b" (forces replacement)', '~ userData: [secret] => [secret]']);
    assert.equal(lines.join('\n').includes('hunter2'), false);
  });

  it('prints unknowns as [unknown]; cuts long values only in the summary view, never with --diff', () => {
    assert.equal(formatValue(UNKNOWN_VALUE), '[unknown]');
    assert.deepEqual(propertyChanges({ zones: ['a'] }, { zones: UNKNOWN_VALUE }), ['~ zones: ["a"] => [unknown]']);
    const long = 'x'.repeat(500);
    assert.equal(formatValue(long), JSON.stringify(long), 'whole without a limit (outputs, --diff)');
    assert.equal(formatValue(long, false, 100), `${JSON.stringify(long).slice(0, 99)}…`);
    assert.deepEqual(propertyChanges({ a: 'old' }, { a: long }, { full: true }), [`~ a: "old" => ${JSON.stringify(long)}`]);
    assert.equal(propertyChanges({ a: 'old' }, { a: long })[0].length, '~ a: "old" => '.length + 100);
  });

  it('shows at most 20 lines per resource in the summary view, every line with --diff', () => {
    const olds = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`k${String(i).padStart(2, '0')}`, i]));
    const news = Object.fromEntries(Object.entries(olds).map(([k, v]) => [k, v + 1]));
    const summary = propertyChanges(olds, news);
    assert.equal(summary.length, 21);
    assert.equal(summary[20], '… and 5 more (--diff shows all)');
    assert.equal(propertyChanges(olds, news, { full: true }).length, 25);
  });
  it('cuts at the limit only what is longer: a value of exactly 100 characters, and exactly 20 lines, are shown whole', () => {
    const exact = 'x'.repeat(98);
    assert.equal(formatValue(exact, false, 100), JSON.stringify(exact), '100 characters with its quotes');
    assert.equal(formatValue(`${exact}y`, false, 100), `"${exact}…`);
    const olds = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${String(i).padStart(2, '0')}`, i]));
    const news = Object.fromEntries(Object.entries(olds).map(([k, v]) => [k, v + 1]));
    const lines = propertyChanges(olds, news);
    assert.equal(lines.length, 20);
    assert.equal(lines[19], '~ k19: 19 => 20');
  });

  it('a null that becomes an object (or back) is one change of the whole value, not walked into', () => {
    assert.deepEqual(propertyChanges({ spec: null }, { spec: { a: 1 } }), ['~ spec: null => {"a":1}']);
    assert.deepEqual(propertyChanges({ spec: { a: 1 } }, { spec: null }), ['~ spec: {"a":1} => null']);
  });
});

describe('local runner: display lines', () => {
  const collect = () => {
    const lines: string[] = [];
    return { lines, display: new Display((l) => lines.push(l)) };
  };

  it('formats undefined, nested unknowns, and equal-length arrays element by element', () => {
    assert.equal(formatValue(undefined), 'undefined');
    assert.equal(formatValue({ a: UNKNOWN_VALUE, b: [UNKNOWN_VALUE] }), '{"a":"[unknown]","b":["[unknown]"]}');
    assert.deepEqual(propertyChanges({ zones: ['z1', 'z2'] }, { zones: ['z1', 'moved'] }), ['~ zones[1]: "z2" => "moved"']);
    assert.deepEqual(propertyChanges({ hosts: [{ zone: 'a' }] }, { hosts: [{ zone: 'b' }] }), ['~ hosts[0].zone: "a" => "b"']);
    assert.deepEqual(propertyChanges({ token: ['a'] }, { token: ['b'] }, { secretKeys: ['token'] }), ['~ token: [secret] => [secret]'], 'a secret array is not walked into');
  });

  it('prints steps, outputs, diagnostics and the summary line by line, each block ended by a blank line', () => {
    const { lines, display } = collect();
    display.line();
    display.step('create', 'pulumi-nodejs:dynamic/harvester:HarvesterKeyPair', 'k', 'created', ['+ a: 1']);
    display.outputs({ b: 'x', a: 1 }, ['b']);
    display.diagnostics([{ type: 'pulumi-nodejs:dynamic/harvester:HarvesterImage', name: 'img', message: 'invalid inputs:\n  - url: bad\n' }]);
    display.summary({ create: 2, same: 1, failed: 1, outputs: 1 }, 'done');
    assert.deepEqual(lines, [
      '',
      `  +  ${'harvester:HarvesterKeyPair'.padEnd(34)} ${'k'.padEnd(16)} created`,
      '        + a: 1',
      'Outputs:',
      '    a: 1',
      '    b: [secret]',
      '',
      'Diagnostics:',
      '  harvester:HarvesterImage (img):',
      '    error: invalid inputs:',
      '      - url: bad',
      '',
      'Resources:',
      '    + 2 created',
      '    1 unchanged',
      '    ~ 1 outputs refreshed',
      '    1 failed',
      '',
    ]);
    const empty = collect();
    empty.display.outputs({}, []);
    empty.display.diagnostics([]);
    empty.display.summary({}, 'to');
    assert.deepEqual(empty.lines, ['Resources:', '    no resources', '']);
  });

  it('the summary names every kind of step in both tenses: planned by a preview, done by the others', () => {
    const every = { create: 1, update: 2, replace: 3, delete: 4, same: 5, refresh: 6, outputs: 7, read: 8, failed: 9 };
    // Each line as a preview plans it and as the other operations report it done, in the summary's order.
    const tenses: [string, string, string][] = [
      ['+ 1', 'to create', 'created'],
      ['~ 2', 'to update', 'updated'],
      ['+- 3', 'to replace', 'replaced'],
      ['- 4', 'to delete', 'deleted'],
      ['5', 'unchanged', 'unchanged'],
      ['~ 6', 'to refresh', 'refreshed'],
      ['~ 7', 'outputs to refresh', 'outputs refreshed'],
      ['> 8', 'to read', 'read'],
      ['9', 'failed', 'failed'],
    ];
    for (const [verb, tense] of [['to', 1], ['done', 2]] as const) {
      const { lines, display } = collect();
      display.summary(every, verb);
      assert.deepEqual(lines, ['Resources:', ...tenses.map((t) => `    ${t[0]} ${t[tense]}`), ''], verb);
    }
  });

  it('writes to standard output by default', () => {
    const written: string[] = [];
    const write = process.stdout.write;
    process.stdout.write = ((chunk: string) => written.push(chunk) > 0) as typeof process.stdout.write;
    try {
      new Display().line('to stdout');
    } finally {
      process.stdout.write = write;
    }
    assert.deepEqual(written, ['to stdout\n']);
  });
});

describe('local runner: secrets and state', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'harvester-run-test-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('unwraps the SDK\'s secret values (at any depth) and reports their top-level properties', () => {
    const { plain, secretKeys } = unwrapSecrets({ userData: secretValue('s3cr3t'), nested: { a: [secretValue(1)] }, count: 3 });
    assert.deepEqual(plain, { userData: 's3cr3t', nested: { a: [1] }, count: 3 });
    assert.deepEqual(secretKeys, ['nested', 'userData']);
    assert.deepEqual(wrapSecrets(plain, ['userData']).userData, secretValue('s3cr3t'));
  });

  it('unwrapSecrets keeps a property holding undefined or null as it is, and reports no secret for it', () => {
    assert.deepEqual(unwrapSecrets({ gone: undefined, none: null, n: 0 }), { plain: { gone: undefined, none: null, n: 0 }, secretKeys: [] });
  });

  it('a host error names itself and is not a timeout unless it says so', () => {
    const err = new DynamicHostError('create', 'create failed: refused');
    assert.deepEqual([err.name, err.message, err.operation, err.timedOut, err.initFailure, String(err)], ['DynamicHostError', 'create failed: refused', 'create', false, undefined, 'DynamicHostError: create failed: refused']);
    assert.equal(new DynamicHostError('delete', 'no answer', undefined, true).timedOut, true);
  });

  it('seals secret properties in the state file, opens them on load, and keeps the key file private', () => {
    const store = new StateStore(dir, 'dev');
    store.save({
      stack: 'dev',
      project: 'p',
      resources: [{ urn: 'u', type: 't', name: 'n', id: 'i', inputs: { userData: 'password: s3cr3t', count: 1 }, outputs: { userData: 'password: s3cr3t' }, secretKeys: ['userData'] }],
      outputs: { kubeconfig: 'token: abc123' },
      outputSecretKeys: ['kubeconfig'],
    });
    const text = readFileSync(store.path, 'utf8');
    assert.equal(text.includes('s3cr3t'), false);
    assert.equal(text.includes('abc123'), false);
    assert.match(text, /sealed:aes-256-gcm:/);
    assert.equal(statSync(join(dir, 'dev.key')).mode & 0o077, 0);
    const loaded = new StateStore(dir, 'dev').load('p');
    assert.equal(loaded.resources[0].inputs.userData, 'password: s3cr3t');
    assert.equal(loaded.outputs.kubeconfig, 'token: abc123');
  });

  it('a sealed value altered in the file is refused, not silently used', () => {
    const box = SecretBox.forKeyFile(join(dir, 'k'));
    const sealed = box.seal('value');
    const tampered = sealed.slice(0, -4) + (sealed.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    assert.throws(() => box.open(tampered));
    assert.equal(box.open(sealed), 'value');
  });
});
