/**
 * kubectl's RBAC commands against the emulator: the imperative creates (protobuf bodies, decoded with the
 * field numbers of k8s.io/api) and `kubectl auth can-i --list`. Expected answers (docs/design/kube-api.md §5)
 * from kubernetes v1.32: pkg/registry/authorization/selfsubjectrulesreview/rest.go (400 `no namespace on
 * request`; status only, the spec not echoed; `evaluationError` from the resolver), plugin/pkg/auth/authorizer/
 * rbac/rbac.go `RulesFor` (rules with resources are resource rules, rules with URLs non-resource rules) and
 * pkg/registry/rbac/validation/rule.go `VisitRulesFor` (ClusterRoleBindings, then the namespace's
 * RoleBindings; a missing role is an error, not a stop), and the bootstrap policy (cluster-admin bound to
 * system:masters; system:basic-user and system:discovery to system:authenticated).
 */
import assert from 'node:assert/strict';
import { KINDS } from '../../emulator/kinds';
import { startTestEmulator, TestEmulator } from '../support/emulator-harness';
import { rawRequest } from './raw-http';

const SA = 'system:serviceaccount:default:robot';

describe('kubectl RBAC commands: create serviceaccount|role|rolebinding|clusterrole|clusterrolebinding, auth can-i --list', function () {
  this.timeout(60_000);
  let t: TestEmulator;

  before(async () => {
    t = await startTestEmulator({ controllers: false });
  });
  after(() => t?.stop());

  it('creates each kind from the protobuf body kubectl sends', async () => {
    const mark = t.emulator.journal.mark();
    await t.kubectlOk(['create', 'serviceaccount', 'robot']);
    await t.kubectlOk(['create', 'role', 'cm-reader', '--verb=get,list', '--resource=configmaps', '--resource-name=settings']);
    await t.kubectlOk(['create', 'rolebinding', 'robot-cm', '--role=cm-reader', `--serviceaccount=default:robot`]);
    await t.kubectlOk(['create', 'rolebinding', 'robot-ccm', '--clusterrole=harvesterhci.io:cloudprovider', '--serviceaccount=default:robot', '--user=alice']);
    await t.kubectlOk(['create', 'clusterrole', 'log-reader', '--verb=get', '--non-resource-url=/logs/*']);
    await t.kubectlOk(['create', 'clusterrolebinding', 'robot-logs', '--clusterrole=log-reader', '--group=system:serviceaccounts:default']);
    const posts = t.emulator.journal.entries({ since: mark, method: 'POST' });
    assert.equal(posts.length, 6, t.emulator.journal.format({ since: mark }));
    assert.ok(posts.every((p) => p.requestContentType === 'application/vnd.kubernetes.protobuf' && p.status === 201), t.emulator.journal.format({ since: mark }));

    assert.ok(t.emulator.store.get(KINDS.serviceAccount, 'default', 'robot'));
    assert.deepEqual(t.emulator.store.get(KINDS.role, 'default', 'cm-reader')!.rules, [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['settings'] }]);
    const rb = t.emulator.store.get(KINDS.roleBinding, 'default', 'robot-ccm')!;
    assert.deepEqual(rb.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'harvesterhci.io:cloudprovider' });
    assert.deepEqual(rb.subjects, [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }, { kind: 'ServiceAccount', name: 'robot', namespace: 'default' }]);
    // The created role works: the core group ("") survived decoding.
    assert.equal((await t.kubectlOk(['auth', 'can-i', 'get', 'configmaps/settings', '--as', SA])).trim(), 'yes');
    assert.equal((await t.kubectl(['auth', 'can-i', 'get', 'configmaps/other', '--as', SA])).stdout.trim(), 'no');
  });

  it('auth can-i --list for a service account: the rules of every binding that reaches it, in the namespace asked', async () => {
    const out = await t.kubectlOk(['auth', 'can-i', '--list', '-n', 'default', '--as', SA]);
    const rows = out.trim().split('\n').map((l) => l.trim().split(/\s{2,}/));
    assert.deepEqual(rows[0], ['Resources', 'Non-Resource URLs', 'Resource Names', 'Verbs']);
    const has = (row: string[]) => rows.some((r) => JSON.stringify(r) === JSON.stringify(row));
    assert.ok(has(['configmaps', '[]', '[settings]', '[get list]']), out);
    assert.ok(has(['loadbalancers.loadbalancer.harvesterhci.io', '[]', '[]', '[get list watch update create delete]']), out);
    assert.ok(has(['selfsubjectrulesreviews.authorization.k8s.io', '[]', '[]', '[create]']), out);
    assert.ok(has(['[/logs/*]', '[]', '[get]']), out);
    // In another namespace the RoleBindings of default do not count.
    const elsewhere = await t.kubectlOk(['auth', 'can-i', '--list', '-n', 'kube-system', '--as', SA]);
    assert.doesNotMatch(elsewhere, /configmaps|loadbalancers/);
    assert.match(elsewhere, /\[\/logs\/\*\]/);
  });

  it('auth can-i --list for the admin: cluster-admin through system:masters', async () => {
    const out = await t.kubectlOk(['auth', 'can-i', '--list']);
    assert.match(out, /^\*\.\*\s+\[\]\s+\[\]\s+\[\*\]$/m);
    assert.match(out, /^\s+\[\*\]\s+\[\]\s+\[\*\]$/m);
  });

  it('the review itself: status only, 400 without a namespace, a missing role as evaluationError', async () => {
    t.emulator.store.create(KINDS.roleBinding, {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'dangling', namespace: 'default' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'gone' }, subjects: [{ kind: 'ServiceAccount', name: 'robot', namespace: 'default' }],
    });
    const review = (namespace: string) =>
      rawRequest(t, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace } }), {
        'Content-Type': 'application/json', 'Impersonate-User': SA,
      });
    const r = await review('default');
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(Object.keys(r.json).sort(), ['apiVersion', 'kind', 'metadata', 'spec', 'status']);
    assert.deepEqual(r.json.spec, {});
    assert.equal(r.json.status.incomplete, false);
    assert.equal(r.json.status.evaluationError, 'role.rbac.authorization.k8s.io "gone" not found');
    assert.deepEqual(r.json.status.resourceRules.find((x: { resources: string[] }) => x.resources.includes('configmaps')), { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['settings'] });
    const none = await review('');
    assert.equal(none.status, 400);
    assert.equal(none.json.message, 'no namespace on request');
  });
});
