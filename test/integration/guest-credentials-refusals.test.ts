/**
 * GuestClusterCredentials refusing and timing out on the emulator, with the exact words a user reads: a missing
 * namespace or Harvester ClusterRole (check, and create before its first write); someone else's object under
 * any one of our four names, alone; and every wait that runs out (the token never filled, an object held by a
 * finalizer at destroy, at a rotation, at the re-making of a RoleBinding edited by hand) naming what it waited
 * for and the timeout to raise.
 */
import assert from 'node:assert/strict';
import type { KubeObject } from '../../provider/client/objects';
import type { GuestClusterCredentialsOutputs } from '../../provider/resources/guest-cluster-credentials/model';
import { eventually } from '../support/emulator-harness';
import { guestCredentialsEmulator } from '../support/guest-credentials-emulator';

type Raw = Record<string, unknown>;
const NS = 'gc-rf';
const RBAC = 'rbac.authorization.k8s.io';
const HOLD = { metadata: { finalizers: ['example.com/hold'] } };
const RELEASE = { metadata: { finalizers: null } };

describe('GuestClusterCredentials refusals and timeouts: what the user reads', function () {
  this.timeout(60_000);
  const h = guestCredentialsEmulator(NS);
  const { creds, args, created } = h;
  const failed = (call: Promise<unknown>) => call.then(() => assert.fail('expected a failure'), (e: Error) => e.message);

  it('check names a missing namespace and what to name instead', async () => {
    const r = await creds.check({}, args('gc-n', { namespace: 'nowhere' }));
    assert.deepEqual(r.failures, [{ property: 'namespace', reason: 'namespace nowhere does not exist: name the namespace the guest cluster\'s VMs live in' }]);
  });

  it('without Harvester\'s cloudprovider ClusterRole, check refuses and create stops before its first write, saying why', async () => {
    const role = (await h.admin.clusterRoles.get('harvesterhci.io:cloudprovider'))!;
    await h.admin.clusterRoles.delete('harvesterhci.io:cloudprovider');
    try {
      const reason = `ClusterRole harvesterhci.io:cloudprovider does not exist on the cluster (Harvester's chart installs it: is this a Harvester cluster, of v1.2 or later?): the RoleBinding in ${NS} would grant nothing`;
      assert.deepEqual((await creds.check({}, args('gc-p'))).failures, [{ property: 'namespace', reason }]);
      const mark = h.t.emulator.journal.mark();
      const message = await failed(creds.create({ ...args('gc-p'), serviceAccountName: 'gc-p', bindCsiDriverRole: true }));
      assert.ok(message.startsWith(`ServiceAccount ${NS}/gc-p cannot be created: the cluster refuses the inputs:`), message);
      assert.ok(message.includes(reason), message);
      assert.deepEqual(h.t.emulator.journal.entries({ since: mark }).filter((e) => !['get', 'list', 'watch'].includes(e.verb ?? '')), []);
    } finally {
      await h.admin.clusterRoles.create({ apiVersion: role.apiVersion, kind: role.kind, metadata: { name: role.metadata.name, labels: role.metadata.labels }, rules: (role as KubeObject & { rules?: unknown }).rules } as KubeObject);
    }
  });

  it('someone else\'s token Secret, RoleBinding or ClusterRoleBinding under our name, alone, is refused by check', async () => {
    const subjects = [{ kind: 'User', name: 'ops', apiGroup: RBAC }];
    const roleRef = { apiGroup: RBAC, kind: 'ClusterRole', name: 'view' };
    const theirs: [string, () => Promise<unknown>, () => Promise<unknown>][] = [
      ['Secret gc-rf/gc-s1-token', () => h.admin.secrets.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'gc-s1-token', namespace: NS }, data: {} } as never), () => h.admin.secrets.delete('gc-s1-token', { namespace: NS })],
      ['RoleBinding gc-rf/gc-rf-gc-s2', () => h.admin.roleBindings.create({ apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name: `${NS}-gc-s2`, namespace: NS }, subjects, roleRef } as never), () => h.admin.roleBindings.delete(`${NS}-gc-s2`, { namespace: NS })],
      ['ClusterRoleBinding gc-rf-gc-s3', () => h.admin.clusterRoleBindings.create({ apiVersion: `${RBAC}/v1`, kind: 'ClusterRoleBinding', metadata: { name: `${NS}-gc-s3` }, subjects, roleRef } as never), () => h.admin.clusterRoleBindings.delete(`${NS}-gc-s3`)],
    ];
    for (const [[object, make, remove], name] of theirs.map((e, i) => [e, `gc-s${i + 1}`] as const)) {
      await make();
      const r = await creds.check({}, args(name));
      assert.deepEqual(r.failures?.map((f) => f.property), ['serviceAccountName'], object);
      assert.ok(r.failures![0].reason.startsWith(`Refusing to manage ${object}`), r.failures![0].reason);
      await remove();
    }
  });

  it('a token the controller never fills times out naming the Secret awaited and timeouts.create', async () => {
    const [rule] = h.t.emulator.faults.add({ match: { verb: ['list', 'watch'], resource: 'secrets', namespace: NS }, action: { type: 'latency', ms: 5000 } });
    try {
      const message = await failed(creds.create({ ...args('gc-w', { timeouts: { create: '1s' } }), serviceAccountName: 'gc-w', bindCsiDriverRole: true }));
      assert.match(message, new RegExp(`Timed out after 1s waiting for Secret ${NS}/gc-w-token to hold a token and ca\\.crt\\.`));
      assert.match(message, /raise `timeouts\.create` \(now 1s\)/);
    } finally {
      h.t.emulator.faults.remove(rule);
    }
    await creds.delete(`${NS}/gc-w`, { ...args('gc-w'), serviceAccountName: 'gc-w' });
  });

  it('a token Secret replaced by someone during the token wait is never taken for ours: the wait says so and times out', async () => {
    // The wait's list is held back, so the replacement lands between our create and the wait's first look.
    const [rule] = h.t.emulator.faults.add({ match: { verb: ['list', 'watch'], resource: 'secrets', namespace: NS }, action: { type: 'latency', ms: 1500 } });
    const create = failed(creds.create({ ...args('gc-x', { timeouts: { create: '3s' } }), serviceAccountName: 'gc-x' }));
    try {
      await eventually(async () => (await h.admin.secrets.get('gc-x-token', NS)) !== undefined, 'our token Secret created', 10_000);
      const ours = (await h.admin.secrets.get('gc-x-token', NS))!;
      await h.admin.secrets.delete('gc-x-token', { namespace: NS });
      const { uid: _uid, resourceVersion: _rv, creationTimestamp: _at, ...metadata } = ours.metadata;
      await h.admin.secrets.create({ ...ours, metadata, data: { token: Buffer.from('someone-elses').toString('base64'), 'ca.crt': Buffer.from('ca').toString('base64') } } as never);
    } finally {
      h.t.emulator.faults.remove(rule);
    }
    const message = await create;
    assert.match(message, new RegExp(`Timed out after 3s waiting for Secret ${NS}/gc-x-token to hold a token and ca\\.crt\\. Last seen: the Secret was replaced\\. Still pending: token\\.`));
    assert.ok(!message.includes('someone-elses') && !message.includes(Buffer.from('someone-elses').toString('base64')), 'the token is never quoted');
    await h.admin.secrets.delete('gc-x-token', { namespace: NS });
    await creds.delete(`${NS}/gc-x`, { ...args('gc-x'), serviceAccountName: 'gc-x' });
  });

  it('destroy held by a finalizer times out naming the object awaited and timeouts.delete', async () => {
    const outs = await created('gc-d', { timeouts: { delete: '1s' } });
    await h.admin.serviceAccounts.mergePatch('gc-d', HOLD, { namespace: NS });
    const message = await failed(creds.delete(`${NS}/gc-d`, outs as unknown as Raw));
    assert.match(message, new RegExp(`Timed out after 1s waiting for ServiceAccount ${NS}/gc-d to be deleted\\.`));
    assert.match(message, /raise `timeouts\.delete` \(now 1s\)/);
    await h.admin.serviceAccounts.mergePatch('gc-d', RELEASE, { namespace: NS });
  });

  it('a rotation held by a finalizer times out naming timeouts.update', async () => {
    const outs = await created('gc-r', { rotationTrigger: '1', timeouts: { update: '1s' } });
    await h.admin.serviceAccounts.mergePatch('gc-r', HOLD, { namespace: NS });
    const news = (await creds.check(outs as unknown as Raw, args('gc-r', { rotationTrigger: '2', timeouts: { update: '1s' } }))).inputs!;
    const message = await failed(creds.update(`${NS}/gc-r`, outs as unknown as Raw, news));
    assert.match(message, new RegExp(`waiting for ServiceAccount ${NS}/gc-r to be deleted\\.`));
    assert.match(message, /raise `timeouts\.update` \(now 1s\)/);
    await h.admin.serviceAccounts.mergePatch('gc-r', RELEASE, { namespace: NS });
  });

  it('a RoleBinding edited by hand and held by a finalizer times out at its re-making, naming timeouts.update', async () => {
    const outs = await created('gc-b', { timeouts: { update: '1s' } });
    await h.admin.roleBindings.mergePatch(`${NS}-gc-b`, { ...HOLD, subjects: [{ kind: 'User', name: 'mallory', apiGroup: RBAC }] }, { namespace: NS });
    const news = (await creds.check(outs as unknown as Raw, args('gc-b', { timeouts: { update: '1s' } }))).inputs!;
    const message = await failed(creds.update(`${NS}/gc-b`, outs as unknown as Raw, news));
    assert.match(message, new RegExp(`waiting for RoleBinding ${NS}/${NS}-gc-b to be replaced\\.`));
    assert.match(message, /raise `timeouts\.update` \(now 1s\)/);
    await h.admin.roleBindings.mergePatch(`${NS}-gc-b`, RELEASE, { namespace: NS });
    await creds.delete(`${NS}/gc-b`, outs as unknown as Raw);
  });
});
