/**
 * The package's manifest says what installs and runs (README "Install"): package-lock.json's root entry agrees with
 * package.json (else `npm install` in a clone rewrites the committed lock, as it did when a bin was added to one and
 * not the other), `engines` promises no Node older than a dependency requires, and `prepare` builds only in a clone
 * (a tarball has no sources to build, and a build there would start by deleting its dist/).
 */
import assert from 'node:assert/strict';
import { execSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as semver from 'semver';
import { repoRoot } from '../../scripts/resource-docs';

type Manifest = Record<string, unknown> & { dependencies: Record<string, string>; engines: { node: string }; scripts: Record<string, string> };

const root = repoRoot();
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, Record<string, unknown>> };

describe('package manifest', () => {
  it("package-lock.json's root entry agrees with package.json, so npm install leaves the lock as committed", () => {
    const rootEntry = lock.packages[''];
    for (const field of ['name', 'version', 'license', 'bin', 'engines', 'dependencies', 'devDependencies', 'peerDependencies', 'peerDependenciesMeta']) {
      assert.deepEqual(rootEntry[field], pkg[field], `package-lock.json "" .${field} differs from package.json: run \`npm install --package-lock-only\` and commit the lock`);
    }
  });

  it("engines.node promises no Node older than a dependency's own engines.node", () => {
    const ours = semver.minVersion(pkg.engines.node)!;
    for (const dep of Object.keys(pkg.dependencies)) {
      const theirs = (JSON.parse(readFileSync(join(root, 'node_modules', dep, 'package.json'), 'utf8')) as { engines?: { node?: string } }).engines?.node;
      if (theirs) assert.ok(semver.satisfies(ours, theirs), `${dep} requires Node ${theirs}; engines.node ${pkg.engines.node} allows ${ours}`);
    }
  });

  it('prepare does nothing where there are no sources (an installed tarball)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'harvester-iac-prepare-'));
    try {
      execSync(pkg.scripts.prepare, { cwd: dir, stdio: 'pipe' });
      assert.deepEqual(readdirSync(dir), []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    assert.match(pkg.scripts.prepare, /existsSync\('tsconfig\.json'\).*npm run build/, 'in a clone (tsconfig.json present) it builds');
  });
});
