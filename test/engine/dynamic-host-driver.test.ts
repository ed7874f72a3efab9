/**
 * The runner's driver of Pulumi's real dynamic-provider host (runner/dynamic-host.ts), in this process, over a tiny
 * provider of the test's own (no cluster): each call's request and answer as the engine sends and reads them, the
 * diff's three answers, a failed create with and without a partial failure (ErrorResourceInitFailed), refresh of a
 * gone resource and import, the provider's output and log lines, a host that does not answer in time, a host that
 * never prints its port, and kill and stop. One host serves the calls; each test makes its own calls.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { eventually } from '../support/emulator-harness';
import { alive } from '../support/processes';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../../scripts/resource-docs';
import * as pulumi from '@pulumi/pulumi';
import { DynamicHost, DynamicHostError, serializeProvider } from '../../runner/dynamic-host';

type Raw = Record<string, unknown>;

const URN = 'urn:pulumi:dev::proj::pulumi-nodejs:dynamic:Resource::thing';

/** The provider the host runs: every answer is decided by the inputs (self-contained: it is serialized). */
function echoProvider(): object {
  return {
    // The host calls it once, with the config of `configure` read under the project's namespace.
    async configure(this: Raw, req: { config: { get(key: string): string | undefined } }) {
      this.setting = req.config.get('setting');
    },
    async check(this: Raw, _olds: Raw, news: Raw) {
      if (news.throw) throw new Error(`check broke: ${news.throw}`);
      if (news.refuse) return { inputs: news, failures: [{ property: 'refuse', reason: `refused: ${news.refuse}` }] };
      return { inputs: { ...news, checked: true, setting: this.setting ?? null, project: process.env.PULUMI_NODEJS_PROJECT ?? null } };
    },
    async diff(_id: string, _olds: Raw, news: Raw) {
      if (news.diff === 'none') return { changes: false };
      if (news.diff === 'unknown') return {};
      if (news.diff === 'throw') throw new Error('diff broke');
      return { changes: true, replaces: news.replace ? ['replace'] : [], deleteBeforeReplace: news.deleteFirst === true };
    },
    async create(inputs: Raw) {
      if (inputs.hang) await new Promise(() => undefined);
      if (inputs.partial) throw Object.assign(new Error('made, not ready'), { id: 'half', properties: { made: 1 }, reasons: ['made, not ready', 'second reason'] });
      if (inputs.fail) throw new Error(`create refused: ${inputs.fail}`);
      console.log(`progress: creating ${inputs.name}`);
      console.error(`log: creating ${inputs.name}`);
      return { id: `id-${inputs.name}`, outs: { name: inputs.name, made: true } };
    },
    async read(id: string, props: Raw) {
      if (id === 'broken') throw new Error('read broke');
      if (id === 'gone') return { id: '', props: {} };
      return id === 'imported' ? { id, props: { name: 'found' }, inputs: { name: 'found' } } : { id, props: { ...props, read: true } };
    },
    async update(_id: string, _olds: Raw, news: Raw) {
      if (news.fail) throw new Error(`update refused: ${news.fail}`);
      return { outs: { name: news.name, updated: true } };
    },
    async delete(_id: string, props: Raw) {
      if (props.stuck) throw new Error('cannot delete: stuck');
    },
  };
}

