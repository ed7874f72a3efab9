/**
 * What `harvester-iac-run` takes from a program folder when the command line does not say (runner/project.ts),
 * and that the package ships it as a bin a program folder can run with npx.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { programFolder } from '../../runner/project';
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
