/**
 * The objects and documents GuestClusterCredentials makes, pinned field by field against what Harvester's generator
 * makes (docs/design/guest-cloud-provider.md §"Its credentials"; harvester/harvester
 * pkg/api/kubeconfig/generate_handler.go): names (wrangler SafeConcatName), owner references, role refs, subjects,
 * the token Secret's type and annotations, the kubeconfig's shape and the cloud-init write_files.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { parse } from 'yaml';
import {
  credentialNames, desiredClusterRoleBinding, desiredRoleBinding, desiredServiceAccount, desiredTokenSecret, guestWriteFiles, renderCloudInit,
  renderKubeconfig, safeConcatName, validateInputs,
} from '../../../../provider/resources/guest-cluster-credentials';
import type { GuestClusterCredentialsInputs } from '../../../../provider/resources/guest-cluster-credentials';

const inputs = validateInputs({ clusterName: 'gc4', namespace: 'gc-test' }).inputs as GuestClusterCredentialsInputs;
const sa = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'gc4', namespace: 'gc-test', uid: 'uid-1' } };
const ownerRef = [{ apiVersion: 'v1', kind: 'ServiceAccount', name: 'gc4', uid: 'uid-1' }];

describe('GuestClusterCredentials: the objects Harvester\'s generator makes', () => {
  it('names the ServiceAccount after the guest cluster by default (Harvester\'s docs: it must match)', () => {
    assert.equal(inputs.serviceAccountName, 'gc4');
    assert.equal(validateInputs({ clusterName: 'gc4', namespace: 'gc-test', serviceAccountName: 'other' }).inputs?.serviceAccountName, 'other');
  });

  it('names the token Secret <sa>-token and both bindings <namespace>-<sa>, shortened as wrangler SafeConcatName does', () => {
    assert.deepEqual(credentialNames('gc-test', 'gc4'), { serviceAccount: 'gc4', tokenSecret: 'gc4-token', roleBinding: 'gc-test-gc4', clusterRoleBinding: 'gc-test-gc4' });
    const long = 'a'.repeat(40);
    const full = `${long}-${long}`;
    const digest = createHash('sha256').update(full).digest('hex');
    assert.equal(safeConcatName(long, long), `${full.slice(0, 57)}-${digest.slice(0, 5)}`);
    // The 57th character is "-": cut at 56 and 6 hex digits, so the name still ends in a letter or digit.
    const dashAt56 = `${'b'.repeat(56)}-${'c'.repeat(10)}`;
    const d2 = createHash('sha256').update(dashAt56).digest('hex');
    assert.equal(safeConcatName('b'.repeat(56), 'c'.repeat(10)), `${'b'.repeat(56)}-${d2.slice(0, 6)}`);
    assert.equal(safeConcatName('x'.repeat(31), 'y'.repeat(31)).length, 63, 'below 64 characters nothing is cut');
  });

  it('makes the ServiceAccount in the VMs\' namespace', () => {
    const made = desiredServiceAccount(inputs);
    assert.equal(made.apiVersion, 'v1');
    assert.equal(made.kind, 'ServiceAccount');
    assert.equal(made.metadata.name, 'gc4');
    assert.equal(made.metadata.namespace, 'gc-test');
  });

  it('makes the token Secret: type service-account-token, the two service-account annotations, owned by the ServiceAccount', () => {
    const secret = desiredTokenSecret(inputs, sa);
    assert.equal(secret.type, 'kubernetes.io/service-account-token');
    assert.equal(secret.metadata.name, 'gc4-token');
    assert.equal(secret.metadata.namespace, 'gc-test');
    assert.equal(secret.metadata.annotations?.['kubernetes.io/service-account.name'], 'gc4');
    assert.equal(secret.metadata.annotations?.['kubernetes.io/service-account.uid'], 'uid-1');
    assert.deepEqual(secret.metadata.ownerReferences, ownerRef);
    assert.equal(secret.data, undefined, 'the token controller fills it');
  });

  it('binds harvesterhci.io:cloudprovider by a RoleBinding in the namespace, harvesterhci.io:csi-driver by a ClusterRoleBinding', () => {
    const subjects = [{ kind: 'ServiceAccount', namespace: 'gc-test', name: 'gc4' }];
    const rb = desiredRoleBinding(inputs, sa);
    assert.equal(rb.apiVersion, 'rbac.authorization.k8s.io/v1');
    assert.equal(rb.kind, 'RoleBinding');
    assert.equal(rb.metadata.name, 'gc-test-gc4');
    assert.equal(rb.metadata.namespace, 'gc-test');
    assert.deepEqual(rb.metadata.ownerReferences, ownerRef);
    assert.deepEqual(rb.subjects, subjects);
    assert.deepEqual(rb.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'harvesterhci.io:cloudprovider' });
    const crb = desiredClusterRoleBinding(inputs, sa);
    assert.equal(crb.kind, 'ClusterRoleBinding');
    assert.equal(crb.metadata.name, 'gc-test-gc4');
    assert.equal(crb.metadata.namespace, undefined);
    assert.deepEqual(crb.metadata.ownerReferences, ownerRef);
    assert.deepEqual(crb.subjects, subjects);
    assert.deepEqual(crb.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'harvesterhci.io:csi-driver' });
  });

  it('writes the kubeconfig as the generator does: cluster, user and context "default", CA data, token, the VMs\' namespace', () => {
    const text = renderKubeconfig({ server: 'https://10.0.0.10:6443', caBase64: 'Q0E=', token: 'tok', namespace: 'gc-test' });
    assert.deepEqual(parse(text), {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'default', cluster: { server: 'https://10.0.0.10:6443', 'certificate-authority-data': 'Q0E=' } }],
      users: [{ name: 'default', user: { token: 'tok' } }],
      contexts: [{ name: 'default', context: { cluster: 'default', user: 'default', namespace: 'gc-test' } }],
      'current-context': 'default',
      preferences: {},
    });
  });

  it('puts the kubeconfig base64 at both paths the guest reads, root:root, 0600 (the generator: 0644)', () => {
    const text = renderCloudInit('kubeconfig text');
    assert.ok(text.startsWith('#cloud-config\n'));
    const content = Buffer.from('kubeconfig text').toString('base64');
    const expected = ['/etc/kubernetes/cloud-config', '/var/lib/rancher/rke2/etc/config-files/cloud-provider-config'].map((path) => ({ encoding: 'b64', content, owner: 'root:root', path, permissions: '0600' }));
    assert.deepEqual(parse(text), { write_files: expected });
    assert.deepEqual(guestWriteFiles('kubeconfig text'), expected);
  });
});