describe('runner: the dynamic-provider host driver', function () {
  this.timeout(60_000);
  let host: DynamicHost;
  let provider: string;
  const output: string[] = [];
  const log: string[] = [];
  before(async () => {
    provider = await serializeProvider(echoProvider());
    host = await DynamicHost.start({ cwd: repoRoot(), onOutput: (l) => output.push(l), onLog: (l) => log.push(l) });
  });
  after(async () => host?.stop());

  const props = (extra: Raw) => ({ __provider: provider, ...extra });
  const failure = async (call: Promise<unknown>): Promise<DynamicHostError> => {
    const err = await call.then(() => assert.fail('expected the call to fail'), (e: unknown) => e);
    assert.ok(err instanceof DynamicHostError, String(err));
    return err;
  };

  it('configure, then check: the provider\'s inputs (with __provider) and its failures, property and reason', async () => {
    // The default project is harvester-iac: the provider's configure reads the unqualified key in its namespace.
    await host.configure({ 'harvester-iac:setting': 'on', 'other:setting': 'off' });
    const ok = await host.check(URN, {}, props({ name: 'a' }));
    assert.deepEqual(ok, { inputs: { __provider: provider, name: 'a', checked: true, setting: 'on', project: 'harvester-iac' }, failures: [] });
    const refused = await host.check(URN, {}, props({ refuse: 'size' }));
    assert.deepEqual(refused.failures, [{ property: 'refuse', reason: 'refused: size' }]);
    const err = await failure(host.check(URN, {}, props({ throw: 'badly' })));
    assert.deepEqual([err.operation, err.message, err.initFailure, err.timedOut], ['check', 'check broke: badly', undefined, false]);
  });

  it('serializeProvider accepts a provider that captures a secret output, as dynamic.Resource does', async () => {
    const text = await serializeProvider({ token: pulumi.secret('captured'), async create() { return { id: 'x' }; } });
    assert.match(text, /^exports\.handler = /m);
  });

  it('a host of another project: configure reads the keys of that project (PULUMI_NODEJS_PROJECT)', async () => {
    const own = await DynamicHost.start({ cwd: repoRoot(), project: 'proj' });
    try {
      const serialized = await serializeProvider(echoProvider());
      await own.configure({ 'harvester-iac:setting': 'on', 'proj:setting': 'mine' });
      const { inputs } = await own.check(URN, {}, { __provider: serialized, name: 'p' });
      assert.deepEqual(inputs, { __provider: serialized, name: 'p', checked: true, setting: 'mine', project: 'proj' });
    } finally {
      await own.stop();
    }
  });

  it('diff: some (with what replaces and whether delete goes first), none, unknown; a throwing diff names the operation', async () => {
    assert.deepEqual(await host.diff(URN, 'id', props({}), props({ replace: true, deleteFirst: true })), { changes: 'some', replaces: ['replace'], deleteBeforeReplace: true });
    assert.deepEqual(await host.diff(URN, 'id', props({}), props({})), { changes: 'some', replaces: [], deleteBeforeReplace: false });
    assert.deepEqual(await host.diff(URN, 'id', props({}), props({ diff: 'none' })), { changes: 'none', replaces: [], deleteBeforeReplace: false });
    assert.deepEqual(await host.diff(URN, 'id', props({}), props({ diff: 'unknown' })), { changes: 'unknown', replaces: [], deleteBeforeReplace: false });
    const err = await failure(host.diff(URN, 'id', props({}), props({ diff: 'throw' })));
    assert.equal(err.operation, 'diff');
    assert.match(err.message, /diff broke/);
    assert.equal(err.initFailure, undefined);
    assert.equal(err.timedOut, false);
  });

  it('create: the id and properties; the provider\'s stdout reaches onOutput and its stderr onLog', async () => {
    const made = await host.create(URN, props({ name: 'b' }));
    assert.deepEqual(made, { id: 'id-b', properties: { __provider: provider, name: 'b', made: true } });
    assert.ok(output.includes('progress: creating b'), JSON.stringify(output));
    assert.ok(log.includes('log: creating b'), JSON.stringify(log));
    assert.ok(!output.some((l) => /^\d+$/.test(l)), 'the port line is not passed on as output');
  });

  it('a failed create: the message alone, or with the partial failure the engine records (id, properties, reasons)', async () => {
    const plain = await failure(host.create(URN, props({ name: 'c', fail: 'quota' })));
    assert.equal(plain.operation, 'create');
    assert.equal(plain.message, 'create refused: quota');
    assert.equal(plain.initFailure, undefined);
    const partial = await failure(host.create(URN, props({ name: 'd', partial: true })));
    assert.equal(partial.message, 'made, not ready');
    assert.deepEqual(partial.initFailure, { id: 'half', properties: { made: 1 }, reasons: ['made, not ready', 'second reason'] });
  });

  it('read: a refresh\'s properties, "" for a resource that is gone, and an import\'s inputs', async () => {
    const refreshed = await host.read(URN, 'id-b', props({ name: 'b' }));
    assert.equal(refreshed.id, 'id-b');
    assert.deepEqual(refreshed.properties, { __provider: provider, name: 'b', read: true });
    assert.equal((await host.read(URN, 'gone', props({}))).id, '');
    const imported = await host.read(URN, 'imported', {}, { __provider: provider });
    assert.deepEqual(imported.inputs, { __provider: provider, name: 'found' });
    assert.deepEqual(imported.properties, { __provider: provider, name: 'found' });
    const err = await failure(host.read(URN, 'broken', props({})));
    assert.deepEqual([err.operation, err.message], ['read', 'read broke']);
  });

  it('update returns the new properties; delete resolves, or fails naming delete and the reason', async () => {
    assert.deepEqual(await host.update(URN, 'id-b', props({ name: 'b' }), props({ name: 'b2' })), { properties: { __provider: provider, name: 'b2', updated: true } });
    const refused = await failure(host.update(URN, 'id-b', props({ name: 'b' }), props({ fail: 'locked' })));
    assert.deepEqual([refused.operation, refused.message, refused.initFailure], ['update', 'update refused: locked', undefined]);
    await host.delete(URN, 'id-b', props({ name: 'b' }));
    const err = await failure(host.delete(URN, 'id-b', props({ stuck: true })));
    assert.equal(err.operation, 'delete');
    assert.match(err.message, /cannot delete: stuck/);
  });

  it('a call the host does not answer in time fails as timed out, naming the operation and the deadline', async () => {
    const slow = await DynamicHost.start({ cwd: repoRoot(), callTimeoutMs: 400 });
    try {
      await slow.configure({});
      const err = await failure(slow.create(URN, props({ name: 'e', hang: true })));
      assert.equal(err.timedOut, true);
      assert.equal(err.operation, 'create');
      assert.equal(err.message, 'create: the dynamic-provider host did not answer within 400 ms');
    } finally {
      await slow.stop();
    }
  });

  it('kill ends the host at once: a call in flight fails, not as a timeout; stop after the exit returns', async () => {
    const doomed = await DynamicHost.start({ cwd: repoRoot(), callTimeoutMs: 30_000 });
    await doomed.configure({});
    const inFlight = failure(doomed.create(URN, props({ name: 'f', hang: true })));
    doomed.kill();
    const err = await inFlight;
    assert.equal(err.operation, 'create');
    assert.equal(err.timedOut, false);
    // Every call of a killed host fails, naming its operation (configure's failure can only be shown this way).
    const configure = await failure(doomed.configure({}));
    assert.deepEqual([configure.operation, configure.message, configure.timedOut], ['configure', 'Channel has been shut down', false]);
    await doomed.stop();
  });

  it('a host that exits or prints something else before its port is reported with its standard error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'host-driver-'));
    try {
      const noisy = join(dir, 'noisy.js');
      writeFileSync(noisy, `require('fs').writeFileSync(${JSON.stringify(join(dir, 'pid'))}, String(process.pid)); process.stdout.write('hello\\n');\n`);
      const crash = join(dir, 'crash.js');
      writeFileSync(crash, "console.error('crash: cannot start'); process.exit(3);\n");
      const noisyErr = await DynamicHost.start({ cwd: repoRoot(), env: { NODE_OPTIONS: `--require ${noisy}` } }).then(
        (h) => (h.stop(), assert.fail('expected no host')),
        (e: Error) => e,
      );
      assert.equal(noisyErr.message, 'the dynamic-provider host printed "hello" instead of its port:\n');
      // It is ended, not left running (it would keep the runner's process alive).
      const pid = Number(readFileSync(join(dir, 'pid'), 'utf8'));
      await eventually(() => !alive(pid), `the noisy host (pid ${pid}) ended`);
      const crashErr = await DynamicHost.start({ cwd: repoRoot(), env: { NODE_OPTIONS: `--require ${crash}` } }).then(
        (h) => (h.stop(), assert.fail('expected no host')),
        (e: Error) => e,
      );
      assert.equal(crashErr.message, 'the dynamic-provider host exited (code 3) before printing its port:\ncrash: cannot start');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
