/**
 * The RBAC authorizer, called directly: rule matching as k8s.io/kubernetes pkg/apis/rbac/v1/evaluation_helpers.go
 * has it (ResourceMatches with `*`/sub, ResourceNameMatches comparing even the empty name), subjects as
 * plugin/pkg/auth/authorizer/rbac/rbac.go appliesTo, the denial reason aggregating missing roles as apimachinery's
 * utilerrors aggregate does (one message bare, several in brackets, each once), RulesFor, and the 403 of
 * apiserver's responsewriters.Forbidden for a non-resource path.
 */
import assert from 'node:assert/strict';
import { ObjectStore } from '../../emulator/api/store';
import { ManualClock } from '../../emulator/clock';
import { createHarvesterRegistry, KINDS } from '../../emulator/kinds';
import type { KubeObject } from '../../emulator/api/types';
import { authorize, forbiddenStatus, rbacKinds, RequestAttributes, ruleAllows, rulesFor } from '../../emulator/rbac/authorizer';

const BOB = { user: 'bob', groups: ['devs', 'system:authenticated'] };
const req = (extra: Partial<RequestAttributes>): RequestAttributes => ({ ...BOB, verb: 'update', apiGroup: '', resource: 'persistentvolumeclaims', namespace: 'team', name: 'data', ...extra });
const ALL = { verbs: ['*'], apiGroups: ['*'] };

function newStore(): { store: ObjectStore; kinds: NonNullable<ReturnType<typeof rbacKinds>> } {
  const store = new ObjectStore(createHarvesterRegistry(), new ManualClock());
  store.create(KINDS.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
  return { store, kinds: rbacKinds(store.registry)! };
}

function clusterBinding(name: string, role: string, subject: Record<string, string>, roleKind = 'ClusterRole'): KubeObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: role },
    subjects: [subject],
  };
}

function roleBinding(name: string, namespace: string, roleKind: string, role: string, subject: Record<string, string>): KubeObject {
  return { ...clusterBinding(name, role, subject, roleKind), kind: 'RoleBinding', metadata: { name, namespace } };
}

function clusterRole(name: string, rules: unknown[]): KubeObject {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules };
}

describe('emulator RBAC authorizer: `*/subresource` rules', () => {
  const status = req({ subresource: 'status' });

  it('`*/status` allows the status subresource of any resource', () => {
    assert.equal(ruleAllows(status, { ...ALL, resources: ['*/status'] }), true);
    assert.equal(ruleAllows(req({ resource: 'pods', subresource: 'status' }), { ...ALL, resources: ['*/status'] }), true);
  });

  it('a rule of the same length ending in the subresource, but not starting `*/`, does not', () => {
    assert.equal(ruleAllows(status, { ...ALL, resources: ['x/status'] }), false);
    assert.equal(ruleAllows(status, { ...ALL, resources: ['status*/'] }), false);
  });

  it('`*/status` allows neither another subresource nor the resource itself', () => {
    assert.equal(ruleAllows(req({ subresource: 'scale' }), { ...ALL, resources: ['*/status'] }), false);
    assert.equal(ruleAllows(req({}), { ...ALL, resources: ['*/status'] }), false);
  });

  it('a later entry of the list can match after earlier ones do not', () => {
    assert.equal(ruleAllows(status, { ...ALL, resources: ['pods', 'x/status', '*/status'] }), true);
  });
});

describe('emulator RBAC authorizer: resourceNames', () => {
  it('an empty resource name in the rule matches a request without a name (a list), as upstream compares them', () => {
    const rule = { verbs: ['list'], apiGroups: [''], resources: ['configmaps'], resourceNames: [''] };
    assert.equal(ruleAllows(req({ verb: 'list', resource: 'configmaps', name: undefined }), rule), true);
    assert.equal(ruleAllows(req({ verb: 'list', resource: 'configmaps', name: 'settings' }), rule), false);
  });

  it('an empty resourceNames list restricts nothing', () => {
    assert.equal(ruleAllows(req({ verb: 'list', resource: 'configmaps', name: undefined }), { verbs: ['list'], apiGroups: [''], resources: ['configmaps'], resourceNames: [] }), true);
  });
});

