/** RBAC rule matching and subject resolution (pure), as kube-apiserver's RBAC authorizer evaluates them. */
import assert from 'node:assert/strict';
import { ObjectStore } from '../../../../emulator/api/store';
import { ManualClock } from '../../../../emulator/clock';
import { createHarvesterRegistry, KINDS } from '../../../../emulator/kinds';
import { authorize, forbiddenStatus, rbacKinds, RequestAttributes, ruleAllows } from '../../../../emulator/rbac/authorizer';

const SA = { user: 'system:serviceaccount:team:ccm', groups: ['system:serviceaccounts', 'system:serviceaccounts:team', 'system:authenticated'] };
const req = (extra: Partial<RequestAttributes>): RequestAttributes => ({ ...SA, verb: 'get', apiGroup: '', resource: 'pods', namespace: 'team', ...extra });

describe('emulator RBAC: rule matching', () => {
  it('verbs, groups and resources match exactly or by star', () => {
    assert.equal(ruleAllows(req({}), { verbs: ['get'], apiGroups: [''], resources: ['pods'] }), true);
    assert.equal(ruleAllows(req({ verb: 'list' }), { verbs: ['get'], apiGroups: [''], resources: ['pods'] }), false);
    assert.equal(ruleAllows(req({ verb: 'deletecollection' }), { verbs: ['*'], apiGroups: ['*'], resources: ['*'] }), true);
    assert.equal(ruleAllows(req({ apiGroup: 'apps' }), { verbs: ['get'], apiGroups: [''], resources: ['pods'] }), false);
  });

  it('subresources need their own entry or */sub; the parent resource does not cover them', () => {
    const status = req({ verb: 'update', resource: 'persistentvolumeclaims', subresource: 'status' });
    assert.equal(ruleAllows(status, { verbs: ['*'], apiGroups: [''], resources: ['persistentvolumeclaims'] }), false);
    assert.equal(ruleAllows(status, { verbs: ['*'], apiGroups: [''], resources: ['persistentvolumeclaims/status'] }), true);
    assert.equal(ruleAllows(status, { verbs: ['*'], apiGroups: [''], resources: ['*/status'] }), true);
    assert.equal(ruleAllows(status, { verbs: ['*'], apiGroups: [''], resources: ['*/scale'] }), false);
  });

  it('resourceNames restrict to named objects (a list has no name)', () => {
    const rule = { verbs: ['get', 'list'], apiGroups: ['harvesterhci.io'], resources: ['settings'], resourceNames: ['csi-driver-config'] };
    assert.equal(ruleAllows(req({ apiGroup: 'harvesterhci.io', resource: 'settings', name: 'csi-driver-config', namespace: undefined }), rule), true);
    assert.equal(ruleAllows(req({ apiGroup: 'harvesterhci.io', resource: 'settings', name: 'server-version', namespace: undefined }), rule), false);
    assert.equal(ruleAllows(req({ verb: 'list', apiGroup: 'harvesterhci.io', resource: 'settings', namespace: undefined }), rule), false);
  });

  it('nonResourceURLs match exactly or by a trailing star', () => {
    const rule = { verbs: ['get'], nonResourceURLs: ['/apis/*', '/version'] };
    const path = (p: string): RequestAttributes => ({ ...SA, verb: 'get', path: p });
    assert.equal(ruleAllows(path('/apis/apps/v1'), rule), true);
    assert.equal(ruleAllows(path('/version'), rule), true);
    assert.equal(ruleAllows(path('/version/x'), rule), false);
    assert.equal(ruleAllows(path('/metrics'), rule), false);
  });
});

describe('emulator RBAC: bindings and the 403', () => {
  const store = new ObjectStore(createHarvesterRegistry(), new ManualClock());
  const kinds = rbacKinds(store.registry)!;
  store.create(KINDS.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });
  store.create(KINDS.role, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'pods', namespace: 'team' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] });
  store.create(KINDS.roleBinding, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'ccm-pods', namespace: 'team' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pods' },
    // No namespace: a ServiceAccount subject of a RoleBinding defaults to the binding's namespace.
    subjects: [{ kind: 'ServiceAccount', name: 'ccm' }],
  });

  it('a RoleBinding grants in its namespace only, and says which binding allowed', () => {
    assert.deepEqual(authorize(store, kinds, req({ name: 'p' })), { allowed: true, reason: 'RBAC: allowed by RoleBinding "ccm-pods/team" of Role "pods" to ServiceAccount "ccm/team"' });
    assert.equal(authorize(store, kinds, req({ namespace: 'other' })).allowed, false);
    assert.equal(authorize(store, kinds, { ...req({}), user: 'system:serviceaccount:other:ccm' }).allowed, false);
  });

  it('the 403 reads like kube-apiserver (namespaced, cluster scope, non-resource)', () => {
    assert.equal(forbiddenStatus(req({ name: 'p', verb: 'delete' }), '').message, 'pods "p" is forbidden: User "system:serviceaccount:team:ccm" cannot delete resource "pods" in API group "" in the namespace "team"');
    const cluster = forbiddenStatus(req({ verb: 'list', apiGroup: 'storage.k8s.io', resource: 'storageclasses', namespace: undefined }), '');
    assert.equal(cluster.message, 'storageclasses.storage.k8s.io is forbidden: User "system:serviceaccount:team:ccm" cannot list resource "storageclasses" in API group "storage.k8s.io" at the cluster scope');
    assert.deepEqual(cluster.status.details, { group: 'storage.k8s.io', kind: 'storageclasses' });
    assert.equal(forbiddenStatus({ ...SA, verb: 'get', path: '/metrics' }, '').message, 'forbidden: User "system:serviceaccount:team:ccm" cannot get path "/metrics"');
  });
});
