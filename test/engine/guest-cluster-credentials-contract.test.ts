/**
 * GuestClusterCredentials through Pulumi's real dynamic-provider host, as the engine drives it:
 * - secrets: the token is in cloudConfig and cloudInit only (the SDK lists both in additionalSecretOutputs, so
 *   the engine keeps them secret); never in another output, in read's inputs, in an error or partial failure, or
 *   in a line the host printed;
 * - rotation: a new rotationTrigger is an update (no replace) giving a new token; the old one is refused (401);
 * - import: by `namespace/serviceAccount` alone, then the program's check and diff plan nothing;
 * - rights turned off go in the same up: bindCsiDriverRole true → false deletes our ClusterRoleBinding (the token
 *   loses the csi-driver role's cluster-wide rights at once), and the refresh after shows no drift.
 */
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { isHarvesterError } from '../../provider/client/errors';
import { RESOURCES } from '../../sdk/registry';
import { inputsFlagged } from '../../provider/core/input-flags';
import { DynamicHostError } from '../../runner/dynamic-host';
import { startEngineHarness, type EngineHarness } from './engine-support';

type Raw = Record<string, unknown>;
const SECRET_OUTPUTS = ['cloudConfig', 'cloudInit'];

describe('engine contract: GuestClusterCredentials secrets, rotation and import', function () {
  this.timeout(120_000);
  let h: EngineHarness;
  let text: string;
  const hostLines: string[] = [];
  before(async () => {
    h = await startEngineHarness({ onHostLine: (line) => hostLines.push(line) });
    text = await h.providerText('guestClusterCredentials');
  });
  after(async () => h?.stop());

  const urn = (name: string) => h.urn('GuestClusterCredentials', name);
  const program = (name: string, extra: Raw = {}): Raw => ({ __provider: text, clusterName: name, namespace: 'default', timeouts: { create: '10s', update: '10s', delete: '10s' }, ...extra });
  const tokenOf = (props: Raw) => (parse(props.cloudConfig as string) as { users: { user: { token: string } }[] }).users[0].user.token;
  const outside = (values: Raw | undefined) => JSON.stringify(Object.fromEntries(Object.entries(values ?? {}).filter(([k]) => !SECRET_OUTPUTS.includes(k))));
  const status = async (props: Raw) => {
    const client = await HarvesterClient.connect({ kubeconfig: props.cloudConfig as string, retry: { maxAttempts: 1 } });
    return client.virtualMachines.list({ namespace: 'default' }).then(() => 200, (e: unknown) => (isHarvesterError(e) ? e.httpStatus : -1));
  };
  /** What the token gets listing StorageClasses: a right only the csi-driver ClusterRole grants (cluster-wide). */
  const csiStatus = async (props: Raw) => {
    const client = await HarvesterClient.connect({ kubeconfig: props.cloudConfig as string, retry: { maxAttempts: 1 } });
    const storageClasses = client.resource({ group: 'storage.k8s.io', version: 'v1', kind: 'StorageClass', plural: 'storageclasses', namespaced: false, statusSubresource: false });
    return storageClasses.list().then(() => 200, (e: unknown) => (isHarvesterError(e) ? e.httpStatus : -1));
  };

  it('the SDK marks cloudConfig and cloudInit secret outputs', () => {
    const entry = RESOURCES.find((r) => r.className === 'GuestClusterCredentials')!;
    assert.deepEqual([...inputsFlagged(entry.outputs, 'secret')].sort(), ['cloudConfig', 'cloudInit', 'kubeconfig']);
  });

  it('the token appears only in cloudConfig and cloudInit: not in other outputs, read inputs, errors, partial failures or host lines', async () => {
    const checked = await h.host.check(urn('sec'), {}, program('sec'));
    const made = await h.host.create(urn('sec'), checked.inputs);
    const token = tokenOf(made.properties);
    assert.ok(token.length > 20);
    const read = await h.host.read(urn('sec'), made.id, made.properties);
    for (const values of [made.properties, read.properties, read.inputs]) assert.equal(outside(values).includes(token), false);
    assert.equal(JSON.stringify(read.inputs).includes(token), false, 'read inputs hold no output');
    const ids = h.t.emulator.faults.add({ name: 'no-token-wait', match: { resource: 'secrets', verb: ['list', 'watch'] }, action: { type: 'unauthorized' } });
    const news = (await h.host.check(urn('sec'), checked.inputs, program('sec', { rotationTrigger: 'x', timeouts: { create: '1s', update: '1s', delete: '10s' } }))).inputs;
    const err = await h.host.update(urn('sec'), made.id, read.properties, news).then(() => undefined, (e: unknown) => e);
    for (const id of ids) h.t.emulator.faults.remove(id);
    assert.ok(err instanceof DynamicHostError && err.initFailure, `a failed rotation is a partial failure, got ${String(err)}`);
    assert.equal(err.message.includes(token), false);
    assert.equal(outside(err.initFailure.properties).includes(token), false);
    assert.equal(hostLines.some((l) => l.includes(token)), false, 'the host printed the token');
    const refreshed = await h.host.read(urn('sec'), made.id, err.initFailure.properties);
    await h.host.delete(urn('sec'), made.id, refreshed.properties);
  });

  it('a new rotationTrigger updates in place with a new token; the old token is refused (401)', async () => {
    const checked = await h.host.check(urn('rot'), {}, program('rot', { rotationTrigger: '1' }));
    const made = await h.host.create(urn('rot'), checked.inputs);
    const news = (await h.host.check(urn('rot'), checked.inputs, program('rot', { rotationTrigger: '2' }))).inputs;
    const diff = await h.host.diff(urn('rot'), made.id, made.properties, news);
    assert.deepEqual([diff.changes, diff.replaces], ['some', []]);
    const updated = await h.host.update(urn('rot'), made.id, made.properties, news);
    assert.notEqual(tokenOf(updated.properties), tokenOf(made.properties));
    assert.equal(await status(made.properties), 401);
    assert.equal(await status(updated.properties), 200);
    await h.host.delete(urn('rot'), made.id, updated.properties);
    assert.equal(await status(updated.properties), 401, 'destroy: the token stops working');
  });

  it('import by namespace/serviceAccount alone plans nothing against the program', async () => {
    const checked = await h.host.check(urn('imp'), {}, program('imp', { rotationTrigger: 'r1' }));
    const made = await h.host.create(urn('imp'), checked.inputs);
    const imported = await h.host.read(urn('imp'), 'default/imp', {}, { __provider: text });
    assert.equal(imported.id, 'default/imp');
    assert.equal(tokenOf(imported.properties), tokenOf(made.properties));
    const news = await h.host.check(urn('imp'), imported.inputs ?? {}, program('imp', { rotationTrigger: 'r1' }));
    assert.deepEqual(news.failures, []);
    assert.equal((await h.host.diff(urn('imp'), imported.id, imported.properties, news.inputs)).changes, 'none');
    await h.host.delete(urn('imp'), made.id, made.properties);
  });

  it('bindCsiDriverRole true → false deletes our ClusterRoleBinding in that up (the token loses its rights at once); refresh shows no drift', async () => {
    const checked = await h.host.check(urn('csi'), {}, program('csi', { bindCsiDriverRole: true }));
    const made = await h.host.create(urn('csi'), checked.inputs);
    const binding = made.properties.clusterRoleBindingName as string;
    assert.ok(await h.client.clusterRoleBindings.get(binding));
    assert.equal(await csiStatus(made.properties), 200, 'the csi-driver role lets the token list StorageClasses');
    const news = (await h.host.check(urn('csi'), checked.inputs, program('csi', { bindCsiDriverRole: false }))).inputs;
    const diff = await h.host.diff(urn('csi'), made.id, made.properties, news);
    assert.deepEqual([diff.changes, diff.replaces], ['some', []], 'an update in place');
    const updated = await h.host.update(urn('csi'), made.id, made.properties, news);
    assert.equal(await h.client.clusterRoleBindings.get(binding), undefined, 'the ClusterRoleBinding is gone after that same up');
    assert.equal(await csiStatus(updated.properties), 403, 'the token no longer holds the csi-driver rights');
    assert.equal(await status(updated.properties), 200, 'the cloud-provider rights stay');
    const refreshed = await h.host.read(urn('csi'), made.id, updated.properties);
    assert.equal(refreshed.inputs?.bindCsiDriverRole, false);
    assert.deepEqual(refreshed.properties.drift, []);
    assert.equal((await h.host.diff(urn('csi'), made.id, refreshed.properties, news)).changes, 'none', 'the next preview plans nothing');
    await h.host.delete(urn('csi'), made.id, refreshed.properties);
  });
});
