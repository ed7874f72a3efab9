/**
 * The `harvester-emulator` CLI: flag errors exit 2 with a clear message, a normal start prints one `ready`
 * line, serves kubectl, and exits 0 on SIGTERM.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { guideText, parseArgs, UsageError } from '../../emulator/cli';
import { runKubectl } from '../support/kubectl';

/** node arguments that run the CLI from source (ts-node) or from dist, whichever this test runs from. */
function cliCommand(): string[] {
  const ext = extname(__filename);
  const cli = join(__dirname, '..', '..', 'emulator', `cli${ext}`);
  return ext === '.ts' ? ['-r', 'ts-node/register/transpile-only', cli] : [cli];
}

function runCli(args: string[], timeoutMs = 30_000): { done: Promise<{ code: number | null; stdout: string; stderr: string }>; child: ReturnType<typeof spawn>; output: () => string } {
  const child = spawn(process.execPath, [...cliCommand(), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
  return { done, child, output: () => stdout };
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
      'guest flag without guest kubeconfig': { args: ['--kubeconfig', 'k', '--guest-ccm-version', 'v1'], want: /--guest-ccm-version needs --guest-kubeconfig PATH/ },
    };
    for (const [reason, c] of Object.entries(bad)) {
      assert.throws(() => parseArgs(c.args), (e: unknown) => e instanceof UsageError && c.want.test(e.message), reason);
    }
  });

  it('--guide explains how to point kubectl at it, without a second ready line', () => {
    assert.equal(parseArgs(['--kubeconfig', 'k', '--guide']).guide, true);
    assert.equal(parseArgs(['--kubeconfig', 'k']).guide, false);
    const text = guideText({ url: 'https://127.0.0.1:6443', kubeconfigPath: 'rel/kubeconfig' });
    assert.match(text, new RegExp(`export KUBECONFIG=${join(process.cwd(), 'rel/kubeconfig').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.match(text, /kubectl get nodes/);
    assert.doesNotMatch(text, /ready/);
  });

  it('exits 2 with the reason on a bad flag', async () => {
    const r = await runCli(['--kubeconfig', join(dir, 'k'), '--latency', '-5']).done;
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^harvester-emulator: --latency needs a value|^harvester-emulator: --latency must be a whole number/);
    assert.match(r.stderr, /--help/);
  });

  it('prints one ready line, serves kubectl, and exits 0 on SIGTERM', async () => {
    const kubeconfig = join(dir, 'kubeconfig');
    const cli = runCli(['--kubeconfig', kubeconfig, '--port', '0', '--boot-delay', '100']);
    const deadline = Date.now() + 30_000;
    while (!/ready/.test(cli.output()) && Date.now() < deadline && cli.child.exitCode === null) await new Promise((r) => setTimeout(r, 50));
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
});
