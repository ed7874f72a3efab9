/**
 * GuestClusterCredentials' updates on the emulator, object by object: an up with nothing to change writes nothing;
 * a clusterName change and a serverUrl dropped rewrite only the annotations; our labels stripped by hand come
 * back; a RoleBinding edited by hand is made again; bindCsiDriverRole turned off takes our ClusterRoleBinding away
 * in the same up but never someone else's, which destroy leaves too. A namespace other than default throughout,
 * so a write that lost its namespace would miss.
 */
import assert from 'node:assert/strict';
import type { GuestClusterCredentialsOutputs } from '../../provider/resources/guest-cluster-credentials/model';
import { guestCredentialsEmulator } from '../support/guest-credentials-emulator';

type Raw = Record<string, unknown>;
const NS = 'gc-up';
const READS = ['get', 'list', 'watch'];

describe('GuestClusterCredentials updates: what each up writes', function () {
  this.timeout(60_000);
  const h = guestCredentialsEmulator(NS);
  const { creds, args, created } = h;
  const writesSince = (mark: number) => h.t.emulator.journal.entries({ since: mark }).filter((e) => !READS.includes(e.verb ?? '')).map((e) => `${e.verb} ${e.resource}/${e.name ?? ''}`);
  async function updated(olds: GuestClusterCredentialsOutputs, clusterName: string, extra: Raw = {}): Promise<GuestClusterCredentialsOutputs> {
    const checked = await creds.check(olds as unknown as Raw, args(clusterName, extra));
    assert.deepEqual(checked.failures ?? [], []);
    return (await creds.update(`${NS}/${olds.serviceAccountName}`, olds as unknown as Raw, checked.inputs!)).outs!;
  }
  const destroy = (outs: GuestClusterCredentialsOutputs) => creds.delete(`${NS}/${outs.serviceAccountName}`, outs as unknown as Raw);
  const driftOf = async (outs: GuestClusterCredentialsOutputs) => (await creds.read(`${NS}/${outs.serviceAccountName}`, outs as unknown as Raw)).props!.drift;

  it('an up with nothing to change writes nothing (no patch, no object made again)', async () => {
    const outs = await created('gc-n', { serverUrl: 'https://10.0.0.10:6443', rotationTrigger: 'v1' });
    const mark = h.t.emulator.journal.mark();
    const again = await updated(outs, 'gc-n', { serverUrl: 'https://10.0.0.10:6443', rotationTrigger: 'v1' });
    assert.deepEqual(writesSince(mark), []);
    assert.equal(again.cloudConfig, outs.cloudConfig);
    await destroy(again);
  });

  it('a clusterName change (serviceAccountName kept) rewrites the ServiceAccount\'s annotation in place', async () => {
    const outs = await created('gc-c1', { serviceAccountName: 'gc-c' });
    const mark = h.t.emulator.journal.mark();
    const again = await updated(outs, 'gc-c2', { serviceAccountName: 'gc-c' });
    assert.deepEqual(writesSince(mark), ['patch serviceaccounts/gc-c']);
    assert.equal((await h.admin.serviceAccounts.get('gc-c', NS))?.metadata.annotations?.['harvester-iac.io/guest-cluster'], 'gc-c2');
    assert.equal(again.serviceAccountUid, outs.serviceAccountUid, 'the same ServiceAccount: the token stays');
    assert.deepEqual(await driftOf(again), []);
    await destroy(again);
  });

  it('a serverUrl dropped from the inputs leaves the token Secret\'s annotations, and the read no longer reports one', async () => {
    const outs = await created('gc-s', { serverUrl: 'https://10.0.0.10:6443' });
    const again = await updated(outs, 'gc-s');
    const annotations = (await h.admin.secrets.get('gc-s-token', NS))?.metadata.annotations ?? {};
    assert.equal(annotations['harvester-iac.io/server-url'], undefined);
    assert.equal(annotations['kubernetes.io/service-account.name'], 'gc-s', 'the annotations we do not own stay');
    const read = await creds.read(`${NS}/gc-s`, again as unknown as Raw);
    assert.equal(read.inputs!.serverUrl, undefined);
    assert.deepEqual(read.props!.drift, []);
    await destroy(again);
  });

  it('our labels stripped by hand from an object of ours come back at the next up', async () => {
    const outs = await created('gc-l');
    await h.admin.roleBindings.mergePatch(`${NS}-gc-l`, { metadata: { labels: { 'app.kubernetes.io/managed-by': null } } }, { namespace: NS });
    const again = await updated(outs, 'gc-l');
    assert.equal((await h.admin.roleBindings.get(`${NS}-gc-l`, NS))?.metadata.labels?.['app.kubernetes.io/managed-by'], 'harvester-iac');
    await destroy(again);
  });

  it('a RoleBinding edited by hand (another subject) is made again by the next up, in its namespace', async () => {
    const outs = await created('gc-e');
    const before = (await h.admin.roleBindings.get(`${NS}-gc-e`, NS))!;
    await h.admin.roleBindings.mergePatch(`${NS}-gc-e`, { subjects: [{ kind: 'User', name: 'mallory', apiGroup: 'rbac.authorization.k8s.io' }] }, { namespace: NS });
    assert.match((await driftOf(outs)).join('\n'), /RoleBinding gc-up\/gc-up-gc-e: no longer binds harvesterhci\.io:cloudprovider to ServiceAccount gc-e/);
    const again = await updated(outs, 'gc-e');
    const after = (await h.admin.roleBindings.get(`${NS}-gc-e`, NS))!;
    assert.notEqual(after.metadata.uid, before.metadata.uid, 'deleted and created (roleRef and subjects restored)');
    assert.deepEqual(after.subjects, [{ kind: 'ServiceAccount', namespace: NS, name: 'gc-e' }]);
    assert.deepEqual(await driftOf(again), []);
    await destroy(again);
  });

  it('bindCsiDriverRole turned off deletes our ClusterRoleBinding in the same up', async () => {
    const outs = await created('gc-o');
    assert.ok(await h.admin.clusterRoleBindings.get(`${NS}-gc-o`));
    const again = await updated(outs, 'gc-o', { bindCsiDriverRole: false });
    assert.equal(await h.admin.clusterRoleBindings.get(`${NS}-gc-o`), undefined);
    assert.deepEqual(await driftOf(again), []);
    await destroy(again);
  });

  it('with bindCsiDriverRole off, someone else\'s ClusterRoleBinding under our name is left alone by up and by destroy', async () => {
    const outs = await created('gc-f', { bindCsiDriverRole: false });
    const subjects = [{ kind: 'User', name: 'ops', apiGroup: 'rbac.authorization.k8s.io' }];
    const roleRef = { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' };
    await h.admin.clusterRoleBindings.create({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: `${NS}-gc-f` }, subjects, roleRef } as never);
    const again = await updated(outs, 'gc-f', { bindCsiDriverRole: false, rotationTrigger: undefined });
    assert.ok(await h.admin.clusterRoleBindings.get(`${NS}-gc-f`), 'up leaves it');
    await destroy(again);
    assert.equal(await h.admin.serviceAccounts.get('gc-f', NS), undefined, 'destroy removes ours');
    assert.equal(await h.admin.roleBindings.get(`${NS}-gc-f`, NS), undefined);
    assert.deepEqual((await h.admin.clusterRoleBindings.get(`${NS}-gc-f`))?.subjects, subjects, 'destroy leaves theirs');
    await h.admin.clusterRoleBindings.delete(`${NS}-gc-f`);
  });
});
