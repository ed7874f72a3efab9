/**
 * The request attributes RBAC sees, as kube-apiserver's RequestInfoFactory derives them
 * (k8s.io/apiserver pkg/endpoints/request/requestinfo.go; cases after the table of its requestinfo_test.go), and
 * impersonation as the WithImpersonation filter checks it and completes the groups (pkg/endpoints/filters/
 * impersonation.go, v1.32): pure calls.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { ObjectStore } from '../../emulator/api/store';
import { parseRoute } from '../../emulator/api/router';
import { StatusError } from '../../emulator/api/errors';
import { ManualClock } from '../../emulator/clock';
import { createHarvesterRegistry, KINDS } from '../../emulator/kinds';
import { rbacKinds } from '../../emulator/rbac/authorizer';
import { attributesOf, impersonate, RbacContext } from '../../emulator/rbac/request';

const WHO = { user: 'bob', groups: ['devs', 'system:authenticated'] };

/** The attributes of `method path` (query `watch` given apart, as the server parses it). */
function attrs(method: string, path: string, watch = false) {
  return attributesOf(WHO, parseRoute(path), method, watch, path);
}

/** verb, namespace, resource, subresource, name of a request, in that order (undefined as ''). */
function summary(method: string, path: string, watch = false): string[] {
  const a = attrs(method, path, watch);
  return [a.verb, a.namespace ?? '', a.resource ?? '', a.subresource ?? '', a.name ?? ''];
}

