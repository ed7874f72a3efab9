/**
 * Legacy service-account tokens in process, on a manual clock: the authenticator as kube-apiserver's legacy
 * token authenticator checks a token (k8s.io/kubernetes pkg/serviceaccount/legacy.go: the Secret must still
 * hold exactly that token; the ServiceAccount must exist, not be terminating, and have the uid of the token),
 * and the tokens controller (pkg/controller/serviceaccount/tokens_controller.go) deleting only the token Secrets
 * of a deleted ServiceAccount, writing as kube-controller-manager's own user (it is started with the root client
 * builder, cmd/kube-controller-manager/app/controllermanager.go).
 */
import assert from 'node:assert/strict';
import { ObjectStore } from '../../emulator/api/store';
import { ManualClock } from '../../emulator/clock';
import { createHarvesterRegistry, KINDS } from '../../emulator/kinds';
import type { KubeObject } from '../../emulator/api/types';
import { installServiceAccountTokens, serviceAccountAuthenticator, serviceAccountUser, TokensControllerHandle } from '../../emulator/rbac/service-account-tokens';

const ROBOT = 'system:serviceaccount:team:robot';

function serviceAccount(name: string, namespace: string, finalizers?: string[]): KubeObject {
  return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: finalizers ? { name, namespace, finalizers } : { name, namespace } };
}

function secret(name: string, namespace: string, sa: string, type = 'kubernetes.io/service-account-token'): KubeObject {
  return { apiVersion: 'v1', kind: 'Secret', type, metadata: { name, namespace, annotations: { 'kubernetes.io/service-account.name': sa } } };
}

describe('emulator service-account tokens (in process)', () => {
  let store: ObjectStore;
  let clock: ManualClock;
  let controller: TokensControllerHandle;
  let authenticate: (token: string) => { user: string; groups: string[] } | undefined;
  /** Secret deletions as admission sees them: namespace/name and the user. */
  let deletions: string[];
  /** Let watch events arrive (the store delivers them on setImmediate) and the controller's due work run. */
  const settle = async (): Promise<void> => {
    for (let round = 0; round < 5; round++) {
      await new Promise((resolve) => setImmediate(resolve));
      clock.advance(0);
    }
  };
  const tokenOf = (namespace: string, name: string): string =>
    Buffer.from((store.get(KINDS.secret, namespace, name)!.data as Record<string, string>).token, 'base64').toString('utf8');

  beforeEach(async () => {
    clock = new ManualClock();
    store = new ObjectStore(createHarvesterRegistry(), clock);
    for (const name of ['team', 'other']) store.create(KINDS.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    controller = installServiceAccountTokens(store, clock, 'CA PEM')!;
    authenticate = serviceAccountAuthenticator(store)!;
    deletions = [];
    store.addAdmissionHook({
      name: 'test.record-secret-deletions',
      resources: ['secrets'],
      validate: (req) => {
        if (req.operation === 'DELETE') deletions.push(`${req.oldObject!.metadata.namespace}/${req.oldObject!.metadata.name} by ${req.user}`);
      },
    });
    store.create(KINDS.serviceAccount, serviceAccount('robot', 'team'));
    store.create(KINDS.secret, secret('robot-token', 'team', 'robot'));
    await settle();
  });
  afterEach(() => controller.stop());

  it('a service account is its user in system:serviceaccounts, its namespace group and system:authenticated', () => {
    assert.deepEqual(serviceAccountUser('team', 'robot'), { user: ROBOT, groups: ['system:serviceaccounts', 'system:serviceaccounts:team', 'system:authenticated'] });
  });

  it('a filled token authenticates as its service account', () => {
    assert.deepEqual(authenticate(tokenOf('team', 'robot-token')), serviceAccountUser('team', 'robot'));
  });

  it('a token whose Secret no longer holds a token is refused', () => {
    const token = tokenOf('team', 'robot-token');
    const s = store.get(KINDS.secret, 'team', 'robot-token')!;
    const data = { ...(s.data as Record<string, string>) };
    delete data.token;
    store.update(KINDS.secret, { ...s, data });
    assert.equal(authenticate(token), undefined);
  });

  it('a token whose Secret now holds another token is refused', () => {
    const token = tokenOf('team', 'robot-token');
    const s = store.get(KINDS.secret, 'team', 'robot-token')!;
    store.update(KINDS.secret, { ...s, data: { ...(s.data as Record<string, string>), token: Buffer.from('another').toString('base64') } });
    assert.equal(authenticate(token), undefined);
  });

  it('a token of a terminating ServiceAccount is refused', async () => {
    store.create(KINDS.serviceAccount, serviceAccount('held', 'team', ['example.com/hold']));
    store.create(KINDS.secret, secret('held-token', 'team', 'held'));
    await settle();
    const token = tokenOf('team', 'held-token');
    assert.equal(authenticate(token)?.user, 'system:serviceaccount:team:held');
    store.delete(KINDS.serviceAccount, 'team', 'held');
    assert.ok(store.get(KINDS.serviceAccount, 'team', 'held')?.metadata.deletionTimestamp, 'terminating, kept by its finalizer');
    assert.equal(authenticate(token), undefined);
  });

  it('a token of a ServiceAccount recreated under the same name (another uid) is refused', () => {
    const token = tokenOf('team', 'robot-token');
    store.delete(KINDS.serviceAccount, 'team', 'robot');
    store.create(KINDS.serviceAccount, serviceAccount('robot', 'team'));
    assert.ok(store.get(KINDS.secret, 'team', 'robot-token'), 'the Secret is still there (the controller has not run)');
    assert.equal(authenticate(token), undefined);
  });

  it('deleting a ServiceAccount deletes its token Secrets only, as kube-controller-manager', async () => {
    store.create(KINDS.serviceAccount, serviceAccount('other', 'team'));
    store.create(KINDS.secret, secret('shared-name', 'team', 'other'));
    // A robot of another namespace, whose token Secret has the name of one in team.
    store.create(KINDS.serviceAccount, serviceAccount('robot', 'other'));
    store.create(KINDS.secret, secret('shared-name', 'other', 'robot'));
    store.create(KINDS.secret, secret('robot-notes', 'team', 'robot', 'Opaque'));
    await settle();
    store.delete(KINDS.serviceAccount, 'team', 'robot');
    await settle();
    assert.deepEqual(deletions, ['team/robot-token by system:kube-controller-manager']);
    assert.deepEqual(controller.errors(), [], 'no reconcile failed');
    assert.deepEqual(
      store.list(KINDS.secret, {}).items.map((s) => `${s.metadata.namespace}/${s.metadata.name}`).sort(),
      ['other/shared-name', 'team/robot-notes', 'team/shared-name'],
    );
  });

  it('a ServiceAccount deleted and recreated at once: its old token Secret (the old uid) is deleted all the same', async () => {
    store.delete(KINDS.serviceAccount, 'team', 'robot');
    store.create(KINDS.serviceAccount, serviceAccount('robot', 'team'));
    await settle();
    assert.deepEqual(deletions, ['team/robot-token by system:kube-controller-manager']);
    assert.equal(store.get(KINDS.secret, 'team', 'robot-token'), undefined);
  });

  it('a token Secret naming a missing ServiceAccount is deleted as kube-controller-manager', async () => {
    store.create(KINDS.secret, secret('ghost-token', 'team', 'ghost'));
    await settle();
    assert.deepEqual(deletions, ['team/ghost-token by system:kube-controller-manager']);
    assert.equal(store.get(KINDS.secret, 'team', 'ghost-token'), undefined);
  });
});
