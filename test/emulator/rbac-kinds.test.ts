/**
 * ServiceAccount and the four RBAC kinds, served like the real apiserver's: discovery (scope, short names),
 * kubectl get/apply with the apiserver's own table columns, and the seeded Harvester guest-cluster roles with
 * upstream's rules (harvester/harvester deploy/charts/harvester/templates/rbac.yaml).
 */
import assert from 'node:assert/strict';
import { parse as parseYaml } from 'yaml';
import { KINDS } from '../../emulator/kinds';
import type { KubeObject } from '../../emulator/api/types';
import { startTestEmulator, TestEmulator } from '../support/emulator-harness';

describe('emulator: ServiceAccount and RBAC kinds (kubectl)', function () {
  this.timeout(60_000);
  let t: TestEmulator;

  before(async () => {
    t = await startTestEmulator({ controllers: false });
  });
  after(() => t?.stop());

  it('api-resources lists the kinds with their real scope and short names', async () => {
    const out = await t.kubectlOk(['api-resources', '--api-group=rbac.authorization.k8s.io', '--no-headers']);
    const rows = out.trim().split('\n').map((l) => l.trim().split(/\s+/));
    const byName = new Map(rows.map((r) => [r[0], r]));
    assert.deepEqual(byName.get('clusterroles')?.slice(1), ['rbac.authorization.k8s.io/v1', 'false', 'ClusterRole']);
    assert.deepEqual(byName.get('clusterrolebindings')?.slice(1), ['rbac.authorization.k8s.io/v1', 'false', 'ClusterRoleBinding']);
    assert.deepEqual(byName.get('roles')?.slice(1), ['rbac.authorization.k8s.io/v1', 'true', 'Role']);
    assert.deepEqual(byName.get('rolebindings')?.slice(1), ['rbac.authorization.k8s.io/v1', 'true', 'RoleBinding']);
    const core = await t.kubectlOk(['api-resources', '--api-group=', '--no-headers']);
    assert.match(core, /^serviceaccounts\s+sa\s+v1\s+true\s+ServiceAccount\s*$/m);
  });

  it('seeds harvesterhci.io:cloudprovider and harvesterhci.io:csi-driver with upstream rules', async () => {
    const cp = parseYaml(await t.kubectlOk(['get', 'clusterrole', 'harvesterhci.io:cloudprovider', '-o', 'yaml'])) as KubeObject;
    assert.deepEqual(cp.rules, [
      { apiGroups: ['loadbalancer.harvesterhci.io'], resources: ['loadbalancers'], verbs: ['get', 'list', 'watch', 'update', 'create', 'delete'] },
      {
        apiGroups: ['subresources.kubevirt.io'],
        resources: ['virtualmachines/addvolume', 'virtualmachines/removevolume', 'virtualmachineinstances/addvolume', 'virtualmachineinstances/removevolume', 'virtualmachineinstances/guestosinfo'],
        verbs: ['get', 'update'],
      },
      { apiGroups: ['kubevirt.io'], resources: ['virtualmachines', 'virtualmachineinstances'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['persistentvolumeclaims', 'persistentvolumeclaims/status'], verbs: ['*'] },
    ]);
    const csi = t.emulator.store.get(KINDS.clusterRole, undefined, 'harvesterhci.io:csi-driver')!;
    const rules = csi.rules as Array<Record<string, string[]>>;
    assert.deepEqual(rules.find((r) => r.resources.includes('settings')), {
      apiGroups: ['harvesterhci.io'],
      resources: ['settings'],
      verbs: ['get', 'list'],
      resourceNames: ['csi-online-expand-validation', 'csi-driver-config'],
    });
    assert.deepEqual(rules.at(-1), { apiGroups: ['kubevirt.io'], resources: ['virtualmachines'], verbs: ['patch'] });
    assert.equal(rules.length, 6);
  });

  it('kubectl apply creates a ServiceAccount, Role and RoleBinding; get prints the apiserver columns', async () => {
    const manifest = [
      'apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: ccm\n  namespace: default',
      'apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: lb-reader\n  namespace: default\nrules:\n- apiGroups: [loadbalancer.harvesterhci.io]\n  resources: [loadbalancers]\n  verbs: [get]',
      'apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: ccm-lb\n  namespace: default\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: Role\n  name: lb-reader\nsubjects:\n- kind: ServiceAccount\n  name: ccm\n  namespace: default',
    ].join('\n---\n');
    const out = await t.kubectlOk(['apply', '-f', '-'], { input: manifest });
    assert.match(out, /serviceaccount\/ccm created/);
    assert.match(out, /role\.rbac\.authorization\.k8s\.io\/lb-reader created/);
    assert.match(out, /rolebinding\.rbac\.authorization\.k8s\.io\/ccm-lb created/);
    assert.match(await t.kubectlOk(['get', 'sa', 'ccm']), /^NAME\s+SECRETS\s+AGE\s*\nccm\s+0\s+\S+\s*$/);
    assert.match(await t.kubectlOk(['get', 'rolebinding', 'ccm-lb', '-o', 'wide']), /^ccm-lb\s+Role\/lb-reader\s+\S+\s+default\/ccm\s*$/m);
    assert.match(await t.kubectlOk(['get', 'role', 'lb-reader']), /^NAME\s+CREATED AT\s*\nlb-reader\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\s*$/);
    assert.match(await t.kubectlOk(['get', 'clusterrolebinding', 'system:discovery']), /^system:discovery\s+ClusterRole\/system:discovery\s+\S+\s*$/m);
  });

  it('bindings owned by a ServiceAccount are garbage-collected with it (cluster-scoped dependents too)', async () => {
    const { store } = t.emulator;
    const sa = store.create(KINDS.serviceAccount, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'owner', namespace: 'default' } });
    const ownerReferences = [{ apiVersion: 'v1', kind: 'ServiceAccount', name: 'owner', uid: sa.metadata.uid! }];
    const roleRef = { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'harvesterhci.io:cloudprovider' };
    const subjects = [{ kind: 'ServiceAccount', name: 'owner', namespace: 'default' }];
    store.create(KINDS.roleBinding, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'default-owner', namespace: 'default', ownerReferences }, roleRef, subjects });
    store.create(KINDS.clusterRoleBinding, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'default-owner', ownerReferences }, roleRef, subjects });
    await t.kubectlOk(['delete', 'sa', 'owner']);
    await store.settle();
    assert.equal(store.get(KINDS.roleBinding, 'default', 'default-owner'), undefined);
    assert.equal(store.get(KINDS.clusterRoleBinding, undefined, 'default-owner'), undefined);
  });

  it('a binding refuses a changed roleRef, and a token Secret must name its ServiceAccount, with the apiserver messages', async () => {
    let r = await t.kubectl(['patch', 'rolebinding', 'ccm-lb', '--type', 'merge', '-p', '{"roleRef":{"kind":"ClusterRole","name":"view"}}']);
    assert.equal(
      r.stderr.trim(),
      'The RoleBinding "ccm-lb" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"view"}: cannot change roleRef',
    );
    r = await t.kubectl(['create', '-f', '-'], { input: 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: t\n  namespace: default\ntype: kubernetes.io/service-account-token' });
    assert.equal(r.stderr.trim(), 'The Secret "t" is invalid: metadata.annotations[kubernetes.io/service-account.name]: Required value');
  });

  it('a binding without roleRef is refused as the apiserver does', async () => {
    const r = await t.kubectl(['create', '-f', '-'], {
      input: 'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: broken\nsubjects: []',
    });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /roleRef/);
  });
});
