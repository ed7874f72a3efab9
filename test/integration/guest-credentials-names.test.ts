/**
 * GuestClusterCredentials' object names on a cluster, through the provider object (`harvester-iac/provider`'s
 * `guestClusterCredentials`): the token Secret `SafeConcatName(serviceAccount, "token")` and both bindings
 * `SafeConcatName(namespace, serviceAccount)`, as Harvester's kubeconfig generator names them
 * (docs/design/harvester-naming.md), for joined names of 63, 64 and 65 characters; and an import of what the
 * generator made under the hashed names finds it. The expected names are literal (upstream's table, and values
 * worked out once by the rule), never recomputed here.
 */
import assert from 'node:assert/strict';
import { guestClusterCredentials } from '../../provider';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { startTestEmulator, type TestEmulator } from '../support/emulator-harness';
import { acceptanceMode } from '../support/target';

type Raw = Record<string, unknown>;
const a = (n: number) => 'a'.repeat(n);
const b = (n: number) => 'b'.repeat(n);
const LONG_NAMESPACE = a(32);

describe('GuestClusterCredentials names on the cluster: wrangler SafeConcatName at 63, 64 and 65 characters', function () {
  this.timeout(60_000);
  let t: TestEmulator;
  let admin: HarvesterClient;
  const args = (namespace: string, serviceAccountName: string): Raw => ({
    kubeconfig: t.emulator.kubeconfig,
    clusterName: 'names',
    namespace,
    serviceAccountName,
    timeouts: { create: '10s', update: '10s', delete: '10s' },
  });

  before(async function () {
    if (acceptanceMode()) this.skip();
    t = await startTestEmulator();
    admin = await HarvesterClient.connect({ kubeconfig: t.emulator.kubeconfig });
    await admin.namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: LONG_NAMESPACE } });
  });
  after(async () => t?.stop());

  const cases: { what: string; namespace: string; serviceAccount: string; tokenSecret: string; binding: string }[] = [
    { what: 'token Secret joined to 63 characters: kept (bindings to 65: hashed)', namespace: 'default', serviceAccount: b(57), tokenSecret: `${b(57)}-token`, binding: `default-${b(49)}-14cdb` },
    { what: 'token Secret joined to 64 characters: hashed', namespace: 'default', serviceAccount: b(58), tokenSecret: `${b(57)}-28800`, binding: `default-${b(49)}-416b2` },
    { what: 'token Secret joined to 65 characters: hashed', namespace: 'default', serviceAccount: b(59), tokenSecret: `${b(57)}-e3cb7`, binding: `default-${b(49)}-b022c` },
    { what: 'bindings joined to 64 characters: hashed', namespace: LONG_NAMESPACE, serviceAccount: a(31), tokenSecret: `${a(31)}-token`, binding: `${a(32)}-${a(24)}-0f23c` },
    { what: 'bindings joined to 65 characters: hashed (upstream\'s case)', namespace: LONG_NAMESPACE, serviceAccount: a(32), tokenSecret: `${a(32)}-token`, binding: `${a(32)}-${a(24)}-da5ed` },
  ];

  for (const c of cases) {
    it(`${c.what}: the outputs and the objects carry the names Harvester gives them`, async () => {
      const checked = await guestClusterCredentials.check({}, args(c.namespace, c.serviceAccount));
      assert.deepEqual(checked.failures ?? [], []);
      const { id, outs } = await guestClusterCredentials.create(checked.inputs!);
      const o = outs as Raw;
      assert.deepEqual([o.tokenSecretName, o.roleBindingName, o.clusterRoleBindingName], [c.tokenSecret, c.binding, c.binding]);
      assert.ok(await admin.secrets.get(c.tokenSecret, c.namespace), 'the token Secret under that name');
      assert.ok(await admin.roleBindings.get(c.binding, c.namespace), 'the RoleBinding under that name');
      assert.ok(await admin.clusterRoleBindings.get(c.binding), 'the ClusterRoleBinding under that name');
      await guestClusterCredentials.delete(id, o);
    });
  }

  it('an import finds what Harvester\'s generator made under hashed names (65-character joins)', async () => {
    const [namespace, name, tokenSecret, binding] = [LONG_NAMESPACE, a(32), `${a(32)}-token`, `${a(32)}-${a(24)}-da5ed`];
    const sa = await admin.serviceAccounts.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } });
    const ownerReferences = [{ apiVersion: 'v1', kind: 'ServiceAccount', name, uid: sa.metadata.uid! }];
    const subjects = [{ kind: 'ServiceAccount', namespace, name }];
    const rbac = (kind: string, role: string, ns?: string) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind, metadata: { name: binding, ...(ns ? { namespace: ns } : {}), ownerReferences }, subjects, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role } }) as never;
    await admin.secrets.create({ apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/service-account-token', metadata: { name: tokenSecret, namespace, ownerReferences, annotations: { 'kubernetes.io/service-account.name': name, 'kubernetes.io/service-account.uid': sa.metadata.uid! } } });
    await admin.roleBindings.create(rbac('RoleBinding', 'harvesterhci.io:cloudprovider', namespace));
    await admin.clusterRoleBindings.create(rbac('ClusterRoleBinding', 'harvesterhci.io:csi-driver'));
    const imported = await guestClusterCredentials.read(`${namespace}/${name}`, { kubeconfig: t.emulator.kubeconfig });
    assert.equal(imported.id, `${namespace}/${name}`);
    assert.equal(imported.inputs?.bindCsiDriverRole, true, 'the ClusterRoleBinding under its hashed name is found');
    assert.deepEqual(imported.props?.drift, []);
    await guestClusterCredentials.delete(imported.id!, { ...(imported.props as Raw), kubeconfig: t.emulator.kubeconfig });
    assert.equal(await admin.clusterRoleBindings.get(binding), undefined);
  });
});
