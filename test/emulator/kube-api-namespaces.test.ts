/**
 * Namespaces as kube-apiserver keeps them, through kubectl and raw HTTPS. Expected answers (docs/design/
 * kube-api.md §3) from kubernetes v1.32: pkg/apis/core/v1/defaults.go `SetDefaults_Namespace` (the
 * `kubernetes.io/metadata.name` label, set while decoding when the name is known, so the writer's field
 * manager owns it), pkg/registry/core/namespace/strategy.go (PrepareForCreate: phase Active and the
 * `kubernetes` finalizer; PrepareForUpdate: spec.finalizers and status kept; Canonicalize: the label forced
 * to the name; the finalize strategy), storage.go (Delete: deletionTimestamp and Terminating, removal only
 * once spec.finalizers is empty; FinalizeREST serves PUT only), pkg/apis/core/validation
 * (`validateFinalizerName`), plugin/pkg/admission/namespace/lifecycle (immortal namespaces, no new content
 * in a Terminating namespace).
 */
import assert from 'node:assert/strict';
import { KINDS } from '../../emulator/kinds';
import type { KubeObject } from '../../emulator/api/types';
import { eventually, startTestEmulator, TestEmulator } from '../support/emulator-harness';
import { rawRequest } from './raw-http';

const NS = '/api/v1/namespaces';
const LABEL = 'kubernetes.io/metadata.name';

