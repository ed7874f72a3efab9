/**
 * A user's first hour, as README.md tells it: the package packed (`npm pack`) and installed from its tarball into a
 * program folder of their own outside the repository, README's program as its index.ts (TypeScript, type-checked
 * by ts-node as Pulumi runs it), the credentials and the user data put in Pulumi.dev.yaml with
 * `config set --secret` from standard input, then `preview --diff`, `up --yes`, `stack output --json`,
 * `stack output guestKubeconfig --show-secrets` and `destroy --yes` — every command through the installed bin
 * (node_modules/.bin/harvester-iac-run), against the embedded emulator.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { repoRoot } from '../../scripts/resource-docs';
import { startTestEmulator, type TestEmulator } from '../support/emulator-harness';
import { codeBlocks, readText } from '../support/markdown';
import { installIntoProgramFolder, runInstalledBin, type BinRun } from '../support/tarball';

/** The first ```ts block under README's "## A program". */
function readmeProgram(): string {
  const text = readText(repoRoot(), 'README.md');
  const at = text.split('\n').findIndex((l) => l === '## A program');
  const block = codeBlocks(text).find((b) => b.line > at && /^ts\b/.test(b.info));
  assert.ok(at >= 0 && block, 'README.md has a ```ts block under "## A program"');
  return block.code;
}

const USER_DATA = '#cloud-config\npassword: readme-s3cr3t\n';

