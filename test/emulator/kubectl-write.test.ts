/**
 * Conformance: kubectl write paths against the emulator — client-side and server-side apply, create
 * (manifest and the protobuf-speaking imperative forms), label with a stale resourceVersion, patch types,
 * dry-run, field validation, delete waiting on a finalizer, wait --for=jsonpath and get -w.
 */
import assert from 'node:assert/strict';
import { KINDS } from '../../emulator/kinds';
import type { KubeObject } from '../../emulator/api/types';
import { eventually, startTestEmulator, TestEmulator } from '../support/emulator-harness';
import { describeResult } from '../support/kubectl';

const LB_API = '/apis/loadbalancer.harvesterhci.io/v1beta1/namespaces/default/loadbalancers';

function lbManifest(name: string, spec: Record<string, unknown>, extra = ''): string {
  return `apiVersion: loadbalancer.harvesterhci.io/v1beta1
kind: LoadBalancer
metadata:
  name: ${name}
  namespace: default
spec: ${JSON.stringify({ workloadType: 'vm', listeners: [{ name: 'http', port: 80, protocol: 'TCP', backendPort: 8080 }], ...spec })}
${extra}`;
}

describe('kubectl writes (conformance)', function () {
  this.timeout(60_000);
  let t: TestEmulator;
  const lb = (name: string): KubeObject | undefined => t.emulator.store.get(KINDS.loadBalancer, 'default', name);
  const cm = (name: string, ns = 'default'): KubeObject | undefined => t.emulator.store.get(KINDS.configMap, ns, name);

  before(async () => {
    t = await startTestEmulator({ controllers: false });
  });
  after(() => t?.stop());

  it('client-side apply: created, configured, unchanged — and the third run sends no PATCH', async () => {
    const j = t.emulator.journal;
    assert.match(await t.kubectlOk(['apply', '-f', '-'], { input: lbManifest('csa', { ipam: 'dhcp' }) }), /loadbalancer\.loadbalancer\.harvesterhci\.io\/csa created/);
    const post = j.entries({ method: 'POST', path: LB_API })[0];
    assert.equal(post.status, 201);
    assert.match(post.url, /fieldManager=kubectl-client-side-apply/);
    assert.match(post.url, /fieldValidation=Strict/);

    const m1 = j.mark();
    assert.match(await t.kubectlOk(['apply', '-f', '-'], { input: lbManifest('csa', { ipam: 'pool' }) }), /csa configured/);
    const patch = j.entries({ since: m1, method: 'PATCH' });
    assert.equal(patch.length, 1, j.format({ since: m1 }));
    assert.equal(patch[0].requestContentType, 'application/merge-patch+json');
    assert.equal((lb('csa')!.spec as Record<string, unknown>).ipam, 'pool');

    const rv = lb('csa')!.metadata.resourceVersion;
    const m2 = j.mark();
    assert.match(await t.kubectlOk(['apply', '-f', '-'], { input: lbManifest('csa', { ipam: 'pool' }) }), /csa unchanged/);
    assert.deepEqual(j.entries({ since: m2, method: 'PATCH' }), [], j.format({ since: m2 }));
    assert.equal(lb('csa')!.metadata.resourceVersion, rv);
  });

  it('client-side apply of a built-in sends a strategic merge patch the server merges by key', async () => {
    const svc = (ports: string): string => `apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec:
  selector: {app: web}
  ports: ${ports}`;
    await t.kubectlOk(['apply', '-f', '-'], { input: svc('[{port: 80, targetPort: 8080}, {port: 443, targetPort: 8443}]') });
    const mark = t.emulator.journal.mark();
    await t.kubectlOk(['apply', '-f', '-'], { input: svc('[{port: 443, targetPort: 9443}, {name: metrics, port: 9090, protocol: TCP, targetPort: 9090}]') });
    const patch = t.emulator.journal.entries({ since: mark, method: 'PATCH' })[0];
    assert.equal(patch.requestContentType, 'application/strategic-merge-patch+json');
    const stored = t.emulator.store.get(KINDS.service, 'default', 'web')!;
    const ports = (stored.spec as { ports: { port: number; targetPort: number }[] }).ports;
    assert.deepEqual(ports.map((p) => [p.port, p.targetPort]), [[443, 9443], [9090, 9090]]);
  });

  it('server-side apply: 201 create, 200 update, conflict for another manager, then --force-conflicts', async () => {
    const j = t.emulator.journal;
    const m = j.mark();
    assert.match(await t.kubectlOk(['apply', '--server-side', '-f', '-'], { input: lbManifest('ssa', { ipam: 'dhcp' }) }), /ssa serverside-applied/);
    const created = j.entries({ since: m, method: 'PATCH' })[0];
    assert.equal(created.status, 201);
    assert.equal(created.requestContentType, 'application/apply-patch+yaml');
    assert.match(created.url, /fieldManager=kubectl&fieldValidation=Strict&force=false/);

    const m2 = j.mark();
    await t.kubectlOk(['apply', '--server-side', '-f', '-'], { input: lbManifest('ssa', { ipam: 'dhcp', description: 'v2' }) });
    assert.equal(j.entries({ since: m2, method: 'PATCH' })[0].status, 200);

    const conflict = await t.kubectl(['apply', '--server-side', '--field-manager=other', '-f', '-'], { input: lbManifest('ssa', { ipam: 'pool', description: 'v2' }) });
    assert.equal(conflict.code, 1, describeResult(conflict));
    assert.match(conflict.stderr, /Apply failed with 1 conflict: conflict with "kubectl": \.spec\.ipam/);
    assert.match(conflict.stderr, /--force-conflicts/);

    await t.kubectlOk(['apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', '-'], { input: lbManifest('ssa', { ipam: 'pool', description: 'v2' }) });
    const obj = lb('ssa')!;
    assert.equal((obj.spec as Record<string, unknown>).ipam, 'pool');
    const other = obj.metadata.managedFields!.find((e) => e.manager === 'other')!;
    assert.equal(other.operation, 'Apply');
    assert.ok(JSON.stringify(other.fieldsV1).includes('"f:ipam"'));
  });

  it('create -f, AlreadyExists, and the imperative creates kubectl sends as protobuf', async () => {
    const manifest = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: made, namespace: default}\ndata: {a: "1"}\n';
    assert.match(await t.kubectlOk(['create', '-f', '-'], { input: manifest }), /configmap\/made created/);
    const again = await t.kubectl(['create', '-f', '-'], { input: manifest });
    assert.equal(again.code, 1);
    assert.match(again.stderr, /Error from server \(AlreadyExists\): error when creating "STDIN": configmaps "made" already exists/);

    const mark = t.emulator.journal.mark();
    await t.kubectlOk(['create', 'configmap', 'imp-cm', '--from-literal=a=b']);
    await t.kubectlOk(['create', 'secret', 'generic', 'imp-secret', '--from-literal=password=s3cret']);
    await t.kubectlOk(['create', 'namespace', 'imp-ns']);
    await t.kubectlOk(['create', 'service', 'loadbalancer', 'imp-svc', '--tcp=80:8080']);
    const posts = t.emulator.journal.entries({ since: mark, method: 'POST' });
    assert.equal(posts.length, 4, `one POST per create:\n${t.emulator.journal.format({ since: mark })}`);
    assert.ok(posts.every((p) => p.requestContentType === 'application/vnd.kubernetes.protobuf' && p.status === 201), t.emulator.journal.format({ since: mark }));
    assert.deepEqual(cm('imp-cm')!.data, { a: 'b' });
    assert.deepEqual(t.emulator.store.get(KINDS.secret, 'default', 'imp-secret')!.data, { password: Buffer.from('s3cret').toString('base64') });
    assert.ok(t.emulator.store.get(KINDS.namespace, undefined, 'imp-ns'));
    const svc = t.emulator.store.get(KINDS.service, 'default', 'imp-svc')!;
    const [port] = (svc.spec as Record<string, any>).ports;
    assert.deepEqual({ ...port, nodePort: undefined }, { name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080, nodePort: undefined });
    assert.ok(port.nodePort >= 30000 && port.nodePort <= 32767, 'the apiserver allocates a node port');
    assert.match((svc.spec as Record<string, any>).clusterIP, /^10\.43\./);
    // kubectl get svc shows what the apiserver allocated
    assert.match(await t.kubectlOk(['get', 'svc', 'imp-svc']), /imp-svc\s+LoadBalancer\s+10\.43\.\d+\.\d+\s/);
  });

  it('label, then label with a stale --resource-version gets 409 Conflict', async () => {
    t.emulator.store.create(KINDS.configMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'lbl', namespace: 'default' } });
    assert.match(await t.kubectlOk(['label', 'cm', 'lbl', 'env=prod']), /configmap\/lbl labeled/);
    assert.deepEqual(cm('lbl')!.metadata.labels, { env: 'prod' });
    const stale = await t.kubectl(['label', 'cm', 'lbl', 'env=x', '--overwrite', '--resource-version=1']);
    assert.equal(stale.code, 1, describeResult(stale));
    assert.match(stale.stderr, /Error from server \(Conflict\): Operation cannot be fulfilled on configmaps "lbl": the object has been modified; please apply your changes to the latest version and try again/);
    assert.deepEqual(cm('lbl')!.metadata.labels, { env: 'prod' });
  });

  it('patch: merge and json work on a CRD, strategic is refused with the 415 text', async () => {
    t.emulator.store.create(KINDS.loadBalancer, { apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'LoadBalancer', metadata: { name: 'pat', namespace: 'default' }, spec: { ipam: 'dhcp', workloadType: 'vm' } });
    await t.kubectlOk(['patch', 'lb', 'pat', '--type=merge', '-p', '{"spec":{"description":"merged"}}']);
    await t.kubectlOk(['patch', 'lb', 'pat', '--type=json', '-p', '[{"op":"replace","path":"/spec/ipam","value":"pool"}]']);
    assert.deepEqual(lb('pat')!.spec, { ipam: 'pool', workloadType: 'vm', description: 'merged' });
    const smp = await t.kubectl(['patch', 'lb', 'pat', '-p', '{"spec":{"ipam":"dhcp"}}']);
    assert.equal(smp.code, 1);
    assert.equal(
      smp.stderr.trim(),
      'error: application/strategic-merge-patch+json is not supported by loadbalancer.harvesterhci.io/v1beta1, Kind=LoadBalancer: the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    );
    const badJson = await t.kubectl(['patch', 'lb', 'pat', '--type=json', '-p', '[{"op":"remove","path":"/spec/nothing"}]']);
    assert.equal(badJson.code, 1);
    // kubectl's rendering of a 422 Invalid Status.
    assert.match(badJson.stderr, /The request is invalid: .*\/spec\/nothing/);
  });

  it('dry-run=server stores nothing; unknown fields fail Strict and warn under --validate=warn', async () => {
    assert.match(await t.kubectlOk(['apply', '--dry-run=server', '-f', '-'], { input: lbManifest('dry', { ipam: 'dhcp' }) }), /dry created \(server dry run\)/);
    assert.equal(lb('dry'), undefined);
    const strict = await t.kubectl(['apply', '-f', '-'], { input: lbManifest('strict', { ipam: 'dhcp', foo: 1 }) });
    assert.equal(strict.code, 1);
    assert.match(strict.stderr, /strict decoding error: unknown field "spec\.foo"/);
    assert.equal(lb('strict'), undefined);
    const warn = await t.kubectl(['apply', '--validate=warn', '-f', '-'], { input: lbManifest('warned', { ipam: 'dhcp', foo: 1 }) });
    assert.equal(warn.code, 0, describeResult(warn));
    assert.match(warn.stderr, /Warning: unknown field "spec\.foo"/);
    assert.equal((lb('warned')!.spec as Record<string, unknown>).foo, undefined);
  });

  it('delete waits while a finalizer holds the object, and returns once it is removed', async () => {
    const { store, journal } = t.emulator;
    store.create(KINDS.loadBalancer, { apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'LoadBalancer', metadata: { name: 'held', namespace: 'default', finalizers: ['example.com/hold'] }, spec: { ipam: 'dhcp', workloadType: 'vm' } });
    const mark = journal.mark();
    const del = t.spawnKubectl(['delete', 'lb', 'held', '--timeout=20s']);
    await eventually(() => journal.entries({ since: mark, verb: 'watch', path: LB_API }).find((e) => e.url.includes('metadata.name%3Dheld')), 'kubectl delete to watch the object');
    assert.ok(lb('held')!.metadata.deletionTimestamp, 'marked for deletion, kept by its finalizer');
    assert.equal(del.running, true, 'kubectl delete keeps waiting');
    store.patch(KINDS.loadBalancer, 'default', 'held', 'merge', { metadata: { finalizers: null } }, { fieldManager: 'test-controller' });
    const r = await del.done;
    assert.equal(r.code, 0, describeResult(r));
    assert.match(r.stdout, /loadbalancer\.loadbalancer\.harvesterhci\.io "held" deleted/);
    assert.equal(lb('held'), undefined);
  });

  it('wait --for=jsonpath returns when a controller writes the value', async () => {
    const { store, journal } = t.emulator;
    store.create(KINDS.loadBalancer, { apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'LoadBalancer', metadata: { name: 'waiter', namespace: 'default' }, spec: { ipam: 'dhcp', workloadType: 'vm' } });
    const mark = journal.mark();
    const wait = t.spawnKubectl(['wait', '--for=jsonpath={.status.address}=10.0.0.9', 'lb/waiter', '--timeout=20s']);
    await eventually(() => journal.entries({ since: mark, verb: 'watch' }).find((e) => e.status === 200), 'kubectl wait to start watching');
    store.patch(KINDS.loadBalancer, 'default', 'waiter', 'merge', { status: { address: '10.0.0.9' } }, { fieldManager: 'test-controller' });
    const r = await wait.done;
    assert.equal(r.code, 0, describeResult(r));
    assert.match(r.stdout, /loadbalancer\.loadbalancer\.harvesterhci\.io\/waiter condition met/);
  });

  it('get -w prints ADDED, MODIFIED and DELETED as they happen', async () => {
    const { store } = t.emulator;
    const mk = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', labels: { watch: 'me' } } });
    store.create(KINDS.configMap, mk('w-first'));
    const w = t.spawnKubectl(['get', 'cm', '-l', 'watch=me', '-w', '--output-watch-events']);
    await w.waitFor(/ADDED\s+w-first/);
    store.create(KINDS.configMap, mk('w-second'));
    await w.waitFor(/ADDED\s+w-second/);
    store.patch(KINDS.configMap, 'default', 'w-second', 'merge', { data: { x: 'y' } }, { fieldManager: 'test' });
    await w.waitFor(/MODIFIED\s+w-second/);
    store.delete(KINDS.configMap, 'default', 'w-second');
    await w.waitFor(/DELETED\s+w-second/);
    assert.match(w.stdout.split('\n')[0], /^EVENT\s+NAME\s+DATA\s+AGE|^EVENT\s+NAME\s+AGE/);
    await w.stop();
  });

  it('answers 405 for a method the path does not serve', async () => {
    const r = await t.kubectl(['create', '--raw', '/api/v1/namespaces/default/configmaps/made', '-f', '-'], { input: '{}' });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /MethodNotAllowed|the server does not allow this method on the requested resource/);
  });
});
