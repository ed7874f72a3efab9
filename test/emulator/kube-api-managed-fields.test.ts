/**
 * Field managers of every write, through the real kubectl and client-node. Expected answers (docs/design/
 * kube-api.md §4): the Server-Side Apply documentation (kubernetes.io/docs/reference/using-api/
 * server-side-apply: managers are recorded for Apply and Update operations; an apply changing a field another
 * manager set conflicts, naming it; `force` takes the field over; co-owning by applying the same value;
 * clearing managedFields with `[{}]`), apimachinery v0.32 pkg/util/managedfields/internal (conflict.go's
 * `"<manager>" using <apiVersion>` for Update owners, skipnonapplied.go's `before-first-apply`,
 * lastappliedmanager.go/lastappliedupdater.go for kubectl's client-side → server-side upgrade), and kubectl's
 * own managers (`kubectl-create`, `kubectl-edit`, `kubectl-patch`, `kubectl-label`, `kubectl-client-side-apply`,
 * `kubectl`, `kubectl-last-applied`).
 */
import assert from 'node:assert/strict';
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { KINDS } from '../../emulator/kinds';
import type { KubeObject, ManagedFieldsEntry } from '../../emulator/api/types';
import { startTestEmulator, TestEmulator } from '../support/emulator-harness';
import { describeResult } from '../support/kubectl';
import { rawRequest } from './raw-http';

const GV = 'loadbalancer.harvesterhci.io/v1beta1';
const LB = { group: 'loadbalancer.harvesterhci.io', version: 'v1beta1', plural: 'loadbalancers' };

function lbYaml(name: string, spec: Record<string, unknown>): string {
  return `apiVersion: ${GV}\nkind: LoadBalancer\nmetadata: {name: ${name}, namespace: default}\nspec: ${JSON.stringify({ workloadType: 'vm', listeners: [{ name: 'a', port: 80, protocol: 'TCP', backendPort: 80 }], ...spec })}\n`;
}

/** `manager/operation` → fieldsV1, in the order served. */
function owners(o: KubeObject | undefined): [string, Record<string, unknown>][] {
  return (o?.metadata.managedFields ?? []).map((e: ManagedFieldsEntry) => [`${e.manager}/${e.operation}${e.subresource ? `/${e.subresource}` : ''}`, e.fieldsV1]);
}

