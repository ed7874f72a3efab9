/**
 * What `harvester-iac-run` takes from a program folder when the command line does not say (runner/project.ts),
 * that the package ships it as a bin a program folder can run with npx, and what the runner adds to the program's
 * process (runner/program.ts): @pulumi/pulumi for a folder linking a clone, the preload (program-preload.ts).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { linkedPulumiPath } from '../../runner/program';
import { programFolder } from '../../runner/project';
import { runCli } from '../support/runner-cli';
import { repoRoot } from '../../scripts/resource-docs';

describe('local runner: defaults from the program folder', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'harvester-run-folder-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('takes the project and the program from Pulumi.yaml, relative to the folder', () => {
    writeFileSync(join(dir, 'Pulumi.yaml'), 'name: my-pools\nruntime: nodejs\nmain: dist/index.js\n');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'pkg-name', main: 'other.js' }));
    assert.deepEqual(programFolder(dir), { project: 'my-pools', program: join(dir, 'dist', 'index.js'), typescript: false });
  });

  it('without a Pulumi.yaml main, runs the folder (package.json main) and turns TypeScript on for a .ts entry', () => {
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'pkg-name', main: 'index.ts' }));
    assert.deepEqual(programFolder(dir), { project: 'pkg-name', program: dir, typescript: true });
  });

  it('falls back to the folder name and index.js; the command line wins', () => {
    writeFileSync(join(dir, 'index.js'), '');
    assert.deepEqual(programFolder(dir), { project: basename(dir), program: dir, typescript: false });
    mkdirSync(join(dir, 'src'));
    assert.deepEqual(programFolder(dir, { project: 'p', program: 'src/main.ts' }), { project: 'p', program: join(dir, 'src', 'main.ts'), typescript: true });
  });

  it('is the package bin harvester-iac-run: shipped, executable, with a node shebang', () => {
    const pkg = JSON.parse(readFileSync(join(repoRoot(), 'package.json'), 'utf8')) as { bin: Record<string, string>; files: string[] };
    assert.equal(pkg.bin['harvester-iac-run'], 'dist/runner/cli.js');
    assert.ok(pkg.files.includes('dist/runner'));
    const cli = join(repoRoot(), pkg.bin['harvester-iac-run']);
    assert.match(readFileSync(cli, 'utf8'), /^#!\/usr\/bin\/env node\n/);
    assert.notEqual(statSync(cli).mode & 0o111, 0, 'executable (postbuild)');
  });
});

describe('local runner: the program process', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'harvester-run-linked-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a program folder that links harvester-iac from a clone (npm install <clone>) finds @pulumi/pulumi: the copy harvester-iac uses', async () => {
    // What `npm install /path/to/clone` leaves: a symlink, none of the clone's dependencies.
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(repoRoot(), join(dir, 'node_modules', 'harvester-iac'), 'dir');
    writeFileSync(join(dir, 'Pulumi.yaml'), 'name: linked\nruntime: nodejs\n');
    writeFileSync(
      join(dir, 'index.js'),
      "const pulumi = require('@pulumi/pulumi');\nconst harvester = require('harvester-iac');\n" +
        "exports.same = require.resolve('@pulumi/pulumi') === require.resolve('@pulumi/pulumi', { paths: [require.resolve('harvester-iac')] });\n" +
        "exports.region = new pulumi.Config().get('region') ?? 'unset';\nexports.hasPool = typeof harvester.HarvesterMachinePool;\n" +
        "exports.preloaded = process.execArgv.some((a) => a.endsWith('program-preload.js'));\n",
    );
    assert.equal(linkedPulumiPath(dir), realpathSync(join(repoRoot(), 'node_modules')));
    const r = await runCli(['preview', '--cwd', dir]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^ {4}same: true$/m);
    assert.match(r.stdout, /^ {4}hasPool: "function"$/m);
    assert.match(r.stdout, /^ {4}preloaded: true$/m, 'the program runs with the preload');
    assert.equal(linkedPulumiPath(repoRoot()), undefined, 'a folder with its own @pulumi/pulumi keeps it');
  });

  it('the program is preloaded so that an error is inspected without colours (Node 20.19.6+/22 loop on a source-mapped @pulumi frame)', () => {
    const script = [
      "const util = require('node:util');",
      "const e = new Error('x');",
      "e.stack = 'Error: x\\n    at run (/app/node_modules/@pulumi/cmd/run/run.ts:541:33)\\n    at /app/node_modules/@pulumi/pulumi/index.js:1:1';",
      "process.stdout.write(JSON.stringify({ error: util.inspect(e, { colors: true }), other: util.inspect({ a: 1 }, { colors: true }) }));",
    ].join('\n');
    const child = spawnSync(process.execPath, ['--require', join(repoRoot(), 'dist', 'runner', 'program-preload.js'), '-e', script], { encoding: 'utf8', timeout: 20_000 });
    assert.equal(child.status, 0, child.stderr);
    const { error, other } = JSON.parse(child.stdout) as { error: string; other: string };
    assert.ok(error.startsWith('Error: x\n    at run (/app/node_modules/@pulumi/cmd/run/run.ts:541:33)'), error);
    assert.equal(error.includes('\u001b['), false, 'no colour codes in an error');
    assert.ok(other.includes('\u001b['), 'other values keep their colours');
  });

  it('the preload drops only PromiseRejectionHandledWarning', () => {
    const script = [
      'const p = Promise.reject(new Error("late"));',
      'setTimeout(() => { p.catch(() => {}); process.emitWarning("kept", "DeprecationWarning"); }, 10);',
      'process.on("unhandledRejection", () => {});',
    ].join('\n');
    const child = spawnSync(process.execPath, ['--require', join(repoRoot(), 'dist', 'runner', 'program-preload.js'), '-e', script], { encoding: 'utf8', timeout: 20_000 });
    assert.doesNotMatch(child.stderr, /PromiseRejectionHandledWarning/);
    assert.match(child.stderr, /DeprecationWarning: kept/);
    const bare = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20_000 });
    assert.match(bare.stderr, /PromiseRejectionHandledWarning/, 'without the preload Node prints it');
  });
});
