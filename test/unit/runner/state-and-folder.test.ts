/**
 * The runner's state file (runner/state.ts) and the defaults it takes from a program folder (runner/project.ts),
 * in process. State: an empty stack without a file; secrets sealed by property on save and opened on load; the
 * file written atomically, private, with its version and note. Folder: project and program from Pulumi.yaml (or
 * Pulumi.yml), else package.json, else the folder; TypeScript on for a .ts/.mts/.cts entry.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { programFolder } from '../../../runner/project';
import { SecretBox } from '../../../runner/secrets';
import { StateStore, type StackState } from '../../../runner/state';

describe('runner state file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'runner-state-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const state = (): StackState => ({
    stack: 'dev',
    project: 'proj',
    resources: [
      { urn: 'u1', type: 't', name: 'a', id: 'default/a', inputs: { userData: 'pw', n: 1 }, outputs: { userData: 'pw', n: 1, ip: '10.0.0.1' }, secretKeys: ['userData'], pendingReason: 'half made', replacementTrigger: 'v1' },
      { urn: 'u2', type: 't', name: 'b', id: 'default/b', inputs: {}, outputs: {}, secretKeys: [] },
    ],
    outputs: { kubeconfig: 'token', name: 'a' },
    outputSecretKeys: ['kubeconfig'],
  });

  it('is <dir>/<stack>.json; without it the stack is empty, of the given project, and nothing is written', () => {
    const store = new StateStore(join(dir, 'state'), 'prod');
    assert.equal(store.path, join(dir, 'state', 'prod.json'));
    assert.deepEqual([store.dir, store.stack], [join(dir, 'state'), 'prod']);
    assert.deepEqual(store.load('p'), { stack: 'prod', project: 'p', resources: [], outputs: {}, outputSecretKeys: [] });
    assert.deepEqual(readdirSync(dir), []);
  });

  it('saves every field, secrets sealed by property, and loads them back opened', () => {
    const store = new StateStore(join(dir, 'state'), 'dev');
    store.save(state());
    const doc = JSON.parse(readFileSync(store.path, 'utf8'));
    assert.equal(doc.version, 1);
    assert.equal(doc.note, 'harvester-iac local runner state; secret properties are sealed with the key file beside this one');
    assert.deepEqual([doc.project, doc.stack], ['proj', 'dev']);
    assert.ok(SecretBox.isSealed(doc.resources[0].inputs.userData) && SecretBox.isSealed(doc.resources[0].outputs.userData));
    assert.ok(SecretBox.isSealed(doc.outputs.kubeconfig));
    assert.deepEqual([doc.resources[0].inputs.n, doc.resources[0].outputs.ip, doc.outputs.name], [1, '10.0.0.1', 'a']);
    assert.deepEqual([doc.resources[0].pendingReason, doc.resources[0].replacementTrigger], ['half made', 'v1']);
    assert.deepEqual(doc.outputSecretKeys, ['kubeconfig']);
    assert.ok(readFileSync(store.path, 'utf8').endsWith('}\n'));
    assert.equal(statSync(store.path).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(join(dir, 'state')).sort(), ['dev.json', 'dev.key'], 'nothing left aside');
    assert.deepEqual(new StateStore(join(dir, 'state'), 'dev').load('other'), state());
  });

  it('loads a file without outputs or project as an older or hand-made file may be: no outputs, the given project', () => {
    writeFileSync(join(dir, 'dev.json'), JSON.stringify({ resources: [{ urn: 'u', type: 't', name: 'n', id: 'i', inputs: { a: 1 }, outputs: {}, secretKeys: [] }] }));
    assert.deepEqual(new StateStore(dir, 'dev').load('given'), {
      stack: 'dev',
      project: 'given',
      resources: [{ urn: 'u', type: 't', name: 'n', id: 'i', inputs: { a: 1 }, outputs: {}, secretKeys: [] }],
      outputs: {},
      outputSecretKeys: [],
    });
  });
});

describe('runner program folder', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'runner-folder-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const file = (name: string, text: string) => writeFileSync(join(dir, name), text);

  it('project: Pulumi.yaml name, else Pulumi.yml, else package.json, else the folder; blank names skipped, trimmed', () => {
    assert.equal(programFolder(dir).project, basename(dir));
    file('package.json', JSON.stringify({ name: ' pkg ' }));
    assert.equal(programFolder(dir).project, 'pkg');
    file('Pulumi.yml', 'name: yml-name\n');
    assert.equal(programFolder(dir).project, 'yml-name');
    file('Pulumi.yaml', 'name: "  "\n');
    assert.equal(programFolder(dir).project, 'pkg', 'a blank name in Pulumi.yaml (which wins over .yml) falls through');
    file('Pulumi.yaml', 'name: 42\n');
    assert.equal(programFolder(dir).project, 'pkg', 'a name that is not text falls through');
    file('Pulumi.yaml', 'name: yaml-name\n');
    assert.equal(programFolder(dir).project, 'yaml-name');
    assert.equal(programFolder(dir, { project: 'flag' }).project, 'flag');
  });

  it('a Pulumi.yaml or package.json that is not a map gives nothing', () => {
    file('Pulumi.yaml', '- a\n- b\n');
    file('package.json', '"just text"');
    assert.deepEqual(programFolder(dir), { project: basename(dir), program: dir, typescript: false });
    file('Pulumi.yaml', '');
    file('package.json', 'null');
    assert.equal(programFolder(dir).project, basename(dir));
  });

  it('a Pulumi.yaml that is not a map is as good as none: Pulumi.yml is read next', () => {
    file('Pulumi.yml', 'name: from-yml\n');
    for (const text of ['just-a-word\n', '- a\n', '42\n', '']) {
      file('Pulumi.yaml', text);
      assert.equal(programFolder(dir).project, 'from-yml', JSON.stringify(text));
    }
  });

  it('a program folder whose name ends in .ts is not TypeScript: its entry, index.js, decides', () => {
    const folder = join(dir, 'app.ts');
    mkdirSync(folder);
    writeFileSync(join(folder, 'index.js'), '');
    assert.deepEqual(programFolder(dir, { program: 'app.ts' }), { project: basename(dir), program: folder, typescript: false });
  });

  it('program: --program, else Pulumi.yaml main, relative to the folder; else the folder itself', () => {
    assert.equal(programFolder(dir).program, dir);
    file('Pulumi.yaml', 'name: p\nmain: bin/ \n');
    assert.equal(programFolder(dir).program, join(dir, 'bin'));
    assert.equal(programFolder(dir, { program: 'x/y.js' }).program, join(dir, 'x', 'y.js'));
    assert.equal(programFolder(join(dir, '.'), { program: '/abs/main.js' }).program, '/abs/main.js');
  });

  it('TypeScript: by the entry file\'s extension, a folder\'s entry from package.json main, else index.js, else index.ts', () => {
    for (const ext of ['.ts', '.mts', '.cts']) assert.equal(programFolder(dir, { program: `main${ext}` }).typescript, true, ext);
    for (const ext of ['.js', '.mjs', '.tsx', '']) assert.equal(programFolder(dir, { program: `main${ext}` }).typescript, false, ext);
    assert.equal(programFolder(dir).typescript, false, 'an empty folder runs index.js');
    file('index.ts', '');
    assert.equal(programFolder(dir).typescript, true, 'only index.ts: TypeScript');
    file('index.js', '');
    assert.equal(programFolder(dir).typescript, false, 'index.js wins over index.ts');
    file('package.json', JSON.stringify({ main: 'src/app.ts' }));
    assert.equal(programFolder(dir).typescript, true, 'package.json main wins');
    file('package.json', JSON.stringify({ main: '  ' }));
    assert.equal(programFolder(dir).typescript, false, 'a blank main falls back to index.js');
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'sub', 'index.ts'), '');
    file('Pulumi.yaml', 'main: sub\n');
    assert.deepEqual(programFolder(dir), { project: basename(dir), program: join(dir, 'sub'), typescript: true });
    file('Pulumi.yaml', 'main: sub/index.ts\n');
    assert.equal(programFolder(dir).typescript, true, 'a file path is its own entry');
  });
});