describe('kube-api fidelity: field managers of every write', function () {
  this.timeout(60_000);
  let t: TestEmulator;
  const lb = (name: string): KubeObject | undefined => t.emulator.store.get(KINDS.loadBalancer, 'default', name);

  before(async () => {
    t = await startTestEmulator({ controllers: false });
  });
  after(() => t?.stop());

  it('kubectl create, edit, patch and label each record an Update entry with the fields they set', async () => {
    await t.kubectlOk(['create', '-f', '-'], { input: lbYaml('owned', { ipam: 'dhcp' }) });
    // A custom resource starts from nothing: spec is added as a whole (".").
    assert.deepEqual(owners(lb('owned')), [['kubectl-create/Update', { 'f:spec': { '.': {}, 'f:ipam': {}, 'f:listeners': {}, 'f:workloadType': {} } }]]);
    assert.equal(lb('owned')!.metadata.managedFields![0].apiVersion, GV);

    await t.kubectlOk(['edit', 'lb', 'owned'], { env: { KUBE_EDITOR: 'sed -i s/ipam:\\ dhcp/ipam:\\ pool/' } });
    await t.kubectlOk(['patch', 'lb', 'owned', '--type=merge', '-p', '{"spec":{"description":"patched"}}']);
    await t.kubectlOk(['label', 'lb', 'owned', 'tier=web']);
    const table = Object.fromEntries(owners(lb('owned')));
    // kubectl-edit took spec.ipam from kubectl-create.
    assert.deepEqual(table['kubectl-create/Update'], { 'f:spec': { '.': {}, 'f:listeners': {}, 'f:workloadType': {} } });
    assert.deepEqual(table['kubectl-edit/Update'], { 'f:spec': { 'f:ipam': {} } });
    assert.deepEqual(table['kubectl-patch/Update'], { 'f:spec': { 'f:description': {} } });
    assert.deepEqual(table['kubectl-label/Update'], { 'f:metadata': { 'f:labels': { '.': {}, 'f:tier': {} } } });
  });

  it('server-side apply changing a field an Update manager set: 409 naming it "using <apiVersion>"; --force-conflicts takes it', async () => {
    const conflict = await t.kubectl(['apply', '--server-side', '-f', '-'], { input: lbYaml('owned', { ipam: 'dhcp', description: 'applied' }) });
    assert.equal(conflict.code, 1, describeResult(conflict));
    assert.match(
      conflict.stderr,
      new RegExp(`Apply failed with 2 conflicts: conflicts with "kubectl-edit" using ${GV.replace(/\./g, '\\.')}:\\n- \\.spec\\.ipam\\nconflicts with "kubectl-patch" using ${GV.replace(/\./g, '\\.')}:\\n- \\.spec\\.description`),
    );
    assert.equal((lb('owned')!.spec as { ipam: string }).ipam, 'pool', 'nothing written');

    await t.kubectlOk(['apply', '--server-side', '--force-conflicts', '-f', '-'], { input: lbYaml('owned', { ipam: 'dhcp', description: 'applied' }) });
    const table = Object.fromEntries(owners(lb('owned')));
    assert.equal(table['kubectl-edit/Update'], undefined, 'an Update entry left with no fields disappears');
    assert.equal(table['kubectl-patch/Update'], undefined);
    assert.deepEqual(table['kubectl/Apply'], { 'f:spec': { 'f:description': {}, 'f:ipam': {}, 'f:listeners': {}, 'f:workloadType': {} } });
    // Applying the same values the creator set is shared ownership, not a conflict.
    assert.deepEqual(table['kubectl-create/Update'], { 'f:spec': { '.': {}, 'f:listeners': {}, 'f:workloadType': {} } });
    assert.equal(owners(lb('owned'))[0][0], 'kubectl/Apply', 'Apply entries are served first');
  });

  it("kubectl's client-side apply then --server-side: the last-applied fields move to kubectl without a conflict", async () => {
    await t.kubectlOk(['apply', '-f', '-'], { input: lbYaml('upgraded', { ipam: 'dhcp' }) });
    assert.deepEqual(owners(lb('upgraded')).map(([m]) => m), ['kubectl-client-side-apply/Update']);
    const out = await t.kubectlOk(['apply', '--server-side', '-f', '-'], { input: lbYaml('upgraded', { ipam: 'pool' }) });
    assert.match(out, /upgraded serverside-applied/);
    const o = lb('upgraded')!;
    assert.equal((o.spec as { ipam: string }).ipam, 'pool');
    const table = Object.fromEntries(owners(o));
    assert.equal(table['kubectl-client-side-apply/Update'], undefined, "kubectl's upgrade patch moved its fields away");
    assert.deepEqual(table['kubectl/Apply'], { 'f:spec': { 'f:ipam': {}, 'f:listeners': {}, 'f:workloadType': {} } });
    const annotation = JSON.parse(o.metadata.annotations!['kubectl.kubernetes.io/last-applied-configuration']);
    assert.equal(annotation.spec.ipam, 'pool', 'the last-applied annotation follows what kubectl applied');

    // A field changed since by someone else is not covered by last-applied: a real conflict.
    await t.kubectlOk(['patch', 'lb', 'upgraded', '--type=merge', '-p', '{"spec":{"ipam":"dhcp"}}']);
    const conflict = await t.kubectl(['apply', '--server-side', '-f', '-'], { input: lbYaml('upgraded', { ipam: 'pool' }) });
    assert.match(conflict.stderr, new RegExp(`conflict with "kubectl-patch" using ${GV.replace(/\./g, '\\.')}: \\.spec\\.ipam`));
  });

  it('client-node: create and replace with a fieldManager are Update entries; an apply over them conflicts; force wins', async () => {
    const api = t.kubeConfig().makeApiClient(CustomObjectsApi);
    const body = { apiVersion: GV, kind: 'LoadBalancer', metadata: { name: 'cn', namespace: 'default' }, spec: { ipam: 'dhcp', workloadType: 'vm', listeners: [{ name: 'a', port: 80, protocol: 'TCP', backendPort: 80 }] } };
    await api.createNamespacedCustomObject({ ...LB, namespace: 'default', body, fieldManager: 'my-operator' });
    const live = (await api.getNamespacedCustomObject({ ...LB, namespace: 'default', name: 'cn' })) as KubeObject;
    await api.replaceNamespacedCustomObject({ ...LB, namespace: 'default', name: 'cn', body: { ...live, spec: { ...(live.spec as object), description: 'replaced' } }, fieldManager: 'my-replacer' });
    assert.deepEqual(owners(lb('cn')).map(([m]) => m), ['my-operator/Update', 'my-replacer/Update']);

    const apply = (force: boolean) =>
      api.patchNamespacedCustomObject(
        { ...LB, namespace: 'default', name: 'cn', body: { ...body, spec: { ...body.spec, ipam: 'pool' } }, fieldManager: 'harvester-iac', force },
        setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
      );
    const err = await apply(false).then(
      () => assert.fail('expected 409'),
      (e: { code: number; body: string }) => e,
    );
    assert.equal(err.code, 409);
    const status = JSON.parse(err.body);
    assert.equal(status.message, `Apply failed with 1 conflict: conflict with "my-operator" using ${GV}: .spec.ipam`);
    assert.deepEqual(status.details.causes, [{ reason: 'FieldManagerConflict', message: `conflict with "my-operator" using ${GV}`, field: '.spec.ipam' }]);
    await apply(true);
    assert.deepEqual(Object.fromEntries(owners(lb('cn')))['harvester-iac/Apply'], { 'f:spec': { 'f:ipam': {}, 'f:listeners': {}, 'f:workloadType': {} } });
  });

  it('managedFields [{}] clears them; the untracked object is then handed to before-first-apply on the next apply', async () => {
    await t.kubectlOk(['create', '-f', '-'], { input: lbYaml('reset', { ipam: 'dhcp' }) });
    const cleared = await rawRequest(t, 'PATCH', `/apis/${GV}/namespaces/default/loadbalancers/reset`, '{"metadata":{"managedFields":[{}]}}', { 'Content-Type': 'application/merge-patch+json' });
    assert.equal(cleared.status, 200, cleared.text);
    assert.equal(cleared.json.metadata.managedFields, undefined);
    // An update of an object nobody tracks records nothing (skipNonAppliedManager).
    await t.kubectlOk(['label', 'lb', 'reset', 'x=y']);
    assert.equal(lb('reset')!.metadata.managedFields, undefined);

    const conflict = await t.kubectl(['apply', '--server-side', '--field-manager=late', '-f', '-'], { input: lbYaml('reset', { ipam: 'pool' }) });
    assert.match(conflict.stderr, new RegExp(`conflict with "before-first-apply" using ${GV.replace(/\./g, '\\.')}: \\.spec\\.ipam`));
  });

  it('a write without ?fieldManager is recorded under the User-Agent prefix', async () => {
    const r = await rawRequest(t, 'POST', '/api/v1/namespaces/default/configmaps', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"ua"},"data":{"a":"b"}}', { 'Content-Type': 'application/json', 'User-Agent': 'my-tool/2.1 (linux)' });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(owners(t.emulator.store.get(KINDS.configMap, 'default', 'ua')), [['my-tool/Update', { 'f:data': { '.': {}, 'f:a': {} } }]]);
  });
});
