/**
 * One test per trap of Pulumi's real dynamic-provider host (docs/design/dynamic-host-contract.md §"Traps"), driven
 * over gRPC as the engine drives it, with `__provider` texts serialized from the SDK's provider objects, against
 * the emulator.
 */
import assert from 'node:assert/strict';
import { RESOURCES } from '../../sdk/registry';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { DynamicHostError, UNKNOWN_VALUE } from '../../runner/dynamic-host';
import { MESSAGE_LIMIT } from '../../provider/host/host-safe';
import { startEngineHarness, type EngineHarness } from './engine-support';

describe('engine contract: the traps of the real dynamic-provider host', function () {
  this.timeout(120_000);
  let h: EngineHarness;
  let text: string;
  before(async () => {
    h = await startEngineHarness();
    text = await h.providerText('machinePool');
  });
  after(async () => h?.stop());

  const poolVms = async (pool: string) =>
    (await h.client.virtualMachines.list({ namespace: 'default', labelSelector: `harvester-iac.io/resource-name=${pool}` })).items;

  it('__provider stays under 2 KB, requires harvester-iac/provider by name and captures nothing else (§1.4)', async () => {
    for (const entry of RESOURCES) {
      const serialized = await h.providerText(entry.exportName);
      assert.ok(serialized.length <= 2048, `${entry.className}: __provider is ${serialized.length} bytes`);
      assert.match(serialized, /require\('harvester-iac\/provider'\)/);
      assert.ok(serialized.includes(`"${entry.exportName}"`));
      assert.equal(serialized.includes('BEGIN CERTIFICATE') || serialized.includes('token'), false);
    }
  });

  it('trap 1, 4 and 6: import of a pool made outside Pulumi returns plain, complete inputs and the next preview is clean', async () => {
    const urn = h.urn('HarvesterMachinePool', 'outside');
    const made = await h.host.create(urn, (await h.host.check(urn, {}, h.poolInputs('outside', text))).inputs);
    // `pulumi import` / HarvesterMachinePool.get: the engine sends the id and { __provider } only.
    const imported = await h.host.read(urn, made.id, {}, { __provider: text });
    assert.equal(imported.id, 'default/outside');
    assert.ok(imported.inputs, 'read returns inputs for the engine to diff against');
    assert.equal(imported.inputs!.__provider, text);
    assert.equal(JSON.stringify(imported.properties).includes('s3cr3t-user-data'), false, 'user data never in outputs');
    const checked = await h.host.check(urn, imported.inputs!, h.poolInputs('outside', text));
    assert.deepEqual(checked.failures, []);
    assert.equal((await h.host.diff(urn, imported.id, imported.properties, checked.inputs)).changes, 'none', 'the user data is read from the Secret');
    const other = await h.host.check(urn, imported.inputs!, h.poolInputs('outside', text, { userData: '#cloud-config\nhostname: elsewhere\n' }));
    assert.equal((await h.host.diff(urn, imported.id, imported.properties, other.inputs)).changes, 'some', 'other user data is a change (the pool is rolled to it)');
    await h.host.delete(urn, made.id, made.properties);
    assert.equal((await poolVms('outside')).length, 0);
  });

  it('trap 2 and 12: a partial create carries __provider and a capped message; refresh and destroy of it work', async () => {
    const urn = h.urn('HarvesterMachinePool', 'partial');
    const news = h.poolInputs('partial', text, {
      count: 2,
      guestAgent: 'none',
      userData: '#cloud-config\nhostname: no-agent\n',
      timeouts: { create: '2s', update: '2s', delete: '60s' },
    });
    const checked = await h.host.check(urn, {}, news);
    assert.deepEqual(checked.failures, []);
    const err = await h.host.create(urn, checked.inputs).then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof DynamicHostError, `expected a host error, got ${err}`);
    assert.ok(err.initFailure, 'the host reports ErrorResourceInitFailed');
    assert.equal(err.initFailure.id, 'default/partial');
    assert.equal(err.initFailure.properties.__provider, text, '__provider kept for the next refresh/destroy');
    assert.match(err.message, /qemu-guest-agent/);
    assert.ok(err.message.length <= MESSAGE_LIMIT);
    const refreshed = await h.host.read(urn, err.initFailure.id, err.initFailure.properties);
    assert.notEqual((refreshed.properties.drift as string[]).length, 0, 'the unfinished create stays visible after a refresh');
    assert.equal((await h.host.diff(urn, refreshed.id, refreshed.properties, checked.inputs)).changes, 'some');
    await h.host.delete(urn, refreshed.id, refreshed.properties);
    assert.equal((await poolVms('partial')).length, 0);
  });

  it('trap 2 for HarvesterLoadBalancer: its partial create carries __provider and the unfinished line; refresh and destroy of it work', async () => {
    const lbText = await h.providerText('loadBalancer');
    await h.client.ipPools.create({ apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'IPPool', metadata: { name: 'engine-pool' }, spec: { ranges: [{ subnet: '10.60.0.0/24', rangeStart: '10.60.0.10', rangeEnd: '10.60.0.11' }] } });
    const urn = h.urn('HarvesterLoadBalancer', 'stalled');
    // An address from the pool, but no VM runs behind it: never Ready.
    const news = { __provider: lbText, name: 'stalled', ipPool: 'engine-pool', listeners: [{ name: 'http', port: 80, backendPort: 8080 }], backendServerSelector: { app: ['nothing-runs'] }, timeouts: { create: '1s', update: '1s', delete: '30s' } };
    const checked = await h.host.check(urn, {}, news);
    assert.deepEqual(checked.failures, []);
    const err = await h.host.create(urn, checked.inputs).then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof DynamicHostError, `expected a host error, got ${err}`);
    assert.ok(err.initFailure, 'the host reports ErrorResourceInitFailed');
    assert.equal(err.initFailure.id, 'default/stalled');
    assert.equal(err.initFailure.properties.__provider, lbText, '__provider kept for the next refresh/destroy');
    assert.match(err.message, /no running backend servers/);
    assert.match(String(err.initFailure.properties.address), /^10\.60\.0\.1[01]$/, 'the outputs are what exists');
    const refreshed = await h.host.read(urn, err.initFailure.id, err.initFailure.properties);
    assert.deepEqual(refreshed.properties.drift, ['the last create of LoadBalancer default/stalled did not finish (WaitTimeout); the next `pulumi up` resumes it']);
    assert.equal((await h.host.diff(urn, refreshed.id, refreshed.properties, checked.inputs)).changes, 'some');
    await h.host.delete(urn, refreshed.id, refreshed.properties);
    assert.equal(await h.client.loadBalancers.get('stalled', 'default'), undefined);
    await h.client.ipPools.delete('engine-pool');
  });

  it('trap 3: an error reaches the engine as a complete message naming the field and the fix', async () => {
    const urn = h.urn('HarvesterMachinePool', 'bad');
    const err = await h.host.create(urn, h.poolInputs('bad', text, { count: -1 })).then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof DynamicHostError);
    assert.match(err.message, /count/);
    assert.match(err.message, /Fix the inputs/);
    assert.equal((await poolVms('bad')).length, 0, 'nothing was written');
  });

  it('trap 8: a credential problem is reported on property "" and never quotes the kubeconfig', async () => {
    const kubeconfig = h.t.emulator.kubeconfig.replace(/server: https:\/\/127\.0\.0\.1:\d+/, 'server: https://127.0.0.1:1');
    const host = await h.newHost({ 'harvester:kubeconfig': kubeconfig });
    const urn = h.urn('HarvesterMachinePool', 'unreachable');
    const checked = await host.check(urn, {}, h.poolInputs('unreachable', text));
    assert.equal(checked.failures.length, 1);
    assert.equal(checked.failures[0].property, '');
    assert.match(checked.failures[0].reason, /cannot check the inputs against the Harvester cluster/);
    const token = /token: (\S+)/.exec(kubeconfig)?.[1] ?? 'no-token-in-kubeconfig';
    assert.equal(checked.failures[0].reason.includes(token), false);
  });

  it('trap 10: a key pair deleted after deployment does not fail check of unchanged inputs; a new reference to it does', async () => {
    const urn = h.urn('HarvesterMachinePool', 'keys');
    await h.client.keyPairs.create({
      apiVersion: 'harvesterhci.io/v1beta1',
      kind: 'KeyPair',
      metadata: { name: 'short-lived', namespace: 'default' },
      spec: { publicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb0b2dkZXZ0ZXN0a2V5Zm9ydGhlaGFydmVzdGVyaWFj test@example' },
    });
    const first = await h.host.check(urn, {}, h.poolInputs('keys', text, { sshKeys: ['short-lived'] }));
    assert.deepEqual(first.failures, []);
    await h.client.keyPairs.delete('short-lived', { namespace: 'default' });
    const again = await h.host.check(urn, first.inputs, h.poolInputs('keys', text, { sshKeys: ['short-lived'] }));
    assert.deepEqual(again.failures, [], 'unchanged inputs pass: the missing key pair is for read/update to report');
    const fresh = await h.host.check(h.urn('HarvesterMachinePool', 'keys2'), {}, h.poolInputs('keys2', text, { sshKeys: ['short-lived'] }));
    assert.equal(fresh.failures.length, 1);
    assert.equal(fresh.failures[0].property, 'sshKeys[0]');
  });

  it('trap 11 and unknowns: null means absent, and unknown values pass check and diff during preview', async () => {
    const urn = h.urn('HarvesterMachinePool', 'nulls');
    const checked = await h.host.check(urn, {}, h.poolInputs('nulls', text, { count: null, zones: null, labels: null }));
    assert.deepEqual(checked.failures, []);
    assert.equal(checked.inputs.count, 1);
    const preview = await h.host.check(urn, {}, h.poolInputs('nulls', text, { userData: UNKNOWN_VALUE, count: UNKNOWN_VALUE }));
    assert.deepEqual(preview.failures, []);
    const diff = await h.host.diff(urn, 'default/nulls', checked.inputs, { ...checked.inputs, count: UNKNOWN_VALUE });
    assert.equal(diff.changes, 'some');
  });
  // Last: it rotates the emulator's token, which every earlier test's host and client still use.
  it('trap 9: a rotated token in stack config reaches refresh and destroy; a changed connection is no diff', async () => {
    const urn = h.urn('HarvesterMachinePool', 'rotate');
    const checked = await h.host.check(urn, {}, h.poolInputs('rotate', text));
    const created = await h.host.create(urn, checked.inputs);
    h.t.emulator.faults.rotateToken({ expireOld: true });
    const next = await h.newHost({ 'harvester:kubeconfig': h.t.emulator.kubeconfig }); // the next `pulumi` run
    const refreshed = await next.read(urn, created.id, created.properties);
    assert.deepEqual(refreshed.properties.drift, []);
    const diff = await next.diff(urn, created.id, refreshed.properties, { ...checked.inputs, kubeconfig: h.t.emulator.kubeconfig, context: 'other' });
    assert.equal(diff.changes, 'none', 'connection settings are not part of the resource');
    await next.delete(urn, created.id, refreshed.properties);
    const rotated = await HarvesterClient.connect({ kubeconfig: h.t.emulator.kubeconfig });
    const left = await rotated.virtualMachines.list({ namespace: 'default', labelSelector: 'harvester-iac.io/resource-name=rotate' });
    assert.equal(left.items.length, 0);
  });
});
