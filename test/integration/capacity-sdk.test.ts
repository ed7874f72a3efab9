/**
 * getCapacity() (sdk/capacity.ts) in a program run in preview under `pulumi.runtime.setMocks`, reading the
 * emulator through stack config `harvester:kubeconfig` (secret), as the provider does.
 */
import assert from 'node:assert/strict';
import * as pulumi from '@pulumi/pulumi';
import { getCapacity } from '../../sdk';
import { clearCapacityCache } from '../../provider/capacity';
import { startTestEmulator, TestEmulator } from '../support/emulator-harness';
import { settle } from '../support/program-mocks';

describe('getCapacity() in a previewed program', function () {
  this.timeout(60_000);
  let t: TestEmulator;

  before(async () => {
    t = await startTestEmulator({ hosts: { count: 2, cpu: '16', memory: '64Gi' } });
    await pulumi.runtime.setMocks({ newResource: (a) => ({ id: a.name, state: a.inputs }), call: () => ({}) }, 'capacity', 'dev', true);
    pulumi.runtime.setAllConfig({ 'harvester:kubeconfig': t.emulator.kubeconfig }, ['harvester:kubeconfig']);
    clearCapacityCache();
  });
  after(() => t?.stop());

  it('returns the snapshot over the stack\'s connection, known at preview and not secret', async () => {
    const capacity = getCapacity({ namespace: 'default', storage: false });
    const value = await settle(capacity);
    assert.deepEqual(value.hosts.map((h) => [h.name, h.zone]), [['harvester-node-0', 'us-east-1a'], ['harvester-node-1', 'us-east-1b']]);
    assert.deepEqual(value.zones.map((z) => z.zone), ['us-east-1a', 'us-east-1b']);
    assert.equal(value.settings.overcommit.cpu, 1600);
    assert.equal(value.certain, true);
    assert.deepEqual(value.warnings, []);
    assert.equal(await pulumi.isSecret(capacity), false, 'the snapshot holds no credentials');
    const free = await settle(capacity.apply((c) => c.zones.find((z) => z.zone === 'us-east-1a')!.freeVcpus));
    assert.ok(free > 100);
  });
});