describe('emulator RBAC authorizer: subjects', () => {
  const { store, kinds } = newStore();
  store.create(KINDS.clusterRole, clusterRole('pvc-reader', [{ verbs: ['get'], apiGroups: [''], resources: ['persistentvolumeclaims'] }]));
  store.create(KINDS.clusterRoleBinding, clusterBinding('alice-pvc', 'pvc-reader', { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }));
  store.create(KINDS.clusterRoleBinding, clusterBinding('ops-pvc', 'pvc-reader', { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'ops' }));
  const get = (who: { user: string; groups: string[] }) => authorize(store, kinds, { ...who, verb: 'get', apiGroup: '', resource: 'persistentvolumeclaims', namespace: 'team', name: 'data' });

  it('a User subject applies to that user, by name', () => {
    assert.deepEqual(get({ user: 'alice', groups: ['system:authenticated'] }), { allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "alice-pvc" of ClusterRole "pvc-reader" to User "alice"' });
  });

  it('a User subject applies to no other user', () => {
    assert.deepEqual(get({ user: 'bob', groups: ['system:authenticated'] }), { allowed: false, reason: '' });
  });

  it('a User subject is not matched against the groups', () => {
    assert.equal(get({ user: 'bob', groups: ['alice'] }).allowed, false);
  });

  it('a subject of another kind applies to nobody, even named like the user (kube-apiserver would refuse it; the store keeps it)', () => {
    const { store: s, kinds: k } = newStore();
    s.create(KINDS.clusterRole, clusterRole('pvc-reader', [{ verbs: ['get'], apiGroups: [''], resources: ['persistentvolumeclaims'] }]));
    s.create(KINDS.clusterRoleBinding, clusterBinding('typo', 'pvc-reader', { kind: 'user', name: 'bob' }));
    assert.deepEqual(authorize(s, k, req({ verb: 'get' })), { allowed: false, reason: '' });
  });

  it('a Group subject applies to members of that group', () => {
    assert.deepEqual(get({ user: 'bob', groups: ['ops'] }), { allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "ops-pvc" of ClusterRole "pvc-reader" to Group "ops"' });
  });
});

describe('emulator RBAC authorizer: missing roles in the reason', () => {
  it('a RoleBinding to a missing Role names the role', () => {
    const { store, kinds } = newStore();
    store.create(KINDS.roleBinding, roleBinding('bob-gone', 'team', 'Role', 'gone', { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'bob' }));
    assert.deepEqual(authorize(store, kinds, req({})), { allowed: false, reason: 'RBAC: role.rbac.authorization.k8s.io "gone" not found' });
  });

  it('a ClusterRoleBinding to a missing ClusterRole names the cluster role', () => {
    const { store, kinds } = newStore();
    store.create(KINDS.clusterRoleBinding, clusterBinding('bob-gone', 'gone', { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'bob' }));
    assert.deepEqual(authorize(store, kinds, req({})), { allowed: false, reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found' });
  });

  it('several missing roles: in brackets, cluster-wide first, each message once', () => {
    const { store, kinds } = newStore();
    store.create(KINDS.clusterRoleBinding, clusterBinding('a', 'gone', { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'bob' }));
    store.create(KINDS.clusterRoleBinding, clusterBinding('b', 'gone', { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'devs' }));
    store.create(KINDS.roleBinding, roleBinding('c', 'team', 'Role', 'vanished', { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'bob' }));
    assert.deepEqual(authorize(store, kinds, req({})), {
      allowed: false,
      reason: 'RBAC: [clusterrole.rbac.authorization.k8s.io "gone" not found, role.rbac.authorization.k8s.io "vanished" not found]',
    });
    assert.equal(rulesFor(store, kinds, BOB, 'team').evaluationError, '[clusterrole.rbac.authorization.k8s.io "gone" not found, role.rbac.authorization.k8s.io "vanished" not found]');
  });

  it('two bindings to the same missing role: one message, no brackets', () => {
    const { store, kinds } = newStore();
    store.create(KINDS.clusterRoleBinding, clusterBinding('a', 'gone', { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'bob' }));
    store.create(KINDS.clusterRoleBinding, clusterBinding('b', 'gone', { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'devs' }));
    assert.equal(authorize(store, kinds, req({})).reason, 'RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found');
  });
});

describe('emulator RBAC authorizer: RulesFor', () => {
  it('splits rules into resource rules and non-resource rules, with their verbs', () => {
    const { store, kinds } = newStore();
    store.create(KINDS.clusterRole, clusterRole('mixed', [
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['settings'] },
      { verbs: ['get'], nonResourceURLs: ['/logs/*'] },
    ]));
    store.create(KINDS.clusterRoleBinding, clusterBinding('bob-mixed', 'mixed', { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'bob' }));
    assert.deepEqual(rulesFor(store, kinds, BOB, 'team'), {
      resourceRules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['settings'] }],
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/logs/*'] }],
    });
  });

  it('a rule stored without verbs is listed with none', () => {
    const { store, kinds } = newStore();
    store.create(KINDS.clusterRole, clusterRole('verbless', [{ apiGroups: [''], resources: ['configmaps'] }, { nonResourceURLs: ['/healthz'] }]));
    store.create(KINDS.clusterRoleBinding, clusterBinding('bob-verbless', 'verbless', { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'bob' }));
    assert.deepEqual(rulesFor(store, kinds, BOB, 'team'), {
      resourceRules: [{ verbs: [], apiGroups: [''], resources: ['configmaps'] }],
      nonResourceRules: [{ verbs: [], nonResourceURLs: ['/healthz'] }],
    });
  });
});

describe('emulator RBAC authorizer: the 403 for a non-resource path', () => {
  it('reads `forbidden: User … cannot <verb> path …`, with the reason after a colon and empty details', () => {
    const err = forbiddenStatus({ ...BOB, verb: 'head', path: '/healthz' }, 'RBAC: clusterrole.rbac.authorization.k8s.io "x" not found');
    assert.equal(err.code, 403);
    assert.equal(err.message, 'forbidden: User "bob" cannot head path "/healthz": RBAC: clusterrole.rbac.authorization.k8s.io "x" not found');
    assert.deepEqual(err.status.details, {});
  });
});
