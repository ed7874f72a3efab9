/**
 * The runner's commands that need no program or host (runner/commands.ts, through cli.ts main in process): `config`
 * list/get/set/rm, `stack output` and `cancel`, each on a stack picked by --cwd/--stack/--state/--project; the
 * stack name checked; --secret with --plaintext refused; usage errors exit 2, others 1, each as `error: …`; the
 * hints name the runner's own command with the flags that pick the stack.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { main, processIO } from '../../../runner/cli';
import { runCommand, type CliIO } from '../../../runner/commands';
import { COMMANDS } from '../../../runner/args';
import { lockPath } from '../../../runner/lock';
import { StateStore } from '../../../runner/state';

describe('runner commands without a program', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'runner-commands-'));
    writeFileSync(join(dir, 'Pulumi.yaml'), 'name: proj\n');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function cli(argv: string[], stdin?: string) {
    let stdout = '';
    let stderr = '';
    const io: CliIO = { out: (t) => (stdout += t), err: (t) => (stderr += t), readStdin: async () => stdin };
    const code = await main([...argv, '--cwd', dir], io);
    return { code, stdout, stderr };
  }

  it('--help prints the help and runs nothing', async () => {
    const help = await cli(['config', 'set', 'k', '--help']);
    assert.deepEqual([help.code, help.stderr], [0, '']);
    assert.match(help.stdout, /^usage: harvester-iac-run config set KEY \[VALUE\] \[flags\]/);
    assert.equal(existsSync(join(dir, 'Pulumi.dev.yaml')), false);
  });

  it('refuses a bad stack name, and --secret with --plaintext, as usage errors (exit 2)', async () => {
    assert.deepEqual(await cli(['config', '--stack', 'a/b']), { code: 2, stdout: '', stderr: "error: --stack a/b: a stack name may hold letters, digits, '-', '_' and '.' only\n" });
    assert.deepEqual(await cli(['config', 'set', '--secret', '--plaintext', 'k', 'v']), { code: 2, stdout: '', stderr: 'error: --secret and --plaintext exclude each other\n' });
    assert.equal((await cli(['config', '--stack', 'prod-1_a.b'])).code, 0);
  });

  it('config set/get/rm: keys qualified with the project, values from the argument or standard input', async () => {
    assert.equal((await cli(['config', 'set', 'region', 'eu'])).code, 0);
    assert.equal((await cli(['config', 'set', '--secret', 'harvester:kubeconfig'], 'token: abc\n')).code, 0);
    assert.equal((await cli(['config', 'set', 'crlf'], 'a\r\n\r\n')).code, 0);
    assert.deepEqual(await cli(['config', 'get', 'region']), { code: 0, stdout: 'eu\n', stderr: '' });
    assert.equal((await cli(['config', 'get', 'harvester:kubeconfig'])).stdout, 'token: abc\n', 'one trailing line break is the shell\'s');
    assert.equal((await cli(['config', 'get', 'crlf'])).stdout, 'a\r\n\n', 'only one is dropped');
    assert.equal((await cli(['config', 'get', 'harvester:kubeconfig', '--json'])).stdout, '{\n  "value": "token: abc",\n  "secret": true\n}\n');
    const text = readFileSync(join(dir, 'Pulumi.dev.yaml'), 'utf8');
    assert.match(text, /^ {2}proj:region: eu$/m);
    assert.equal(text.includes('abc'), false);
    assert.deepEqual(await cli(['config', 'rm', 'region']), { code: 0, stdout: '', stderr: '' });
    assert.deepEqual(await cli(['config', 'rm', 'region']), { code: 0, stdout: '', stderr: "warning: proj:region was not set for stack 'dev'\n" });
    assert.deepEqual(await cli(['config', 'get', 'region']), {
      code: 1,
      stdout: '',
      stderr: `error: configuration key 'proj:region' not found for stack 'dev' (${join(dir, 'Pulumi.dev.yaml')})\n`,
    });
    assert.deepEqual(await cli(['config', 'get', 'a:b:c']), { code: 1, stdout: '', stderr: 'error: config key "a:b:c": expected NAME or NAMESPACE:NAME (e.g. harvester:kubeconfig)\n' });
  });

  it('config set without VALUE and nothing piped: says how to pipe it, with the flags that pick the stack', async () => {
    const run = await cli(['config', 'set', '--secret', 'token', '--stack', 'prod', '--state', 'st']);
    assert.equal(run.code, 2);
    assert.equal(run.stderr, `error: config set token: give VALUE, or pipe it in (the runner never prompts): npx harvester-iac-run config set --cwd ${dir} --stack prod --state st --secret token < FILE\n`);
    const plain = await cli(['config', 'set', 'token']);
    assert.equal(plain.stderr, `error: config set token: give VALUE, or pipe it in (the runner never prompts): npx harvester-iac-run config set --cwd ${dir} token < FILE\n`);
  });

  it('a piped value keeps its inner line breaks; only the one ending it is dropped', async () => {
    assert.equal((await cli(['config', 'set', 'motd'], 'line 1\nline 2\n')).code, 0);
    assert.equal((await cli(['config', 'get', 'motd'])).stdout, 'line 1\nline 2\n');
    assert.deepEqual(JSON.parse((await cli(['config', 'get', 'motd', '--json'])).stdout), { value: 'line 1\nline 2', secret: false });
  });

  it('the hints name only the flags given: in the folder itself, no --cwd; the refusal is config set\'s', async () => {
    const here = process.cwd();
    process.chdir(dir);
    try {
      const io: CliIO = { out: () => undefined, err: () => undefined, readStdin: async () => undefined };
      await assert.rejects(runCommand({ command: COMMANDS.find((c) => c.name === 'config set'), args: ['token'], flags: {} }, io), {
        name: 'UsageError',
        command: 'config set',
        message: 'config set token: give VALUE, or pipe it in (the runner never prompts): npx harvester-iac-run config set token < FILE',
      });
    } finally {
      process.chdir(here);
    }
  });

  it('config lists the keys aligned, the project\'s without namespace, secrets hidden unless --show-secrets; --json too', async () => {
    await cli(['config', 'set', 'region', 'eu']);
    await cli(['config', 'set', '--secret', 'harvester:kubeconfig', 'k']);
    assert.equal((await cli(['config'])).stdout, 'KEY                   VALUE\nharvester:kubeconfig  [secret]\nregion                eu\n');
    assert.equal((await cli(['config', '--show-secrets'])).stdout, 'KEY                   VALUE\nharvester:kubeconfig  k\nregion                eu\n');
    assert.deepEqual(JSON.parse((await cli(['config', '--json'])).stdout), { 'harvester:kubeconfig': { secret: true }, 'proj:region': { value: 'eu', secret: false } });
    assert.deepEqual(JSON.parse((await cli(['config', '--json', '--show-secrets'])).stdout), { 'harvester:kubeconfig': { value: 'k', secret: true }, 'proj:region': { value: 'eu', secret: false } });
    assert.equal((await cli(['config', '--stack', 'empty'])).stdout, 'KEY  VALUE\n');
    assert.equal((await cli(['config', '--project', 'other'])).stdout.includes('proj:region'), true, '--project names the namespace shown bare');
  });

  it('the state folder is --state relative to --cwd, .harvester-run by default', async () => {
    await cli(['config', 'set', '--secret', 'a', 'x', '--state', 'my-state']);
    assert.ok(existsSync(join(dir, 'my-state', 'dev.key')));
    await cli(['config', 'set', '--secret', 'a', 'x', '--stack', 'other']);
    assert.ok(existsSync(join(dir, '.harvester-run', 'other.key')));
  });

  it('stack output: the last up\'s outputs; a missing one is an error (exit 1)', async () => {
    new StateStore(join(dir, '.harvester-run'), 'dev').save({ stack: 'dev', project: 'proj', resources: [], outputs: { ip: '10.0.0.1', kc: 'secret text' }, outputSecretKeys: ['kc'] });
    assert.deepEqual(await cli(['stack', 'output', 'ip']), { code: 0, stdout: '10.0.0.1\n', stderr: '' });
    assert.equal((await cli(['stack', 'output', 'kc'])).stdout, '[secret]\n');
    assert.equal((await cli(['stack', 'output', 'kc', '--show-secrets'])).stdout, 'secret text\n');
    assert.deepEqual(JSON.parse((await cli(['stack', 'output', '--json'])).stdout), { ip: '10.0.0.1', kc: '[secret]' });
    assert.deepEqual(await cli(['stack', 'output', 'nope']), { code: 1, stdout: '', stderr: "error: current stack does not have output property 'nope' (it has ip, kc)\n" });
    assert.equal((await cli(['stack', 'output'])).stdout, 'Current stack outputs (2):\n    OUTPUT  VALUE\n    ip      10.0.0.1\n    kc      [secret]\n');
  });

  it('cancel: says when nothing is locked; removes a gone run\'s lock naming it and the refresh to run; --yes for another host', async () => {
    assert.deepEqual(await cli(['cancel']), { code: 0, stdout: 'Stack dev is not locked.\n', stderr: '' });
    const stateDir = join(dir, '.harvester-run');
    const lock = (host: string) => {
      rmSync(stateDir, { recursive: true, force: true });
      mkdirSync(stateDir, { recursive: true });
      writeFileSync(lockPath(stateDir, 'prod'), JSON.stringify({ pid: 2 ** 31 - 2, host, started: 'T', command: 'up' }));
    };
    lock(hostname());
    const run = await cli(['cancel', '--stack', 'prod']);
    assert.deepEqual(run, {
      code: 0,
      stdout: `The lock of stack prod held by \`up\` (pid ${2 ** 31 - 2} on ${hostname()}, started T) was removed. Run \`npx harvester-iac-run refresh --cwd ${dir} --stack prod\` to read back what that run may have changed.\n`,
      stderr: '',
    });
    lock('elsewhere');
    const refused = await cli(['cancel', '--stack', 'prod']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^error: stack prod is locked by `up` \(pid \d+ on elsewhere, started T\), on another host/);
    assert.equal((await cli(['cancel', '--stack', 'prod', '--yes'])).code, 0);
    assert.equal(existsSync(lockPath(stateDir, 'prod')), false);
  });

  it('a failure that is not a usage error exits 1 with its message; a thrown non-Error too', async () => {
    writeFileSync(join(dir, 'Pulumi.dev.yaml'), '- not a map\n');
    assert.deepEqual(await cli(['config']), { code: 1, stdout: '', stderr: `error: ${join(dir, 'Pulumi.dev.yaml')}: expected a map with a \`config:\` key\n` });
    const io: CliIO = {
      out: () => undefined,
      err: (t) => (stderr += t),
      readStdin: async () => {
        throw 'stdin closed';
      },
    };
    let stderr = '';
    assert.equal(await main(['config', 'set', 'k', '--cwd', dir], io), 1);
    assert.equal(stderr, 'error: stdin closed\n');
  });

  it('a command the table lacks is refused as unknown (the switch has no silent fallthrough)', async () => {
    const bogus = { ...COMMANDS[0], name: 'bogus' };
    await assert.rejects(runCommand({ command: bogus, args: [], flags: { cwd: dir } }, { out: () => undefined, err: () => undefined, readStdin: async () => undefined }), {
      name: 'UsageError',
      message: 'unknown command "bogus"',
    });
  });
});

describe('runner cli: the process IO', () => {
  it('writes to standard output and error; a terminal on standard input reads as nothing piped', async () => {
    const io = processIO();
    assert.equal(io.env, process.env);
    const written: [string, string][] = [];
    const out = process.stdout.write;
    const err = process.stderr.write;
    const tty = process.stdin.isTTY;
    process.stdout.write = ((chunk: string) => written.push(['out', chunk]) > 0) as typeof process.stdout.write;
    process.stderr.write = ((chunk: string) => written.push(['err', chunk]) > 0) as typeof process.stderr.write;
    process.stdin.isTTY = true;
    try {
      io.out('to stdout');
      io.err('to stderr');
      assert.equal(await io.readStdin(), undefined);
    } finally {
      process.stdout.write = out;
      process.stderr.write = err;
      process.stdin.isTTY = tty;
    }
    assert.deepEqual(written, [['out', 'to stdout'], ['err', 'to stderr']]);
  });

  it('reads all of a piped standard input as text', async () => {
    const stdin = Object.getOwnPropertyDescriptor(process, 'stdin')!;
    Object.defineProperty(process, 'stdin', { configurable: true, value: Readable.from([Buffer.from('token: '), Buffer.from('abc\n')]) });
    try {
      assert.equal(await processIO().readStdin(), 'token: abc\n');
    } finally {
      Object.defineProperty(process, 'stdin', stdin);
    }
  });
});