describe('kube-api fidelity: namespaces', function () {
  this.timeout(60_000);
  let t: TestEmulator;
  const ns = (name: string): KubeObject | undefined => t.emulator.store.get(KINDS.namespace, undefined, name);
  const spec = (o: KubeObject | undefined) => o?.spec as { finalizers?: string[] } | undefined;

  before(async () => {
    t = await startTestEmulator({ controllers: false });
  });
  after(() => t?.stop());

  it('kubectl create namespace: the name label (owned by kubectl-create), spec.finalizers [kubernetes], phase Active', async () => {
    await t.kubectlOk(['create', 'namespace', 'team-a']);
    const o = ns('team-a')!;
    assert.deepEqual(o.metadata.labels, { [LABEL]: 'team-a' });
    assert.deepEqual(o.spec, { finalizers: ['kubernetes'] });
    assert.deepEqual(o.status, { phase: 'Active' });
    const entries = o.metadata.managedFields!;
    assert.deepEqual(
      entries.map((e) => [e.manager, e.operation, e.apiVersion, e.fieldsV1]),
      [['kubectl-create', 'Update', 'v1', { 'f:metadata': { 'f:labels': { '.': {}, [`f:${LABEL}`]: {} } } }]],
    );
    const selected = await t.kubectlOk(['get', 'namespaces', '-l', `${LABEL}=team-a`, '-o', 'name']);
    assert.equal(selected.trim(), 'namespace/team-a');
  });

  it('a finalizer of the creator comes first, kubernetes is appended; a generateName namespace gets its label too', async () => {
    const created = await rawRequest(t, 'POST', NS, JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { generateName: 'gen-' }, spec: { finalizers: ['example.com/hold'] } }), { 'Content-Type': 'application/json' });
    assert.equal(created.status, 201, created.text);
    const name = created.json.metadata.name as string;
    assert.match(name, /^gen-[a-z0-9]{5}$/);
    assert.deepEqual(created.json.metadata.labels, { [LABEL]: name });
    assert.deepEqual(created.json.spec.finalizers, ['example.com/hold', 'kubernetes']);
    // Canonicalize set it after the field manager ran: nobody owns the label of a generated name. The
    // creator owns generateName (not in the stripped metadata fields) and its finalizer list.
    assert.deepEqual(
      created.json.metadata.managedFields.map((e: { manager: string; fieldsV1: unknown }) => [e.manager, e.fieldsV1]),
      [['raw-http', { 'f:metadata': { 'f:generateName': {} }, 'f:spec': { 'f:finalizers': {} } }]],
    );
  });

  it('the label cannot be changed or removed: kubectl label --overwrite, a merge patch deleting it, a PUT without it', async () => {
    await t.kubectlOk(['label', 'namespace', 'team-a', `${LABEL}=other`, '--overwrite']);
    assert.equal(ns('team-a')!.metadata.labels![LABEL], 'team-a');
    await t.kubectlOk(['patch', 'namespace', 'team-a', '--type=merge', '-p', JSON.stringify({ metadata: { labels: { [LABEL]: null, extra: 'x' } } })]);
    assert.deepEqual(ns('team-a')!.metadata.labels, { [LABEL]: 'team-a', extra: 'x' });
    const body = { ...ns('team-a')!, metadata: { ...ns('team-a')!.metadata, labels: {} } };
    const put = await rawRequest(t, 'PUT', `${NS}/team-a`, JSON.stringify(body), { 'Content-Type': 'application/json' });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.json.metadata.labels, { [LABEL]: 'team-a' });
  });

  it('spec.finalizers and status change only through /finalize and /status; GET or PATCH on /finalize is 405', async () => {
    const live = ns('team-a')!;
    const put = await rawRequest(t, 'PUT', `${NS}/team-a`, JSON.stringify({ ...live, spec: { finalizers: ['example.com/x'] }, status: { phase: 'Terminating' } }), { 'Content-Type': 'application/json' });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.json.spec, { finalizers: ['kubernetes'] });
    assert.deepEqual(put.json.status, { phase: 'Active' });

    const fin = await rawRequest(t, 'PUT', `${NS}/team-a/finalize`, JSON.stringify({ ...ns('team-a')!, spec: { finalizers: ['kubernetes', 'example.com/x'] }, status: { phase: 'Terminating' } }), { 'Content-Type': 'application/json' });
    assert.equal(fin.status, 200, fin.text);
    assert.deepEqual(fin.json.spec.finalizers, ['kubernetes', 'example.com/x']);
    assert.deepEqual(fin.json.status, { phase: 'Active' });
    const entry = fin.json.metadata.managedFields.find((e: { subresource?: string }) => e.subresource === 'finalize');
    assert.ok(entry, 'the finalize write is recorded with its subresource');

    for (const method of ['GET', 'PATCH']) {
      const r = await rawRequest(t, method, `${NS}/team-a/finalize`, method === 'PATCH' ? '{}' : undefined, { 'Content-Type': 'application/merge-patch+json' });
      assert.equal(r.status, 405, `${method}: ${r.text}`);
    }
    const discovery = JSON.parse(await t.kubectlOk(['get', '--raw', '/api/v1']));
    const finalize = discovery.resources.find((r: { name: string }) => r.name === 'namespaces/finalize');
    assert.deepEqual(finalize.verbs, ['update']);
  });

  it('validateFinalizerName: a finalizer without a / must be a standard one (422 naming the field)', async () => {
    const create = await rawRequest(t, 'POST', NS, JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bad-fin' }, spec: { finalizers: ['hold'] } }), { 'Content-Type': 'application/json' });
    assert.equal(create.status, 422);
    assert.equal(create.json.message, 'Namespace "bad-fin" is invalid: spec.finalizers: Invalid value: "hold": name is neither a standard finalizer name nor is it fully qualified');
    const fin = await rawRequest(t, 'PUT', `${NS}/team-a/finalize`, JSON.stringify({ ...ns('team-a')!, spec: { finalizers: ['kubernetes', 'hold'] } }), { 'Content-Type': 'application/json' });
    assert.equal(fin.status, 422);
    assert.equal(fin.json.message, 'Namespace "team-a" is invalid: spec.finalizers[1]: Invalid value: "hold": name is neither a standard finalizer name nor is it fully qualified');
  });

  it('delete: Terminating at once, content removed, then the namespace controller drops kubernetes; another finalizer holds it', async () => {
    await t.kubectlOk(['create', 'configmap', 'inside', '-n', 'team-a', '--from-literal=k=v']);
    const del = await rawRequest(t, 'DELETE', `${NS}/team-a`);
    assert.equal(del.status, 200, del.text);
    assert.equal(del.json.status.phase, 'Terminating');
    assert.ok(del.json.metadata.deletionTimestamp);

    const denied = await t.kubectl(['create', 'configmap', 'late', '-n', 'team-a']);
    assert.match(denied.stderr, /unable to create new content in namespace team-a because it is being terminated/);

    // Content goes, `kubernetes` goes, example.com/x (set through /finalize above) stays.
    await eventually(() => spec(ns('team-a'))?.finalizers?.join() === 'example.com/x', 'the namespace controller to finalize its part');
    assert.equal(t.emulator.store.get(KINDS.configMap, 'team-a', 'inside'), undefined);
    assert.equal(ns('team-a')!.status!['phase' as never], 'Terminating');
    const again = await rawRequest(t, 'DELETE', `${NS}/team-a`);
    assert.equal(again.status, 200, 'deleting a Terminating namespace answers it as it is');

    const fin = await rawRequest(t, 'PUT', `${NS}/team-a/finalize`, JSON.stringify({ ...ns('team-a')!, spec: { finalizers: [] } }), { 'Content-Type': 'application/json' });
    assert.equal(fin.status, 200, fin.text);
    await eventually(() => !ns('team-a'), 'the finalized namespace to go');
  });

  it('NamespaceLifecycle: default and kube-system may not be deleted (403); a missing namespace takes no content (404)', async () => {
    for (const name of ['default', 'kube-system']) {
      const r = await rawRequest(t, 'DELETE', `${NS}/${name}`);
      assert.equal(r.status, 403);
      assert.equal(r.json.message, `namespaces "${name}" is forbidden: this namespace may not be deleted`);
      assert.deepEqual(r.json.details, { name, kind: 'namespaces' });
    }
    const missing = await t.kubectl(['create', 'configmap', 'x', '-n', 'nowhere']);
    assert.match(missing.stderr, /namespaces "nowhere" not found/);
  });
});