describe('emulator RBAC: request attributes as RequestInfoFactory derives them', () => {
  it('GET: list on a collection, get on an item, watch when watch reads true', () => {
    assert.deepEqual(summary('GET', '/api/v1/namespaces/team/pods'), ['list', 'team', 'pods', '', '']);
    assert.deepEqual(summary('GET', '/api/v1/namespaces/team/pods/web'), ['get', 'team', 'pods', '', 'web']);
    assert.deepEqual(summary('GET', '/api/v1/pods', true), ['watch', '', 'pods', '', '']);
  });

  it('HEAD is read like GET: get on an item, list on a collection', () => {
    assert.deepEqual(summary('HEAD', '/api/v1/namespaces/team/pods/web'), ['get', 'team', 'pods', '', 'web']);
    assert.deepEqual(summary('HEAD', '/api/v1/pods'), ['list', '', 'pods', '', '']);
  });

  it('POST create, PUT update, PATCH patch', () => {
    assert.equal(attrs('POST', '/api/v1/namespaces/team/pods').verb, 'create');
    assert.equal(attrs('PUT', '/api/v1/namespaces/team/pods/web').verb, 'update');
    assert.equal(attrs('PATCH', '/api/v1/namespaces/team/pods/web').verb, 'patch');
  });

  it('DELETE: delete on an item, deletecollection on a collection', () => {
    assert.deepEqual(summary('DELETE', '/api/v1/namespaces/team/pods/web'), ['delete', 'team', 'pods', '', 'web']);
    assert.deepEqual(summary('DELETE', '/api/v1/nodes'), ['deletecollection', '', 'nodes', '', '']);
    assert.deepEqual(summary('DELETE', '/apis/apps/v1/namespaces/team/deployments'), ['deletecollection', 'team', 'deployments', '', '']);
  });

  it('any other method on a resource has the empty verb (only a `*` rule matches it)', () => {
    assert.equal(attrs('OPTIONS', '/api/v1/namespaces/team/pods').verb, '');
    assert.equal(attrs('TRACE', '/api/v1/namespaces/team/pods/web').verb, '');
  });

  it('the API group and subresource come from the path', () => {
    const a = attrs('PUT', '/apis/apps/v1/namespaces/team/deployments/web/scale');
    assert.deepEqual(
      { verb: a.verb, apiGroup: a.apiGroup, resource: a.resource, subresource: a.subresource, namespace: a.namespace, name: a.name },
      { verb: 'update', apiGroup: 'apps', resource: 'deployments', subresource: 'scale', namespace: 'team', name: 'web' },
    );
    assert.deepEqual(a.groups, WHO.groups);
    assert.equal(a.user, 'bob');
  });

  it('a Namespace is in itself (get, status, finalize), except a PATCH of the Namespace (server-side apply creating it)', () => {
    assert.deepEqual(summary('GET', '/api/v1/namespaces/other'), ['get', 'other', 'namespaces', '', 'other']);
    assert.deepEqual(summary('PUT', '/api/v1/namespaces/other/finalize'), ['update', 'other', 'namespaces', 'finalize', 'other']);
    assert.deepEqual(summary('PUT', '/api/v1/namespaces/other/status'), ['update', 'other', 'namespaces', 'status', 'other']);
    assert.deepEqual(summary('PATCH', '/api/v1/namespaces/new-namespace'), ['patch', '', 'namespaces', '', 'new-namespace']);
    assert.deepEqual(summary('PATCH', '/api/v1/namespaces/other/status'), ['patch', 'other', 'namespaces', 'status', 'other']);
  });

  it('a Namespace-named object of another group is not a Namespace', () => {
    assert.deepEqual(summary('GET', '/apis/example.io/v1/namespaces'), ['list', '', 'namespaces', '', '']);
    assert.equal(attrs('GET', '/apis/example.io/v1/namespaces/x').namespace, undefined);
  });

  describe('a list or watch narrowed by fieldSelector=metadata.name has that name', () => {
    const listed = (query: string, method = 'GET', watch = false) => {
      const path = '/api/v1/namespaces/team/configmaps';
      const a = attributesOf(WHO, parseRoute(path), method, watch, path, new URLSearchParams(query));
      return [a.verb, a.name ?? ''];
    };
    it('a metadata.name requirement names the list', () => assert.deepEqual(listed('fieldSelector=metadata.name%3Dsettings'), ['list', 'settings']));
    it('and the watch, with == and other terms beside it', () => assert.deepEqual(listed('watch=true&fieldSelector=spec.x%3Dy,metadata.name%3D%3Dsettings', 'GET', true), ['watch', 'settings']));
    it('not another field, nor a negation', () => {
      assert.deepEqual(listed('fieldSelector=foo%3Dbar'), ['list', '']);
      assert.deepEqual(listed('fieldSelector=metadata.name!%3Dsettings'), ['list', '']);
    });
    it('not a selector that does not parse', () => assert.deepEqual(listed('fieldSelector=metadata.name%3Dname1,foo'), ['list', '']));
    it('not a name that is no valid path segment', () => {
      assert.deepEqual(listed('fieldSelector=metadata.name%3D..'), ['list', '']);
      assert.deepEqual(listed('fieldSelector=metadata.name%3D.'), ['list', '']);
      assert.deepEqual(listed('fieldSelector=metadata.name%3Da/b'), ['list', '']);
      assert.deepEqual(listed('fieldSelector=metadata.name%3Da%25b'), ['list', '']);
    });
    it('not a deletecollection', () => assert.deepEqual(listed('fieldSelector=metadata.name%3Dsettings', 'DELETE'), ['deletecollection', '']));
    it('an item keeps the name of its path', () => {
      const path = '/api/v1/namespaces/team/configmaps/web';
      assert.equal(attributesOf(WHO, parseRoute(path), 'GET', false, path, new URLSearchParams('fieldSelector=metadata.name%3Dother')).name, 'web');
    });
  });

  it('a non-resource request: its path, and its method in lower case as the verb (HEAD is head)', () => {
    const get = attrs('GET', '/version');
    assert.deepEqual(get, { user: 'bob', groups: WHO.groups, verb: 'get', path: '/version' });
    assert.equal(attrs('HEAD', '/healthz').verb, 'head');
    assert.equal(attrs('POST', '/metrics').verb, 'post');
  });
});

/** A fake request carrying only headers, as Node hands them (one entry per header line in headersDistinct). */
function request(headers: Record<string, string[]>): IncomingMessage {
  return { headersDistinct: headers, headers: {} } as unknown as IncomingMessage;
}

function refusal(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  assert.fail('expected a refusal');
}

