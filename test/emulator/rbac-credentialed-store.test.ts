/**
 * The store as a bearer token sees it (what the guest cloud provider writes through), in process: each call is
 * authorized with the verb its HTTP request would have (list and watch on the collection, update, patch and
 * delete on the item), refused with kube-apiserver's 403, and written as the token's user.
 */
import assert from 'node:assert/strict';
import { ObjectStore } from '../../emulator/api/store';
import { StatusError } from '../../emulator/api/errors';
import { ManualClock } from '../../emulator/clock';
import { createHarvesterRegistry, KINDS } from '../../emulator/kinds';
import type { KubeObject, Store } from '../../emulator/api/types';
import { rbacKinds } from '../../emulator/rbac/authorizer';
import { credentialedStore } from '../../emulator/rbac/credentialed-store';
import { serviceAccountUser } from '../../emulator/rbac/service-account-tokens';

const ROBOT = 'system:serviceaccount:team:robot';

function configMap(name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'team' }, data: { a: '1' } };
}

function denial(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof StatusError && err.code === 403) return err.message;
    throw err;
  }
  assert.fail('expected a 403');
}

describe('emulator RBAC: the store seen through a service-account token', () => {
  const store = new ObjectStore(createHarvesterRegistry(), new ManualClock());
  const kinds = rbacKinds(store.registry)!;
  store.create(KINDS.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
  store.create(KINDS.configMap, configMap('settings'));
  /** Writes to config maps as admission sees them: operation and user. */
  const writes: string[] = [];
  store.addAdmissionHook({ name: 'test.record-writers', resources: ['configmaps'], validate: (req) => void writes.push(`${req.operation} by ${req.user}`) });
  const identify = (token: string) => (token === 'robot' ? serviceAccountUser('team', 'robot') : undefined);
  const robot: Store = credentialedStore(store, kinds, identify, 'robot');
  const forbidden = (verb: string, name?: string) =>
    `configmaps${name ? ` "${name}"` : ''} is forbidden: User "${ROBOT}" cannot ${verb} resource "configmaps" in API group "" in the namespace "team"`;

  describe('without a binding', () => {
    it('list is refused as list', () => assert.equal(denial(() => robot.list(KINDS.configMap, { namespace: 'team' })), forbidden('list')));
    it('listShared is refused as list', () => assert.equal(denial(() => robot.listShared(KINDS.configMap, { namespace: 'team' })), forbidden('list')));
    it('update is refused as update of the object', () => assert.equal(denial(() => robot.update(KINDS.configMap, configMap('settings'))), forbidden('update', 'settings')));
    it('patch is refused as patch of the object', () => assert.equal(denial(() => robot.patch(KINDS.configMap, 'team', 'settings', 'merge', { data: { b: '2' } })), forbidden('patch', 'settings')));
    it('delete is refused as delete of the object', () => assert.equal(denial(() => robot.delete(KINDS.configMap, 'team', 'settings')), forbidden('delete', 'settings')));
    it('watch is refused as watch', () => assert.equal(denial(() => robot.watch(KINDS.configMap, { namespace: 'team' }, () => undefined)), forbidden('watch')));
  });

  describe('bound to edit config maps in its namespace', () => {
    before(() => {
      store.create(KINDS.role, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'cm-editor', namespace: 'team' },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'update', 'patch', 'delete'] }],
      });
      store.create(KINDS.roleBinding, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'robot-cm', namespace: 'team' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-editor' },
        subjects: [{ kind: 'ServiceAccount', name: 'robot' }],
      });
      writes.length = 0;
    });

    it('update writes as the token user', () => {
      const current = robot.get(KINDS.configMap, 'team', 'settings')!;
      robot.update(KINDS.configMap, { ...current, data: { a: '2' } });
      assert.deepEqual(writes, [`UPDATE by ${ROBOT}`]);
    });

    it('patch writes as the token user', () => {
      writes.length = 0;
      robot.patch(KINDS.configMap, 'team', 'settings', 'merge', { data: { b: '2' } });
      assert.deepEqual(writes, [`UPDATE by ${ROBOT}`]);
      assert.deepEqual(store.get(KINDS.configMap, 'team', 'settings')!.data, { a: '2', b: '2' });
    });

    it('delete deletes as the token user', () => {
      writes.length = 0;
      robot.delete(KINDS.configMap, 'team', 'settings');
      assert.deepEqual(writes, [`DELETE by ${ROBOT}`]);
      assert.equal(store.get(KINDS.configMap, 'team', 'settings'), undefined);
    });
  });
});
