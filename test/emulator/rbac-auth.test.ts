/**
 * Service-account tokens and RBAC against the emulator, through the real kubectl: the tokens controller fills
 * token Secrets (token, ca.crt, namespace) and deletes orphans; a token authenticates while its Secret and
 * ServiceAccount exist (401 after); RBAC decides with kube-apiserver's exact 403 messages; the admin
 * kubeconfig stays all-powerful; `kubectl auth can-i --as` answers through SelfSubjectAccessReview.
 */
import assert from 'node:assert/strict';
import { KINDS } from '../../emulator/kinds';
import type { KubeObject } from '../../emulator/api/types';
import { eventually, startTestEmulator, TestEmulator } from '../support/emulator-harness';

const SA_USER = 'system:serviceaccount:default:ccm';

function tokenSecret(name: string, sa: string, namespace = 'default'): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/service-account-token',
    metadata: { name, namespace, annotations: { 'kubernetes.io/service-account.name': sa } },
  };
}

function binding(kind: 'RoleBinding' | 'ClusterRoleBinding', name: string, roleKind: string, role: string, subject: Record<string, string>, namespace?: string): KubeObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind,
    metadata: namespace ? { name, namespace } : { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: role },
    subjects: [subject],
  };
}

describe('emulator: service-account tokens and RBAC (kubectl)', function () {
  this.timeout(60_000);
  let t: TestEmulator;
  let token: string;
  const asSa = (args: string[]) => t.kubectl([...args, '--token', token]);

  async function filledToken(name: string, namespace = 'default'): Promise<KubeObject> {
    return eventually(() => {
      const s = t.emulator.store.get(KINDS.secret, namespace, name);
      return s && (s.data as Record<string, string> | undefined)?.token ? s : undefined;
    }, `token Secret ${namespace}/${name} filled`);
  }

  before(async () => {
    t = await startTestEmulator({ controllers: false });
    const { store } = t.emulator;
    store.create(KINDS.serviceAccount, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'ccm', namespace: 'default' } });
    store.create(KINDS.secret, tokenSecret('ccm-token', 'ccm'));
    const secret = await filledToken('ccm-token');
    token = Buffer.from((secret.data as Record<string, string>).token, 'base64').toString('utf8');
  });
  after(() => t?.stop());

  it('the tokens controller fills token, ca.crt (the served CA), namespace and the uid annotation', () => {
    const s = t.emulator.store.get(KINDS.secret, 'default', 'ccm-token')!;
    const data = s.data as Record<string, string>;
    const sa = t.emulator.store.get(KINDS.serviceAccount, 'default', 'ccm')!;
    assert.equal(Buffer.from(data['ca.crt'], 'base64').toString('utf8'), t.emulator.caCert);
    assert.equal(Buffer.from(data.namespace, 'base64').toString('utf8'), 'default');
    assert.equal(s.metadata.annotations?.['kubernetes.io/service-account.uid'], sa.metadata.uid);
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as Record<string, string>;
    assert.equal(claims.sub, SA_USER);
  });

  it('a token Secret naming a missing ServiceAccount is deleted, as kube-controller-manager does', async () => {
    t.emulator.store.create(KINDS.secret, tokenSecret('ghost-token', 'ghost'));
    await eventually(() => !t.emulator.store.get(KINDS.secret, 'default', 'ghost-token'), 'orphan token Secret deleted');
  });

  it('denies with kube-apiserver 403 messages; a RoleBinding grants only in its namespace and only its verbs', async () => {
    let r = await asSa(['get', 'loadbalancers.loadbalancer.harvesterhci.io', '-n', 'default']);
    assert.equal(
      r.stderr.trim(),
      `Error from server (Forbidden): loadbalancers.loadbalancer.harvesterhci.io is forbidden: User "${SA_USER}" cannot list resource "loadbalancers" in API group "loadbalancer.harvesterhci.io" in the namespace "default"`,
    );
    t.emulator.store.create(KINDS.roleBinding, binding('RoleBinding', 'default-ccm', 'ClusterRole', 'harvesterhci.io:cloudprovider', { kind: 'ServiceAccount', name: 'ccm' }, 'default'));
    r = await asSa(['get', 'loadbalancers.loadbalancer.harvesterhci.io', '-n', 'default']);
    assert.equal(r.code, 0, r.stderr);
    r = await asSa(['get', 'loadbalancers.loadbalancer.harvesterhci.io', '-n', 'harvester-public']);
    assert.match(r.stderr, /cannot list resource "loadbalancers" in API group "loadbalancer.harvesterhci.io" in the namespace "harvester-public"$/m);
    r = await asSa(['get', 'secret', 'ccm-token', '-n', 'default']);
    assert.equal(r.stderr.trim(), `Error from server (Forbidden): secrets "ccm-token" is forbidden: User "${SA_USER}" cannot get resource "secrets" in API group "" in the namespace "default"`);
    r = await asSa(['get', 'nodes']);
    assert.match(r.stderr, /nodes is forbidden: User "system:serviceaccount:default:ccm" cannot list resource "nodes" in API group "" at the cluster scope$/m);
    // The role grants no patch on load balancers (kubectl label reads, then patches).
    t.emulator.store.create(KINDS.loadBalancer, {
      apiVersion: 'loadbalancer.harvesterhci.io/v1beta1',
      kind: 'LoadBalancer',
      metadata: { name: 'lb1', namespace: 'default' },
      spec: { ipam: 'dhcp', workloadType: 'vm', listeners: [{ name: 'http', port: 80, protocol: 'TCP', backendPort: 8080 }] },
    });
    r = await asSa(['label', 'loadbalancers.loadbalancer.harvesterhci.io', 'lb1', 'a=b', '-n', 'default']);
    assert.match(r.stderr, /loadbalancers.loadbalancer.harvesterhci.io "lb1" is forbidden: User "[^"]+" cannot patch resource "loadbalancers"/);
  });

  it('resourceNames and subresources: a ClusterRoleBinding to csi-driver allows only the named settings', async () => {
    t.emulator.store.create(KINDS.clusterRoleBinding, binding('ClusterRoleBinding', 'default-ccm', 'ClusterRole', 'harvesterhci.io:csi-driver', { kind: 'ServiceAccount', name: 'ccm', namespace: 'default' }));
    let r = await asSa(['get', 'settings.harvesterhci.io', 'csi-driver-config']);
    assert.match(r.stderr, /NotFound/, 'allowed, then not found');
    r = await asSa(['get', 'settings.harvesterhci.io', 'server-version']);
    assert.match(r.stderr, /settings.harvesterhci.io "server-version" is forbidden: .* cannot get resource "settings" in API group "harvesterhci.io" at the cluster scope$/m);
    const out = await t.kubectl(['auth', 'can-i', 'update', 'persistentvolumeclaims', '--subresource=status', '-n', 'default', '--as', SA_USER]);
    assert.equal(out.stdout.trim(), 'yes', out.stderr);
  });

  it('groups: a binding to system:serviceaccounts:<ns> applies; a binding to a missing role says so in the reason', async () => {
    t.emulator.store.create(KINDS.roleBinding, binding('RoleBinding', 'sa-group-cm', 'Role', 'cm-reader', { kind: 'Group', name: 'system:serviceaccounts:default', apiGroup: 'rbac.authorization.k8s.io' }, 'default'));
    let r = await asSa(['get', 'configmaps', '-n', 'default']);
    assert.match(r.stderr, /in the namespace "default": RBAC: role.rbac.authorization.k8s.io "cm-reader" not found$/m);
    t.emulator.store.create(KINDS.role, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'cm-reader', namespace: 'default' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }] });
    r = await asSa(['get', 'configmaps', '-n', 'default']);
    assert.equal(r.code, 0, r.stderr);
  });

  it('kubectl auth can-i --as a service account answers like the real server; the admin can do anything', async () => {
    const can = (args: string[]) => t.kubectl(['auth', 'can-i', ...args]);
    assert.equal((await can(['create', 'loadbalancers.loadbalancer.harvesterhci.io', '-n', 'default', '--as', SA_USER])).stdout.trim(), 'yes', 'can-i create loadbalancers');
    const no = await can(['create', 'loadbalancers.loadbalancer.harvesterhci.io', '-n', 'kube-system', '--as', SA_USER]);
    assert.equal(no.stdout.trim(), 'no');
    assert.equal(no.code, 1);
    assert.equal((await can(['delete', 'nodes'])).stdout.trim(), 'yes');
    assert.equal((await t.kubectl(['get', 'secrets', '-A'])).code, 0);
  });

  it('a token stops working (401) once its Secret or its ServiceAccount is deleted', async () => {
    const { store } = t.emulator;
    store.create(KINDS.secret, tokenSecret('ccm-token-2', 'ccm'));
    const second = Buffer.from(((await filledToken('ccm-token-2')).data as Record<string, string>).token, 'base64').toString('utf8');
    store.delete(KINDS.secret, 'default', 'ccm-token-2');
    let r = await t.kubectl(['get', 'loadbalancers.loadbalancer.harvesterhci.io', '-n', 'default', '--token', second]);
    assert.match(r.stderr, /error: You must be logged in to the server/);
    store.delete(KINDS.serviceAccount, 'default', 'ccm');
    r = await asSa(['get', 'loadbalancers.loadbalancer.harvesterhci.io', '-n', 'default']);
    assert.match(r.stderr, /error: You must be logged in to the server/);
    await eventually(() => !store.get(KINDS.secret, 'default', 'ccm-token'), 'token Secrets of a deleted ServiceAccount deleted');
  });
});
