/**
 * The package as a user installs it: `npm pack` of this repository (the compiled dist/ that `npm test` just built,
 * so with --ignore-scripts: a clone's prepare would only build it again), installed with `npm install` into a
 * scratch program folder outside the repository.
 *
 * Offline: the program folder gets a package-lock.json derived from the repository's own lock (the entries of the
 * packages the tarball and the program's dev tools need, found the way Node resolves them), so `npm install
 * --offline` takes every package from the npm cache that `npm ci` of this repository filled, and never asks the
 * registry. What npm installs is what a user's `npm install harvester-iac-<version>.tgz` installs, at the versions
 * this repository tested.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../../scripts/resource-docs';

type LockEntry = Record<string, unknown> & { version?: string; dependencies?: Record<string, string>; optionalDependencies?: Record<string, string>; peerDependencies?: Record<string, string>; peerDependenciesMeta?: Record<string, { optional?: boolean }> };
interface Lock {
  packages: Record<string, LockEntry>;
}

let packed: string | undefined;

function npm(args: string[], cwd: string): string {
  const run = spawnSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });
  if (run.status !== 0) throw new Error(`npm ${args.join(' ')} (in ${cwd}) failed with ${run.status}:\n${run.stdout}\n${run.stderr}`);
  return run.stdout;
}

/** packTarball: the repository packed once per test process; the path of harvester-iac-<version>.tgz. */
export function packTarball(): string {
  if (packed) return packed;
  const dir = mkdtempSync(join(tmpdir(), 'harvester-iac-pack-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  npm(['pack', '--ignore-scripts', '--silent', '--pack-destination', dir], repoRoot());
  const [tgz] = readdirSync(dir).filter((f) => f.endsWith('.tgz'));
  packed = join(dir, tgz);
  return packed;
}

/** The lock path a package `name` required from the package at `from` resolves to, as Node walks node_modules up. */
function resolveIn(lock: Lock, from: string, name: string): string | undefined {
  for (let base = from; ; ) {
    const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (!base) return undefined;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut < 0 ? '' : base.slice(0, cut);
  }
}

/** Every lock path reachable from `roots` (top-level names) through dependencies and required peers. */
function closure(lock: Lock, roots: string[]): Set<string> {
  const seen = new Set<string>();
  const visit = (path: string | undefined) => {
    if (!path || seen.has(path)) return;
    seen.add(path);
    const e = lock.packages[path];
    const peers = Object.keys(e.peerDependencies ?? {}).filter((p) => !e.peerDependenciesMeta?.[p]?.optional);
    for (const dep of [...Object.keys(e.dependencies ?? {}), ...Object.keys(e.optionalDependencies ?? {}), ...peers]) visit(resolveIn(lock, path, dep));
  };
  for (const root of roots) visit(resolveIn(lock, '', root));
  return seen;
}

export interface ProgramFolderSpec {
  name: string;
  /** Files of the program (index.ts, Pulumi.yaml, tsconfig.json …), by name. */
  files: Record<string, string>;
  /** Dev tools from this repository's devDependencies, at its versions (typescript, ts-node, @types/node). */
  devTools?: string[];
}

/**
 * installIntoProgramFolder: a scratch folder outside the repository with the program's files and package.json,
 * the tarball installed (offline, see the header). Returns the folder.
 */
export function installIntoProgramFolder(spec: ProgramFolderSpec, tgz = packTarball()): string {
  const root = repoRoot();
  const repoLock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as Lock;
  const repoPkg = repoLock.packages[''] as LockEntry & { devDependencies: Record<string, string>; bin: unknown; engines: unknown; license: string };
  const dir = mkdtempSync(join(tmpdir(), 'harvester-iac-user-'));
  for (const [file, text] of Object.entries(spec.files)) writeFileSync(join(dir, file), text);
  const tarball = `file:${tgz}`;
  const devDependencies = Object.fromEntries((spec.devTools ?? []).map((t) => [t, repoPkg.devDependencies[t]]));
  const pkg = { name: spec.name, version: '1.0.0', private: true, main: 'index.ts', dependencies: { 'harvester-iac': tarball }, devDependencies };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  const packages: Record<string, LockEntry> = { '': { name: spec.name, version: '1.0.0', dependencies: pkg.dependencies, devDependencies } };
  packages['node_modules/harvester-iac'] = {
    version: repoPkg.version,
    resolved: tarball,
    integrity: `sha512-${createHash('sha512').update(readFileSync(tgz)).digest('base64')}`,
    license: repoPkg.license,
    dependencies: repoPkg.dependencies,
    bin: repoPkg.bin,
    engines: repoPkg.engines,
  };
  for (const path of closure(repoLock, [...Object.keys(repoPkg.dependencies ?? {}), ...(spec.devTools ?? [])])) {
    if (path === 'node_modules/harvester-iac') continue;
    const { dev: _dev, devOptional: _devOptional, peer: _peer, ...entry } = repoLock.packages[path] as LockEntry & { dev?: boolean; devOptional?: boolean; peer?: boolean };
    packages[path] = entry;
  }
  writeFileSync(join(dir, 'package-lock.json'), `${JSON.stringify({ name: spec.name, version: '1.0.0', lockfileVersion: 3, requires: true, packages }, null, 2)}\n`);
  npm(['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error'], dir);
  return dir;
}

/** What a run of the installed bin printed, and its exit status. */
export interface BinRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * runInstalledBin runs `node_modules/.bin/harvester-iac-run` of the folder `installed` (as installIntoProgramFolder
 * made it), in `cwd`, with `stdin` as its whole standard input; resolves when it exits, whatever its status.
 */
export function runInstalledBin(installed: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; stdin?: string }): Promise<BinRun> {
  const child = spawn(join(installed, 'node_modules', '.bin', 'harvester-iac-run'), args, { cwd: options.cwd, env: options.env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.end(options.stdin ?? '');
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}