describe('emulator RBAC: impersonation headers', () => {
  const store = new ObjectStore(createHarvesterRegistry(), new ManualClock());
  const rbac: RbacContext = { store, kinds: rbacKinds(store.registry)! };
  const ADMIN = { user: 'admin', anonymous: false };
  const DEPLOYER = { user: 'deployer', anonymous: false, groups: ['system:authenticated'] };
  store.create(KINDS.clusterRole, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'impersonate-some' },
    rules: [
      { apiGroups: [''], resources: ['users'], verbs: ['impersonate'], resourceNames: ['alice'] },
      { apiGroups: [''], resources: ['groups'], verbs: ['impersonate'], resourceNames: ['devs'] },
      { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['impersonate'], resourceNames: ['robot'] },
    ],
  });
  store.create(KINDS.clusterRoleBinding, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'deployer-impersonates' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'impersonate-some' },
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'deployer' }],
  });

  it('without impersonation headers the caller stays who it is', () => {
    assert.equal(impersonate(request({}), DEPLOYER, rbac), DEPLOYER);
  });

  it('groups without a user are refused', () => {
    const err = refusal(() => impersonate(request({ 'impersonate-group': ['devs'] }), ADMIN, rbac));
    assert.equal(err.code, 400);
    assert.equal(err.message, 'requested impersonation of groups without impersonating a user');
  });

  it('an empty Impersonate-User is no user: alone it changes nothing, with groups it is refused', () => {
    assert.equal(impersonate(request({ 'impersonate-user': [''] }), DEPLOYER, rbac), DEPLOYER);
    const err = refusal(() => impersonate(request({ 'impersonate-user': [''], 'impersonate-group': ['devs'] }), ADMIN, rbac));
    assert.equal(err.message, 'requested impersonation of groups without impersonating a user');
  });

  it('given groups naming system:authenticated or system:unauthenticated get no system:authenticated added', () => {
    const as = (groups: string[]) => impersonate(request({ 'impersonate-user': ['alice'], 'impersonate-group': groups }), ADMIN, rbac).groups;
    assert.deepEqual(as(['system:authenticated', 'devs']), ['system:authenticated', 'devs']);
    assert.deepEqual(as(['system:unauthenticated']), ['system:unauthenticated']);
  });

  it('system:anonymous is in system:unauthenticated, once', () => {
    const as = (groups: string[]) => impersonate(request({ 'impersonate-user': ['system:anonymous'], 'impersonate-group': groups }), ADMIN, rbac).groups;
    assert.deepEqual(impersonate(request({ 'impersonate-user': ['system:anonymous'] }), ADMIN, rbac).groups, ['system:unauthenticated']);
    assert.deepEqual(as(['devs']), ['devs', 'system:unauthenticated']);
    assert.deepEqual(as(['system:unauthenticated', 'devs']), ['system:unauthenticated', 'devs']);
  });

  it('a user without groups is in system:authenticated only', () => {
    assert.deepEqual(impersonate(request({ 'impersonate-user': ['alice'] }), ADMIN, rbac), { user: 'alice', anonymous: false, groups: ['system:authenticated'] });
  });

  it('a service account gets its fixed groups; given groups replace them', () => {
    assert.deepEqual(impersonate(request({ 'impersonate-user': ['system:serviceaccount:team:robot'] }), ADMIN, rbac), {
      user: 'system:serviceaccount:team:robot',
      anonymous: false,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:team', 'system:authenticated'],
    });
    const withGroups = impersonate(request({ 'impersonate-user': ['system:serviceaccount:team:robot'], 'impersonate-group': ['devs', 'ops'] }), ADMIN, rbac);
    assert.deepEqual(withGroups.groups, ['devs', 'ops', 'system:authenticated']);
  });

  it('an RBAC-governed caller may impersonate the user, group and service account its rules name', () => {
    assert.deepEqual(impersonate(request({ 'impersonate-user': ['alice'], 'impersonate-group': ['devs'] }), DEPLOYER, rbac), {
      user: 'alice',
      anonymous: false,
      groups: ['devs', 'system:authenticated'],
    });
    assert.equal(impersonate(request({ 'impersonate-user': ['system:serviceaccount:team:robot'] }), DEPLOYER, rbac).user, 'system:serviceaccount:team:robot');
  });

  it('impersonating another user is 403 on users, cluster-scoped', () => {
    const err = refusal(() => impersonate(request({ 'impersonate-user': ['carol'] }), DEPLOYER, rbac));
    assert.equal(err.code, 403);
    assert.equal(err.message, 'users "carol" is forbidden: User "deployer" cannot impersonate resource "users" in API group "" at the cluster scope');
  });

  it('impersonating another service account is 403 on serviceaccounts in its namespace', () => {
    const err = refusal(() => impersonate(request({ 'impersonate-user': ['system:serviceaccount:team:other'] }), DEPLOYER, rbac));
    assert.equal(err.message, 'serviceaccounts "other" is forbidden: User "deployer" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "team"');
  });

  it('each impersonated group is checked: one not allowed is 403 on groups', () => {
    const err = refusal(() => impersonate(request({ 'impersonate-user': ['alice'], 'impersonate-group': ['devs', 'system:masters'] }), DEPLOYER, rbac));
    assert.equal(err.message, 'groups "system:masters" is forbidden: User "deployer" cannot impersonate resource "groups" in API group "" at the cluster scope');
  });
});
