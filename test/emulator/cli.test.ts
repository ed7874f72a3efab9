/**
 * The `harvester-emulator` CLI: flag errors exit 2 with a clear message, a normal start prints one `ready`
 * line, serves kubectl, and exits 0 on SIGTERM.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { guideText, parseArgs, UsageError } from '../../emulator/cli';
import { loadFaultRules } from '../../emulator/faults/load';
import { runKubectl } from '../support/kubectl';

/** node arguments that run the CLI from source (ts-node) or from dist, whichever this test runs from. */
function cliCommand(): string[] {
  const ext = extname(__filename);
  const cli = join(__dirname, '..', '..', 'emulator', `cli${ext}`);
  return ext === '.ts' ? ['-r', 'ts-node/register/transpile-only', cli] : [cli];
}

interface CliRun {
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
  child: ReturnType<typeof spawn>;
  output: () => string;
  stderr: () => string;
  /** Resolves once stdout (or stderr) matches `pattern`; rejects if the process exits or 30 s pass first. */
  waitFor: (pattern: RegExp, stream?: 'stdout' | 'stderr') => Promise<void>;
}

function runCli(args: string[], timeoutMs = 30_000): CliRun {
  const child = spawn(process.execPath, [...cliCommand(), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const text = { stdout: '', stderr: '' };
  const listeners = new Set<() => void>();
  child.stdout!.on('data', (d: Buffer) => {
    text.stdout += d.toString();
    for (const l of listeners) l();
  });
  child.stderr!.on('data', (d: Buffer) => {
    text.stderr += d.toString();
    for (const l of listeners) l();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      for (const l of listeners) l();
      resolve({ code, ...text });
    }),
  );
  const waitFor = (pattern: RegExp, stream: 'stdout' | 'stderr' = 'stdout'): Promise<void> =>
    new Promise((resolve, reject) => {
      const giveUp = setTimeout(() => finish(new Error(`the CLI did not print ${pattern} on ${stream} within 30 s:\n${text.stdout}${text.stderr}`)), 30_000);
      const finish = (err?: Error): void => {
        clearTimeout(giveUp);
        listeners.delete(check);
        if (err) reject(err);
        else resolve();
      };
      const check = (): void => {
        if (pattern.test(text[stream])) finish();
        else if (child.exitCode !== null || child.signalCode !== null) finish(new Error(`the CLI exited before printing ${pattern}:\n${text.stdout}${text.stderr}`));
      };
      listeners.add(check);
      check();
    });
  return { done, child, output: () => text.stdout, stderr: () => text.stderr, waitFor };
}

describe('harvester-emulator CLI', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'harvester-emu-cli-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('parses flags into emulator options', () => {
    const { options } = parseArgs(['--kubeconfig', '/k', '--port=6443', '--boot-delay', '10', '--latency', '5', '--seed', '9', '--guest-kubeconfig', '/g', '--guest-ccm-version', 'v0.2.4', '--guest-kubelet-version', 'v1.32.4+rke2r1']);
    assert.deepEqual(options, {
      kubeconfigPath: '/k', port: 6443, bootDelayMs: 10, latencyMs: 5, seed: 9,
      guest: { kubeconfigPath: '/g', ccmVersion: 'v0.2.4', kubeletVersion: 'v1.32.4+rke2r1', clusterName: undefined },
    });
    const bad: Record<string, { args: string[]; want: RegExp }> = {
      'missing kubeconfig': { args: ['--port', '1'], want: /--kubeconfig PATH is required/ },
      'non-numeric port': { args: ['--kubeconfig', 'k', '--port', 'abc'], want: /--port must be a whole number between 0 and 65535 \(got "abc"\)/ },
      'unknown flag': { args: ['--kubeconfig', 'k', '--frobnicate'], want: /unknown flag --frobnicate/ },
      'value missing': { args: ['--kubeconfig'], want: /--kubeconfig needs a value/ },
      'value on a boolean flag': { args: ['--kubeconfig', 'k', '--guide=yes'], want: /^--guide takes no value$/ },
      'positional argument': { args: ['--kubeconfig', 'k', 'extra'], want: /^unexpected argument "extra"; flags start with --$/ },
      'guest flag without guest kubeconfig': { args: ['--kubeconfig', 'k', '--guest-ccm-version', 'v1'], want: /--guest-ccm-version needs --guest-kubeconfig PATH/ },
      'ccm version not a version': { args: ['--kubeconfig', 'k', '--guest-kubeconfig', 'g', '--guest-ccm-version', 'latest'], want: /--guest-ccm-version must be a version like v0\.2\.7 \(got "latest"\)/ },
      'kubelet version not a version': { args: ['--kubeconfig', 'k', '--guest-kubeconfig', 'g', '--guest-kubelet-version', '1.32'], want: /--guest-kubelet-version must be a version like v1\.32\.4\+rke2r1 \(got "1\.32"\)/ },
    };
    for (const [reason, c] of Object.entries(bad)) {
      assert.throws(() => parseArgs(c.args), (e: unknown) => e instanceof UsageError && c.want.test(e.message), reason);
    }
  });

  it('sizes the hosts and sets Harvester settings, refusing what Harvester\'s setting validator refuses', () => {
    const { options } = parseArgs([
      '--kubeconfig', 'k', '--hosts', '5', '--host-cpu', '16', '--host-memory', '128Gi', '--host-max-pods', '110', '--host-system-cpu', '2',
      '--server-version', 'v1.8.0', '--setting', 'overcommit-config={"cpu":1600,"memory":150,"storage":200}', '--setting=additional-guest-memory-overhead-ratio=2',
    ]);
    assert.deepEqual(options.hosts, { count: 5, cpu: '16', memory: '128Gi', pods: 110, systemRequests: { cpu: '2', memory: '2240Mi' } });
    assert.deepEqual(options.seedData, { serverVersion: 'v1.8.0', settings: { 'overcommit-config': '{"cpu":1600,"memory":150,"storage":200}', 'additional-guest-memory-overhead-ratio': '2' } });
    assert.equal(parseArgs(['--kubeconfig', 'k', '--host-system-cpu', '0', '--host-system-memory', '0']).options.hosts?.systemRequests, null);
    const bad: Record<string, { args: string[]; want: RegExp }> = {
      'undercommit': { args: ['--setting', 'overcommit-config={"cpu":90,"memory":150,"storage":100}'], want: /^--setting overcommit-config: Harvester's setting validator refuses it: cpu: Cannot undercommit\. Should be greater than or equal to 100 but got 90$/ },
      'no equals sign': { args: ['--setting', 'overcommit-config'], want: /^--setting must be NAME=VALUE/ },
      'zero hosts': { args: ['--hosts', '0'], want: /^--hosts must be at least 1$/ },
      'memory not a quantity': { args: ['--host-memory', 'lots'], want: /^--host-memory must be a quantity like 512Gi \(got "lots"\)$/ },
      'version not a version': { args: ['--server-version', '1.8'], want: /^--server-version must be a version like v1\.8\.0/ },
    };
    for (const [reason, c] of Object.entries(bad)) {
      assert.throws(() => parseArgs(['--kubeconfig', 'k', ...c.args]), (e: unknown) => e instanceof UsageError && c.want.test(e.message), reason);
    }
  });

  it('--faults names a rules file; the loader reads YAML or JSON and names the broken rule', () => {
    assert.equal(parseArgs(['--kubeconfig', 'k', '--faults', 'rules.yaml']).faultsPath, 'rules.yaml');
    const file = join(dir, 'rules.yaml');
    writeFileSync(file, '- name: throttle\n  match: {verb: list, resource: nodes}\n  action: {type: error, code: 429, retryAfterSeconds: 1}\n  probability: 0.5\n- action: {type: latency, ms: 20}\n');
    const rules = loadFaultRules(file);
    assert.deepEqual(rules.map((r) => r.action.type), ['error', 'latency']);
    assert.equal(rules[0].probability, 0.5);
    writeFileSync(file, JSON.stringify({ rules: [{ action: { type: 'watchDrop', mode: 'expire', afterMs: 10 } }] }));
    assert.deepEqual(loadFaultRules(file)[0].action, { type: 'watchDrop', mode: 'expire', afterMs: 10 });
    const broken: Record<string, { text: string; want: RegExp }> = {
      'not a list': { text: 'action: {type: latency, ms: 1}\n', want: /must hold a list of fault rules \(or \{rules: \[\.\.\.\]\}\)/ },
      'unknown action': { text: '- action: {type: explode}\n', want: /rule #1: action\.type must be one of latency, error, conflict, watchDrop, reset, unauthorized, expireToken \(got "explode"\)/ },
      'bad numbers': { text: '- action: {type: error, code: 502}\n', want: /rule #1: .*error code must be 429, 500, 503 or 504 \(got 502\)/ },
      'bad yaml': { text: '- [unclosed\n', want: /is not valid YAML or JSON/ },
      'rule not a mapping': { text: '- just a string\n', want: /rule #1: must be a mapping with at least `action`/ },
      'no action': { text: '- match: {verb: get}\n', want: /rule #1: needs an `action` mapping, e\.g\. \{type: error, code: 503\}/ },
      'match not a mapping': { text: '- {match: get, action: {type: reset}}\n', want: /rule #1: `match` must be a mapping/ },
      'times not a number': { text: '- {times: once, action: {type: reset}}\n', want: /rule #1: `times` must be a number \(got "once"\)/ },
    };
    for (const [reason, c] of Object.entries(broken)) {
      writeFileSync(file, c.text);
      assert.throws(() => loadFaultRules(file), (e: unknown) => e instanceof Error && e.message.startsWith(`faults file ${file}`) && c.want.test(e.message), reason);
    }
    assert.throws(() => loadFaultRules(join(dir, 'missing.yaml')), /faults file .*missing\.yaml: cannot read it/);
  });

  it('--guide explains how to point kubectl at it, without a second ready line', () => {
    assert.equal(parseArgs(['--kubeconfig', 'k', '--guide']).guide, true);
    assert.equal(parseArgs(['--kubeconfig', 'k']).guide, false);
    const text = guideText({ url: 'https://127.0.0.1:6443', kubeconfigPath: 'rel/kubeconfig' });
    assert.match(text, new RegExp(`export KUBECONFIG=${join(process.cwd(), 'rel/kubeconfig').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.match(text, /kubectl get nodes/);
    assert.doesNotMatch(text, /ready/);
  });

  it('the built bin runs by itself: the postbuild step makes dist/emulator/cli.js executable', function () {
    if (extname(__filename) === '.ts') this.skip();
    const root = join(__dirname, '..', '..', '..');
    const bin = join(root, JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).bin['harvester-emulator']);
    chmodSync(bin, 0o644); // what tsc leaves behind
    const post = spawnSync('npm', ['run', '--silent', 'postbuild'], { cwd: root, encoding: 'utf8' });
    assert.equal(post.status, 0, post.stderr);
    assert.equal(statSync(bin).mode & 0o111, 0o111, 'executable by all');
    const r = spawnSync(bin, [], { encoding: 'utf8' });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /^harvester-emulator: --kubeconfig PATH is required/);
  });

  it('exits 2 with the reason on a bad flag', async () => {
    const r = await runCli(['--kubeconfig', join(dir, 'k'), '--latency', '-5']).done;
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^harvester-emulator: --latency must be a whole number between 0 and \d+ \(got "-5"\)/);
    assert.match(r.stderr, /--help/);
  });

  it('prints one ready line, serves kubectl, and exits 0 on SIGTERM', async () => {
    const kubeconfig = join(dir, 'kubeconfig');
    const cli = runCli(['--kubeconfig', kubeconfig, '--port', '0', '--boot-delay', '100']);
    await cli.waitFor(/ready/);
    const line = cli.output().trim();
    assert.match(line, /^harvester-emulator ready url=https:\/\/127\.0\.0\.1:\d+ kubeconfig=\S+$/);
    assert.equal(line.split('\n').length, 1);
    assert.ok(existsSync(kubeconfig));
    const get = await runKubectl({ kubeconfigPath: kubeconfig, cacheDir: join(dir, 'cache'), home: join(dir, 'home') }, ['get', 'nodes', '-o', 'name']);
    assert.equal(get.code, 0, get.stderr);
    assert.match(get.stdout, /node\/harvester-node-0/);
    cli.child.kill('SIGTERM');
    const r = await cli.done;
    assert.equal(r.code, 0, r.stderr);
  });

  it('--faults injects the file\'s rules from the first request; SIGHUP reloads the file', async () => {
    const kubeconfig = join(dir, 'kubeconfig-faults');
    const rules = join(dir, 'faults.yaml');
    writeFileSync(rules, '- match: {verb: list, resource: nodes}\n  action: {type: error, code: 503}\n  times: 1\n');
    const cli = runCli(['--kubeconfig', kubeconfig, '--faults', rules, '--seed', '3']);
    await cli.waitFor(/ready/);
    const env = { kubeconfigPath: kubeconfig, cacheDir: join(dir, 'cache-faults'), home: join(dir, 'home') };
    const first = await runKubectl(env, ['get', 'nodes', '-o', 'name']);
    assert.equal(first.code, 1);
    assert.match(first.stderr, /Error from server \(ServiceUnavailable\)/);
    assert.equal((await runKubectl(env, ['get', 'nodes', '-o', 'name'])).code, 0, 'the rule acted once');

    writeFileSync(rules, '- match: {verb: list, resource: nodes}\n  action: {type: error, code: 500, message: injected after reload}\n  times: 1\n');
    cli.child.kill('SIGHUP');
    await cli.waitFor(/faults reloaded/);
    assert.match(cli.output(), /harvester-emulator faults reloaded from \S+faults\.yaml: 1 rule\n/);
    const afterReload = await runKubectl(env, ['get', 'nodes', '-o', 'name']);
    assert.equal(afterReload.code, 1);
    assert.match(afterReload.stderr, /Internal error occurred: injected after reload/);

    // A broken file on reload keeps the running rules and says why on stderr.
    writeFileSync(rules, '- action: {type: nope}\n');
    cli.child.kill('SIGHUP');
    await cli.waitFor(/not reloaded/, 'stderr');
    assert.match(cli.stderr(), /harvester-emulator: faults not reloaded: faults file \S+: rule #1: action\.type must be one of/);
    cli.child.kill('SIGTERM');
    assert.equal((await cli.done).code, 0);
  });
});
