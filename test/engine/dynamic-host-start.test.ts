/**
 * How the runner's driver (runner/dynamic-host.ts) starts and stops a host, over stand-in hosts: a folder whose own
 * node_modules holds a `@pulumi/pulumi/cmd/dynamic-provider` script (the driver runs the program's own copy, as the
 * Pulumi CLI does) that prints what the test asks for. What the real host does is in dynamic-host-driver.test.ts;
 * here: the port line as the driver reads it, the last 50 lines of standard error in a failed start's message,
 * stop on a host that ignores SIGTERM, and stop on a host that has already ended.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamicHost, DynamicHostError } from '../../runner/dynamic-host';
import { runOperation } from '../../runner/operations';
import { eventually } from '../support/emulator-harness';
import { alive } from '../support/processes';


/**
 * The stand-in host: FAKE_PORT is its first stdout line; FAKE_MODE: die (60 stderr lines, exit 2), exit, stubborn,
 * silent (a line on stderr, none on stdout, and it stays up).
 */
const FAKE_HOST = `
const mode = process.env.FAKE_MODE;
if (mode === 'die') { for (let i = 1; i <= 60; i++) console.error('line ' + i); process.exit(2); }
if (mode === 'silent') {
  require('fs').writeFileSync(process.env.FAKE_PIDFILE, String(process.pid));
  console.error('loading, slowly');
  setInterval(() => undefined, 1000);
}
else {
if (mode === 'stubborn') process.on('SIGTERM', () => undefined);
process.stdout.write(process.env.FAKE_PORT + '\\n');
if (mode === 'exit') process.exit(0);
setInterval(() => undefined, 1000);
}
`;

/** The host's process (private to the driver): the test waits on its exit. */
const childOf = (host: DynamicHost) => (host as unknown as { child: ChildProcess }).child;

describe('runner: starting and stopping the dynamic-provider host', function () {
  this.timeout(30_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'host-start-'));
    const script = join(dir, 'node_modules', '@pulumi', 'pulumi', 'cmd', 'dynamic-provider');
    mkdirSync(script, { recursive: true });
    writeFileSync(join(script, 'index.js'), FAKE_HOST);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const start = (env: NodeJS.ProcessEnv) => DynamicHost.start({ cwd: dir, env });
  const startError = (env: NodeJS.ProcessEnv) =>
    start(env).then(
      async (h) => (await h.stop(), assert.fail('expected no host')),
      (e: Error) => e.message,
    );

  it('the port line is read trimmed; the host of the folder runs, not the runner\'s', async () => {
    const host = await start({ FAKE_PORT: ' 123 ' });
    assert.equal(host.port, 123);
    await host.stop();
  });

  it('a port line that is not a positive integer fails the start, quoting it', async () => {
    for (const line of ['0', '-1', '1.5', 'port']) {
      assert.equal(await startError({ FAKE_PORT: line }), `the dynamic-provider host printed "${line}" instead of its port:\n`);
    }
  });

  it('a host that dies before its port: the message holds the last 50 lines of its standard error', async () => {
    const last50 = Array.from({ length: 50 }, (_, i) => `line ${i + 11}`).join('\n');
    assert.equal(await startError({ FAKE_MODE: 'die' }), `the dynamic-provider host exited (code 2) before printing its port:\n${last50}`);
  });

  it('a host that prints no port within the start deadline is killed, and the start fails with its standard error', async () => {
    const pidFile = join(dir, 'pid');
    const message = await DynamicHost.start({ cwd: dir, env: { FAKE_MODE: 'silent', FAKE_PIDFILE: pidFile }, startTimeoutMs: 500 }).then(
      async (h) => (await h.stop(), assert.fail('expected no host')),
      (e: Error) => e.message,
    );
    assert.equal(message, 'the dynamic-provider host printed no port within 0.5 s:\nloading, slowly');
    // It is ended, not left running (it would keep the runner's process alive).
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await eventually(() => !alive(pid), `the silent host (pid ${pid}) ended`);
  });

  it('an operation whose host stops answering after its start fails with that call\'s error, not as an interruption', async () => {
    // A port nobody listens on: the host "started", but its first call (configure) finds no server.
    const server = createServer().listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as AddressInfo).port;
    await new Promise((resolve) => server.close(resolve));
    const stateDir = join(dir, 'state');
    const stack = { program: 'index.js', pwd: dir, project: 'proj', stack: 'dev', stateDir, config: {}, secretConfigKeys: [], sink: () => undefined, hostEnv: { FAKE_PORT: String(port) } };
    const error = await runOperation('refresh', stack).then(
      () => assert.fail('expected the refresh to fail'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof DynamicHostError, String(error));
    assert.equal(error.operation, 'configure');
    assert.equal(existsSync(join(stateDir, 'dev.lock')), false, 'the lock is released');
  });

  it('stop ends a host that ignores SIGTERM (SIGKILL follows)', async () => {
    const host = await start({ FAKE_PORT: '4000', FAKE_MODE: 'stubborn' });
    const child = childOf(host);
    await host.stop();
    assert.equal(child.signalCode, 'SIGKILL');
  });

  it('stop on a host that has exited, or was killed, returns at once', async function () {
    this.timeout(10_000); // stop waiting on an exit that already happened never returns
    const exited = await start({ FAKE_PORT: '4001', FAKE_MODE: 'exit' });
    if (childOf(exited).exitCode === null) await once(childOf(exited), 'exit');
    await exited.stop();
    const killed = await start({ FAKE_PORT: '4002' });
    killed.kill();
    if (childOf(killed).signalCode === null) await once(childOf(killed), 'exit');
    await killed.stop();
  });
});
