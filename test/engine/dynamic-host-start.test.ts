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
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamicHost } from '../../runner/dynamic-host';

/** The stand-in host: FAKE_PORT is its first stdout line; FAKE_MODE: die (60 stderr lines, exit 2), exit, stubborn. */
const FAKE_HOST = `
const mode = process.env.FAKE_MODE;
if (mode === 'die') { for (let i = 1; i <= 60; i++) console.error('line ' + i); process.exit(2); }
if (mode === 'stubborn') process.on('SIGTERM', () => undefined);
process.stdout.write(process.env.FAKE_PORT + '\\n');
if (mode === 'exit') process.exit(0);
setInterval(() => undefined, 1000);
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
