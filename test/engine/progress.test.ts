/**
 * Progress of long work reaches the Pulumi CLI: the exported providers print their waits' progress lines on
 * the real dynamic-provider host's standard output (after the port line, which the CLI shows as messages),
 * prefixed with the resource and its object, redacted, and rate-limited. Driven as the engine drives the host;
 * the interval is set far beyond the test (HARVESTER_PROGRESS_INTERVAL), so only news prints a line before the
 * last one and the count bound holds whatever the machine's speed.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DynamicHost, serializeProvider } from '../../runner/dynamic-host';
import { repoRoot } from '../../scripts/resource-docs';
import { providerFor } from '../../sdk/runtime';
import { startTestEmulator, type TestEmulator } from '../support/emulator-harness';

const PREFIX = 'HarvesterMachinePool default/progress-pool: ';
const USER_DATA = '#cloud-config\npassword: s3cr3t-progress-user-data\n';
const newsOf = (line: string) => line.replace(/\d+/g, '#');

describe('engine contract: progress lines on the host\'s standard output', function () {
  this.timeout(120_000);
  let t: TestEmulator;
  let host: DynamicHost;
  const output: string[] = [];

  before(async () => {
    t = await startTestEmulator({ harvester: { delays: { vmiSchedule: 50, vmiBoot: 400, guestAgent: 300, imageImport: 20 } } });
    host = await DynamicHost.start({
      cwd: repoRoot(),
      callTimeoutMs: 60_000,
      env: { KUBECONFIG: join(t.dir, 'no-such-kubeconfig'), HARVESTER_PROGRESS_INTERVAL: '3600' },
      onOutput: (line) => output.push(line),
    });
    await host.configure({ 'harvester:kubeconfig': t.emulator.kubeconfig });
    const urn = 'urn:pulumi:test::harvester-iac::pulumi-nodejs:dynamic/harvester:HarvesterMachinePool::progress-pool';
    const checked = await host.check(urn, {}, {
      __provider: await serializeProvider(providerFor('machinePool')),
      name: 'progress-pool',
      count: 3,
      disks: [{ image: 'default/ubuntu-22.04-server-cloudimg', size: '10Gi' }],
      networks: [{ network: 'default/vm-net' }],
      userData: USER_DATA,
      timeouts: { create: '60s', update: '60s', delete: '60s' },
    });
    assert.deepEqual(checked.failures, []);
    const created = await host.create(urn, checked.inputs);
    assert.equal(created.properties.readyCount, 3);
    await host.delete(urn, created.id, created.properties);
  });
  after(async () => {
    await host?.stop();
    await t?.stop();
  });

  const lines = () => output.filter((l) => l.startsWith(PREFIX));

  it('prints what the create and the delete wait for, each line prefixed with the resource and the pool', () => {
    assert.deepEqual(output.filter((l) => !l.startsWith(PREFIX)), [], 'nothing else on stdout');
    assert.ok(lines().some((l) => /VMs ready; progress-pool-\d: /.test(l)), output.join('\n'));
    assert.ok(lines().some((l) => l === `${PREFIX}3/3 VMs ready`), 'the last line of the wait is shown');
    assert.ok(lines().some((l) => /to be deleted|are gone/.test(l)), output.join('\n'));
  });

  it('never prints the user data or the kubeconfig token', () => {
    const token = /token: (\S+)/.exec(t.emulator.kubeconfig)?.[1];
    assert.ok(token, 'the emulator kubeconfig has a token');
    const all = output.join('\n');
    assert.equal(all.includes('s3cr3t-progress-user-data'), false);
    assert.equal(all.includes(token), false);
  });

  it('is rate-limited: a repeat of the same news is held back, so three VMs\' creates print one line', () => {
    assert.equal(lines().filter((l) => /: create progress-pool-\d/.test(l)).length, 1, output.join('\n'));
    // Within one call, consecutive lines carry different news; only the line flushed at the call's end may repeat.
    const createLines = lines().slice(0, lines().findIndex((l) => l === `${PREFIX}3/3 VMs ready`) + 1);
    createLines.slice(1, -1).forEach((l, i) => assert.notEqual(newsOf(l), newsOf(createLines[i]), `${createLines[i]}\n${l}`));
    assert.ok(lines().length <= 20, `${lines().length} lines:\n${lines().join('\n')}`);
  });
});