describe('runner: a program folder of your own, the package installed from its tarball (README)', function () {
  this.timeout(240_000);
  let t: TestEmulator;
  let dir = '';
  const bin = () => join(dir, 'node_modules', '.bin', 'harvester-iac-run');

  /** The installed bin, in the program folder, with KUBECONFIG pointing nowhere: only Pulumi.dev.yaml connects. */
  const run = (args: string[], stdin?: string): Promise<BinRun> =>
    runInstalledBin(dir, args, { cwd: dir, env: { ...process.env, KUBECONFIG: join(dir, 'no-such-kubeconfig') }, stdin });
  const ok = async (args: string[], stdin?: string): Promise<BinRun> => {
    const r = await run(args, stdin);
    assert.equal(r.code, 0, `harvester-iac-run ${args.join(' ')} exited ${r.code}:\n${r.stdout}\n${r.stderr}`);
    return r;
  };

  before(async () => {
    t = await startTestEmulator({ harvester: { delays: { vmiSchedule: 10, vmiBoot: 30, guestAgent: 30, imageImport: 20 } } });
    dir = installIntoProgramFolder({
      name: 'readme-program',
      files: {
        'Pulumi.yaml': 'name: readme-program\nruntime: nodejs\ndescription: the program of README.md\n',
        'tsconfig.json': `${JSON.stringify({ compilerOptions: { strict: true, target: 'es2022', module: 'commonjs', outDir: 'bin' }, files: ['index.ts'] }, null, 2)}\n`,
        'index.ts': readmeProgram(),
      },
      devTools: ['typescript', 'ts-node', '@types/node'],
    });
  });
  after(async () => {
    await t?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('installs from the tarball: the bin, and a prepare script that does nothing outside a clone', () => {
    assert.ok(!dir.startsWith(repoRoot()), 'the program folder is outside the repository');
    assert.notEqual(statSync(bin()).mode & 0o111, 0);
    const installed = join(dir, 'node_modules', 'harvester-iac');
    assert.ok(existsSync(join(installed, 'dist', 'runner', 'program-preload.js')));
    assert.ok(existsSync(join(dir, 'node_modules', '@pulumi', 'pulumi', 'package.json')), "@pulumi/pulumi is in the program's own node_modules");
    const prepare = (JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.prepare;
    const ran = spawnSync(prepare, { cwd: installed, shell: true, encoding: 'utf8' });
    assert.equal(ran.status, 0, `prepare in the installed package: ${ran.stdout}${ran.stderr}`);
    assert.ok(existsSync(join(installed, 'dist', 'sdk', 'index.js')), 'prepare left the shipped dist/ alone');
  });

  it('keeps the kubeconfig and the user data in Pulumi.dev.yaml, sealed, set from standard input', async () => {
    await ok(['config', 'set', '--secret', 'harvester:kubeconfig'], t.emulator.kubeconfig);
    await ok(['config', 'set', '--secret', 'userData'], USER_DATA);
    const file = readFileSync(join(dir, 'Pulumi.dev.yaml'), 'utf8');
    assert.match(file, /^ {2}harvester:kubeconfig:\n {4}secure: sealed:aes-256-gcm:/m);
    assert.match(file, /^ {2}readme-program:userData:\n {4}secure: sealed:aes-256-gcm:/m);
    assert.equal(file.includes(t.emulator.token), false, 'no token in the file');
    assert.equal(file.includes('readme-s3cr3t'), false);
    const listed = await ok(['config']);
    assert.match(listed.stdout, /^harvester:kubeconfig +\[secret\]$/m);
    assert.match(listed.stdout, /^userData +\[secret\]$/m);
    assert.equal((await ok(['config', 'get', 'userData'])).stdout, USER_DATA);
  });

  it("previews README's program: six creates, outputs unknown", async () => {
    const r = await ok(['preview', '--diff']);
    for (const name of ['noble', 'vlan20', 'apps', 'workers', 'apps-lb', 'workers-api']) assert.match(r.stdout, new RegExp(`\\+ {2}harvester:\\w+ +${name} +create`), r.stdout);
    assert.match(r.stdout, /^ {4}\+ 6 to create$/m);
    assert.match(r.stdout, /guestKubeconfig: \[unknown\]/);
    assert.doesNotMatch(r.stdout + r.stderr, /Warning|\(node:\d+\)/, 'no Node warnings');
  });

  it('up --yes makes it on the cluster', async () => {
    const r = await ok(['up', '--yes', '--skip-preview', '--non-interactive']);
    assert.match(r.stdout, /^ {4}\+ 6 created$/m, r.stdout);
    const client = await HarvesterClient.connect({ kubeconfig: t.emulator.kubeconfig });
    for (const vm of ['workers-0', 'workers-1', 'workers-2']) assert.ok(await client.virtualMachines.get(vm, 'default'), `${vm} exists`);
    assert.equal((r.stdout + r.stderr).includes('readme-s3cr3t'), false);
  });

  it('stack output --json gives every output whole, the secret hidden; --show-secrets opens it', async () => {
    const outputs = JSON.parse((await ok(['stack', 'output', '--json'])).stdout) as Record<string, unknown>;
    assert.deepEqual(Object.keys(outputs).sort(), ['addresses', 'apiAddress', 'guestKubeconfig']);
    assert.match(String(outputs.apiAddress), /^10\.20\.0\.2(0\d|1\d|20)$/);
    assert.equal((outputs.addresses as string[]).length, 3);
    assert.equal(outputs.guestKubeconfig, '[secret]');
    const kubeconfig = (await ok(['stack', 'output', 'guestKubeconfig', '--show-secrets'])).stdout;
    assert.match(kubeconfig, /^apiVersion: v1$/m);
    assert.match(kubeconfig, /token: \S{20,}/, 'the whole kubeconfig, token included');
    assert.equal((await ok(['stack', 'output', 'guestKubeconfig'])).stdout, '[secret]\n');
  });

  it('destroy --yes removes everything', async () => {
    const r = await ok(['destroy', '--yes']);
    assert.match(r.stdout, /^ {4}- 6 deleted$/m, r.stdout);
    const client = await HarvesterClient.connect({ kubeconfig: t.emulator.kubeconfig });
    assert.equal(await client.virtualMachines.get('workers-0', 'default'), undefined);
    assert.equal((await ok(['stack', 'output', '--json'])).stdout, '{}\n');
  });
});
