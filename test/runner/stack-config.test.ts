/**
 * Stack config as the Pulumi CLI keeps it: `Pulumi.<stack>.yaml` of the program folder, set, read, listed and
 * removed with the runner's own `config` commands, secrets sealed with the stack's key (never in plain text in the
 * file), the value read from standard input when left off the command line (no token in the process list), and
 * the program sees it as PULUMI_CONFIG, secrets as secrets. A program stopping on a missing required value says
 * so at once, naming the runner's own `config set`, and writes nothing.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { qualifyKey } from '../../runner/stack-config';
import { repoRoot } from '../../scripts/resource-docs';
import { runCli, runCliExpect } from '../support/runner-cli';

const PROGRAM = () => join(repoRoot(), 'dist', 'test', 'runner', 'fixtures', 'outputs.js');

describe('local runner: stack config in Pulumi.<stack>.yaml', function () {
  this.timeout(60_000);
  let dir: string;
  const cli = (...argv: string[]) => runCliExpect(0, [...argv, '--cwd', dir]);
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'harvester-run-config-'));
    writeFileSync(join(dir, 'Pulumi.yaml'), 'name: runner-fixture\nruntime: nodejs\n');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("sets, lists, reads and removes values in the Pulumi CLI's layout; secrets sealed, the key made on the first seal", async () => {
    await cli('config', 'set', 'region', 'eu-west');
    assert.equal(existsSync(join(dir, '.harvester-run')), false, 'a plain value needs no key');
    await runCliExpect(0, ['config', 'set', '--secret', 'harvester:kubeconfig', '--cwd', dir], { stdin: 'apiVersion: v1\ntoken: tok-123\n' });
    await cli('config', 'set', '--secret', 'token', 'hunter2');
    const file = readFileSync(join(dir, 'Pulumi.dev.yaml'), 'utf8');
    assert.match(file, /^config:\n/m);
    assert.match(file, /^ {2}runner-fixture:region: eu-west$/m);
    assert.match(file, /^ {2}harvester:kubeconfig:\n {4}secure: sealed:aes-256-gcm:\S+$/m);
    assert.match(file, /^ {2}runner-fixture:token:\n {4}secure: sealed:aes-256-gcm:\S+$/m);
    assert.equal(/tok-123|hunter2/.test(file), false, 'no secret in plain text');
    assert.equal(statSync(join(dir, '.harvester-run', 'dev.key')).mode & 0o077, 0, 'the key file is private');

    assert.equal((await cli('config')).stdout, 'KEY                   VALUE\nharvester:kubeconfig  [secret]\nregion                eu-west\ntoken                 [secret]\n');
    assert.match((await cli('config', '--show-secrets')).stdout, /^token +hunter2$/m);
    assert.deepEqual(JSON.parse((await cli('config', '--json')).stdout), {
      'harvester:kubeconfig': { secret: true },
      'runner-fixture:region': { value: 'eu-west', secret: false },
      'runner-fixture:token': { secret: true },
    });
    assert.equal((await cli('config', 'get', 'harvester:kubeconfig')).stdout, 'apiVersion: v1\ntoken: tok-123\n', 'one trailing line break was the shell\'s');
    assert.deepEqual(JSON.parse((await cli('config', 'get', 'token', '--json')).stdout), { value: 'hunter2', secret: true });
    await cli('config', 'rm', 'region');
    assert.equal((await runCli(['config', 'get', 'region', '--cwd', dir])).code, 1);
    assert.match((await runCli(['config', 'get', 'region', '--cwd', dir])).stderr, /configuration key 'runner-fixture:region' not found for stack 'dev'/);
  });

  it('keeps what the file already held (comments, other keys) and another stack\'s file apart', async () => {
    writeFileSync(join(dir, 'Pulumi.dev.yaml'), '# my notes\nconfig:\n  aws:region: us-east-1 # not ours\n');
    await cli('config', 'set', 'region', 'eu-west');
    await cli('config', 'set', 'region', 'eu-north', '--stack', 'prod');
    const dev = readFileSync(join(dir, 'Pulumi.dev.yaml'), 'utf8');
    assert.match(dev, /^# my notes$/m);
    assert.match(dev, /^ {2}aws:region: us-east-1 # not ours$/m);
    assert.match(dev, /^ {2}runner-fixture:region: eu-west$/m);
    assert.match(readFileSync(join(dir, 'Pulumi.prod.yaml'), 'utf8'), /^ {2}runner-fixture:region: eu-north$/m);
  });

  it('never prompts: without VALUE and nothing piped it says how to pipe the value in', async () => {
    const r = await runCli(['config', 'set', '--secret', 'harvester:kubeconfig', '--cwd', dir]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /give VALUE, or pipe it in \(the runner never prompts\): npx harvester-iac-run config set --cwd \S+ --secret harvester:kubeconfig < FILE$/m);
  });

  it("says which secure values it cannot open: the Pulumi CLI's, or ones whose key file is gone", async () => {
    writeFileSync(join(dir, 'Pulumi.dev.yaml'), 'config:\n  runner-fixture:token:\n    secure: v1:AAAABBBBCCCC\n');
    const cli1 = await runCli(['config', 'get', 'token', '--cwd', dir]);
    assert.equal(cli1.code, 1);
    assert.match(cli1.stderr, /the secure value of runner-fixture:token was not sealed by harvester-iac-run .*set it again with `harvester-iac-run config set --secret runner-fixture:token`/);
    rmSync(join(dir, 'Pulumi.dev.yaml'));
    await cli('config', 'set', '--secret', 'token', 'hunter2');
    rmSync(join(dir, '.harvester-run'), { recursive: true });
    assert.match((await runCli(['config', 'get', 'token', '--cwd', dir])).stderr, /dev\.key does not exist: the values sealed with it cannot be opened/);
    assert.match((await cli('config')).stdout, /^token +\[secret\]$/m, 'listing needs no key');
  });

  it('qualifies keys as Pulumi does and refuses malformed ones', () => {
    assert.equal(qualifyKey('region', 'proj'), 'proj:region');
    assert.equal(qualifyKey('harvester:kubeconfig', 'proj'), 'harvester:kubeconfig');
    assert.throws(() => qualifyKey('a:b:c', 'proj'), /expected NAME or NAMESPACE:NAME/);
    assert.throws(() => qualifyKey(':b', 'proj'), /expected NAME or NAMESPACE:NAME/);
    assert.throws(() => qualifyKey(' ', 'p'), /cannot be empty/);
  });

  it('gives the program the file\'s config, secrets as secrets; --config overrides it for one run', async () => {
    await cli('config', 'set', 'region', 'eu-west');
    await cli('config', 'set', '--secret', 'token', 'hunter2');
    const up = await cli('up', '--yes', '--program', PROGRAM());
    assert.match(up.stdout, /^ {4}region: "eu-west"$/m);
    assert.match(up.stdout, /^ {4}token: \[secret\]$/m);
    assert.equal(up.stdout.includes('hunter2'), false);
    assert.equal((await cli('stack', 'output', 'token', '--show-secrets')).stdout, 'hunter2\n');
    const once = await cli('preview', '--program', PROGRAM(), '--config', 'runner-fixture:region=ap-south');
    assert.match(once.stdout, /^ {4}region: "ap-south"$/m);
    assert.match(readFileSync(join(dir, 'Pulumi.dev.yaml'), 'utf8'), /region: eu-west/, 'not saved');
  });

  it('a missing required value: said at once with the runner\'s own config set, no Node warning, nothing written', async () => {
    const r = await runCli(['preview', '--cwd', dir, '--stack', 'qa', '--program', PROGRAM(), '--config', 'runner-fixture:fail=yes']);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /^ {4}error: Missing required configuration variable 'runner-fixture:neverSet'$/m);
    assert.match(r.stdout, /^ {4}error: please set a value using the command `npx harvester-iac-run config set --cwd \S+ --stack qa --secret runner-fixture:neverSet <value>`$/m);
    assert.doesNotMatch(r.stdout + r.stderr, /pulumi config set|Warning|\(node:\d+\)|unhandled exception/);
    assert.equal(existsSync(join(dir, '.harvester-run')), false, 'no state folder, no key file');
    assert.equal(existsSync(join(dir, 'Pulumi.qa.yaml')), false);
  });
});
