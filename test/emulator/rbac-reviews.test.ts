/**
 * Access reviews and RBAC-governed requests over HTTP: SubjectAccessReview answered for the user and groups of
 * its spec (kube-apiserver pkg/registry/authorization/subjectaccessreview), resource and non-resource attributes
 * matched as the RBAC authorizer matches them (an absent verb, resource or path is the empty string, which
 * only an empty entry or `*` matches), SelfSubjectRulesReview's 400 without a namespace, the 403 of a
 * non-resource path, and repeated Impersonate-Group headers read as separate groups.
 */
import assert from 'node:assert/strict';
import { KINDS } from '../../emulator/kinds';
import type { KubeObject } from '../../emulator/api/types';
import { startTestEmulator, TestEmulator } from '../support/emulator-harness';
import { rawRequest } from './raw-http';

const JSON_BODY = { 'Content-Type': 'application/json' };

function clusterRole(name: string, rules: unknown[]): KubeObject {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules };
}

function bindUser(name: string, role: string, user: string): KubeObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: user }],
  };
}

describe('emulator RBAC: access reviews and RBAC-governed requests over HTTP', function () {
  this.timeout(60_000);
  let t: TestEmulator;
  const review = (spec: Record<string, unknown>, plural = 'subjectaccessreviews', kind = 'SubjectAccessReview') =>
    rawRequest(t, 'POST', `/apis/authorization.k8s.io/v1/${plural}`, JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind, spec }), JSON_BODY);

  before(async () => {
    t = await startTestEmulator({ controllers: false });
    const { store } = t.emulator;
    store.create(KINDS.clusterRole, clusterRole('logs-reader', [{ verbs: ['get'], nonResourceURLs: ['/logs/*'] }, { verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]));
    store.create(KINDS.clusterRoleBinding, bindUser('alice-logs', 'logs-reader', 'alice'));
    store.create(KINDS.clusterRole, clusterRole('settings-lister', [{ verbs: ['list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['settings'] }]));
    store.create(KINDS.clusterRoleBinding, bindUser('lister-settings', 'settings-lister', 'lister'));
    // Empty entries: what an attribute left out of a review is compared with.
    store.create(KINDS.clusterRole, clusterRole('empty-entries', [{ verbs: [''], apiGroups: [''], resources: [''] }, { verbs: [''], nonResourceURLs: [''] }]));
    store.create(KINDS.clusterRoleBinding, bindUser('erin-empty', 'empty-entries', 'erin'));
    store.create(KINDS.clusterRoleBinding, {
      ...bindUser('g2-logs', 'logs-reader', 'nobody'),
      subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'g2' }],
    });
  });
  after(() => t?.stop());

  it('a SubjectAccessReview for a user with a binding: allowed, with the reason, the spec echoed', async () => {
    const spec = { user: 'alice', resourceAttributes: { verb: 'get', resource: 'configmaps', namespace: 'default', name: 'settings' } };
    const r = await review(spec);
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.kind, 'SubjectAccessReview');
    assert.deepEqual(r.json.spec, spec);
    assert.deepEqual(r.json.status, { allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "alice-logs" of ClusterRole "logs-reader" to User "alice"' });
  });

  it('a SubjectAccessReview for a user without rights is not allowed (the caller being the admin changes nothing)', async () => {
    const r = await review({ user: 'mallory', resourceAttributes: { verb: 'get', resource: 'configmaps', namespace: 'default' } });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json.status, { allowed: false });
  });

  it('a SubjectAccessReview counts the groups of its spec', async () => {
    const r = await review({ user: 'nobody-else', groups: ['g2'], nonResourceAttributes: { verb: 'get', path: '/logs/today' } });
    assert.equal(r.json.status.allowed, true, r.text);
  });

  it('non-resource attributes: verb and path are matched', async () => {
    const r = await review({ user: 'alice', nonResourceAttributes: { verb: 'get', path: '/logs/today' } });
    assert.deepEqual(r.json.status, { allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "alice-logs" of ClusterRole "logs-reader" to User "alice"' });
    const other = await review({ user: 'alice', nonResourceAttributes: { verb: 'get', path: '/metrics' } });
    assert.equal(other.json.status.allowed, false);
  });

  it('resource attributes without verb or resource are the empty strings a rule can name', async () => {
    const r = await review({ user: 'erin', resourceAttributes: {} });
    assert.equal(r.json.status.allowed, true, r.text);
    const named = await review({ user: 'erin', resourceAttributes: { verb: 'get' } });
    assert.equal(named.json.status.allowed, false);
  });

  it('non-resource attributes without verb or path are the empty strings a rule can name', async () => {
    const r = await review({ user: 'erin', nonResourceAttributes: {} });
    assert.equal(r.json.status.allowed, true, r.text);
    const withPath = await review({ user: 'erin', nonResourceAttributes: { path: '/x' } });
    assert.equal(withPath.json.status.allowed, false);
  });

  it('a review with neither resource nor non-resource attributes is refused', async () => {
    const r = await review({ user: 'alice' });
    assert.equal(r.status, 400, r.text);
    assert.equal(r.json.message, 'exactly one of nonResourceAttributes or resourceAttributes must be specified');
  });

  it('a SelfSubjectRulesReview whose spec has no namespace at all is 400', async () => {
    const r = await review({}, 'selfsubjectrulesreviews', 'SelfSubjectRulesReview');
    assert.equal(r.status, 400, r.text);
    assert.equal(r.json.message, 'no namespace on request');
  });

  it('an RBAC-governed user on a path no rule grants gets the non-resource 403', async () => {
    const r = await rawRequest(t, 'GET', '/logs-elsewhere', undefined, { 'Impersonate-User': 'alice' });
    assert.equal(r.status, 403, r.text);
    assert.equal(r.json.message, 'forbidden: User "alice" cannot get path "/logs-elsewhere"');
    assert.deepEqual(r.json.details, {});
  });

  it('a list narrowed by fieldSelector=metadata.name is allowed by a rule naming that object', async () => {
    const list = (query: string) => rawRequest(t, 'GET', `/api/v1/namespaces/default/configmaps${query}`, undefined, { 'Impersonate-User': 'lister' });
    const ok = await list('?fieldSelector=metadata.name%3Dsettings');
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.json.kind, 'ConfigMapList');
    const all = await list('');
    assert.equal(all.status, 403);
    assert.equal(all.json.message, 'configmaps is forbidden: User "lister" cannot list resource "configmaps" in API group "" in the namespace "default"');
    const other = await list('?fieldSelector=metadata.name%3Dother');
    assert.equal(other.json.message, 'configmaps "other" is forbidden: User "lister" cannot list resource "configmaps" in API group "" in the namespace "default"');
  });

  it('repeated Impersonate-Group headers are separate groups', async () => {
    const headers = { 'Content-Type': 'application/json', 'Impersonate-User': 'someone', 'Impersonate-Group': ['g1', 'g2'] } as unknown as Record<string, string>;
    const body = JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { nonResourceAttributes: { verb: 'get', path: '/logs/x' } } });
    const r = await rawRequest(t, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', body, headers);
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.kind, 'SelfSubjectAccessReview');
    assert.deepEqual(r.json.status, { allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "g2-logs" of ClusterRole "logs-reader" to Group "g2"' });
  });
});
