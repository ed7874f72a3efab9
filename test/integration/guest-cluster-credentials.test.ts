/**
 * GuestClusterCredentials' handlers on the emulator (its tokens controller, token authentication and RBAC):
 * the generated kubeconfig works in the VMs' namespace for what harvesterhci.io:cloudprovider grants, and is
 * refused (403) elsewhere and for kinds the role does not grant; a rotation kills the old token (401); a RoleBinding
 * deleted by hand is drift that up heals; an import adopts what Harvester's generator made (writing nothing) and
 * destroy then removes it; destroy leaves nothing and the token stops working (401).
 */
import assert from 'node:assert/strict';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { isHarvesterError } from '../../provider/client/errors';
import type { KubeObject } from '../../provider/client/objects';
import type { GuestClusterCredentialsOutputs } from '../../provider/resources/guest-cluster-credentials/model';
import { guestCredentialsEmulator } from '../support/guest-credentials-emulator';
import { acceptanceMode } from '../support/target';

type Raw = Record<string, unknown>;
const LB = { apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'LoadBalancer' };

describe('GuestClusterCredentials handlers: what the token may do, rotation, drift, import, destroy', function () {
  this.timeout(60_000);
  const h = guestCredentialsEmulator('default');
  const { creds, args, created } = h;
  const as = (outs: GuestClusterCredentialsOutputs) => HarvesterClient.connect({ kubeconfig: outs.cloudConfig, retry: { maxAttempts: 1 } });
  /** The HTTP status a call ends with (200 when it succeeds). */
  const status = (call: Promise<unknown>) => call.then(() => 200, (e: unknown) => (isHarvesterError(e) ? e.httpStatus : -1));
  const lb = (name: string, namespace: string) => ({ ...LB, metadata: { name, namespace }, spec: { workloadType: 'cluster', ipam: 'dhcp', listeners: [{ name: 'http', port: 80, protocol: 'TCP', backendPort: 30080 }] } }) as never;

  before(async function () {
    if (acceptanceMode()) this.skip();
    await h.admin.namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'elsewhere' } });
  });

  it('the kubeconfig works in the VMs\' namespace for what the cloud-provider role grants, and is refused (403) elsewhere and for other kinds', async () => {
    const outs = await created('gc-a');
    const guest = await as(outs);
    assert.equal(guest.defaultNamespace, 'default', 'context namespace = the VMs\' namespace');
    assert.equal(await status(guest.loadBalancers.create(lb('gc-a-svc', 'default'))), 200);
    assert.equal(await status(guest.virtualMachines.list({ namespace: 'default' })), 200);
    assert.equal(await status(guest.loadBalancers.create(lb('gc-a-svc', 'elsewhere'))), 403, 'outside the namespace');
    assert.equal(await status(guest.virtualMachines.list({ namespace: 'elsewhere' })), 403);
    assert.equal(await status(guest.secrets.list({ namespace: 'default' })), 403, 'a kind the role does not grant');
    assert.equal(await status(guest.ipPools.list({})), 403);
    await h.admin.loadBalancers.delete('gc-a-svc', { namespace: 'default' });
    await creds.delete('default/gc-a', outs as unknown as Raw);
  });

  it('a rotation makes the ServiceAccount and its token anew under the same names: the old token is refused (401), the new one works', async () => {
    const outs = await created('gc-r', { rotationTrigger: '1' });
    const old = await as(outs);
    const news = (await creds.check(outs as unknown as Raw, args('gc-r', { rotationTrigger: '2' }))).inputs!;
    assert.equal((await creds.diff('default/gc-r', outs as unknown as Raw, news)).changes, true);
    const rotated = (await creds.update('default/gc-r', outs as unknown as Raw, news)).outs!;
    assert.notEqual(rotated.cloudConfig, outs.cloudConfig);
    assert.equal(await status(old.virtualMachines.list({ namespace: 'default' })), 401);
    assert.equal(await status((await as(rotated)).virtualMachines.list({ namespace: 'default' })), 200);
    const same = (await creds.update('default/gc-r', rotated as unknown as Raw, news)).outs!;
    assert.equal(same.cloudConfig, rotated.cloudConfig, 'an update without a new trigger keeps the token');
    await creds.delete('default/gc-r', rotated as unknown as Raw);
  });

  it('a RoleBinding deleted by hand is drift after a refresh; up restores it', async () => {
    const outs = await created('gc-d');
    await h.admin.roleBindings.delete('default-gc-d', { namespace: 'default' });
    const read = await creds.read('default/gc-d', outs as unknown as Raw);
    assert.match((read.props!.drift as string[]).join('\n'), /RoleBinding default\/default-gc-d: missing/);
    assert.equal((await creds.diff('default/gc-d', read.props as unknown as Raw, read.inputs!)).changes, true);
    const healed = (await creds.update('default/gc-d', read.props as unknown as Raw, read.inputs!)).outs!;
    assert.equal(healed.cloudConfig, outs.cloudConfig, 'healing a binding keeps the token');
    assert.equal(await status((await as(healed)).virtualMachines.list({ namespace: 'default' })), 200);
    assert.deepEqual((await creds.read('default/gc-d', healed as unknown as Raw)).props!.drift, []);
    await creds.delete('default/gc-d', healed as unknown as Raw);
  });

  it('imports what Harvester\'s generator made (writing nothing), labels it at the next up, and destroy removes it all; the token then gets 401', async () => {
    const sa = await h.admin.serviceAccounts.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'gc-i', namespace: 'default' } });
    const ownerReferences = [{ apiVersion: 'v1', kind: 'ServiceAccount', name: 'gc-i', uid: sa.metadata.uid! }];
    const subjects = [{ kind: 'ServiceAccount', namespace: 'default', name: 'gc-i' }];
    const rbac = (kind: string, role: string, namespace?: string) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind, metadata: { name: 'default-gc-i', ...(namespace ? { namespace } : {}), ownerReferences }, subjects, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role } }) as never;
    await h.admin.secrets.create({ apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/service-account-token', metadata: { name: 'gc-i-token', namespace: 'default', ownerReferences, annotations: { 'kubernetes.io/service-account.name': 'gc-i', 'kubernetes.io/service-account.uid': sa.metadata.uid! } } });
    await h.admin.roleBindings.create(rbac('RoleBinding', 'harvesterhci.io:cloudprovider', 'default'));
    await h.admin.clusterRoleBindings.create(rbac('ClusterRoleBinding', 'harvesterhci.io:csi-driver'));
    const mark = h.t.emulator.journal.mark();
    // The host of an import sends no properties; the connection comes from stack config (here: the kubeconfig alone).
    const imported = await creds.read('default/gc-i', { kubeconfig: h.t.emulator.kubeconfig });
    assert.equal(imported.id, 'default/gc-i');
    const { kubeconfig: _k, ...importedInputs } = imported.inputs!;
    assert.deepEqual(importedInputs, { clusterName: 'gc-i', namespace: 'default', serviceAccountName: 'gc-i', bindCsiDriverRole: true });
    assert.deepEqual(h.t.emulator.journal.entries({ since: mark }).filter((e) => !['get', 'list', 'watch'].includes(e.verb ?? '')), [], 'an import writes nothing');
    const checked = await creds.check(imported.inputs!, args('gc-i', { rotationTrigger: 'v1' }));
    assert.deepEqual(checked.failures ?? [], [], 'an update of the imported credentials is not refused as someone else\'s');
    const props = imported.props as unknown as GuestClusterCredentialsOutputs;
    assert.ok(props.cloudConfig.includes('token:'), 'the import gives the existing token');
    const guest = await as(props);
    // The first up after the import records the trigger without rotating, and stamps our labels.
    const updated = (await creds.update('default/gc-i', props as unknown as Raw, checked.inputs!)).outs!;
    assert.equal(updated.cloudConfig, props.cloudConfig);
    const labelled = await h.admin.roleBindings.get('default-gc-i', 'default');
    assert.equal(labelled?.metadata.labels?.['app.kubernetes.io/managed-by'], 'harvester-iac');
    await creds.delete('default/gc-i', updated as unknown as Raw);
    for (const gone of [h.admin.serviceAccounts.get('gc-i', 'default'), h.admin.secrets.get('gc-i-token', 'default'), h.admin.roleBindings.get('default-gc-i', 'default'), h.admin.clusterRoleBindings.get('default-gc-i')]) {
      assert.equal(await gone, undefined);
    }
    assert.equal(await status(guest.virtualMachines.list({ namespace: 'default' })), 401, 'the token stops working after destroy');
  });

  it('destroy of an import record never touches a ServiceAccount that is not the one recorded', async () => {
    await h.admin.serviceAccounts.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'gc-x', namespace: 'default' } });
    await creds.delete('default/gc-x', { ...args('gc-x'), serviceAccountName: 'gc-x', serviceAccountUid: 'some-other-uid' });
    assert.ok(await h.admin.serviceAccounts.get('gc-x', 'default'));
    await h.admin.serviceAccounts.delete('gc-x', { namespace: 'default' });
  });

  it('check refuses, with no write, a missing namespace and a name someone else holds', async () => {
    await h.admin.serviceAccounts.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'gc-f', namespace: 'default' } } as KubeObject);
    const mark = h.t.emulator.journal.mark();
    const r = await creds.check({}, args('gc-f'));
    assert.deepEqual(r.failures?.map((f) => f.property), ['serviceAccountName']);
    assert.match(r.failures![0].reason, /Refusing to manage ServiceAccount default\/gc-f.*Or import it \(id "default\/gc-f"\)/s);
    assert.deepEqual((await creds.check({}, args('gc-g', { namespace: 'nope' }))).failures?.map((f) => f.property), ['namespace']);
    assert.deepEqual(h.t.emulator.journal.entries({ since: mark }).filter((e) => e.verb !== 'get' && e.verb !== 'list'), []);
    await h.admin.serviceAccounts.delete('gc-f', { namespace: 'default' });
  });

  it('check refuses, with no write, a cluster without Harvester\'s csi-driver ClusterRole, naming bindCsiDriverRole and the way out', async () => {
    const role = (await h.admin.clusterRoles.get('harvesterhci.io:csi-driver'))!;
    await h.admin.clusterRoles.delete('harvesterhci.io:csi-driver');
    try {
      const mark = h.t.emulator.journal.mark();
      const r = await creds.check({}, args('gc-r'));
      assert.deepEqual(r.failures?.map((f) => f.property), ['bindCsiDriverRole']);
      assert.match(r.failures![0].reason, /ClusterRole harvesterhci\.io:csi-driver does not exist on the cluster .*set bindCsiDriverRole to false/s);
      assert.deepEqual((await creds.check({}, args('gc-r', { bindCsiDriverRole: false }))).failures ?? [], []);
      assert.deepEqual(h.t.emulator.journal.entries({ since: mark }).filter((e) => e.verb !== 'get' && e.verb !== 'list'), []);
    } finally {
      await h.admin.clusterRoles.create({ apiVersion: role.apiVersion, kind: role.kind, metadata: { name: role.metadata.name, labels: role.metadata.labels }, rules: (role as KubeObject & { rules?: unknown }).rules } as KubeObject);
    }
  });
});
