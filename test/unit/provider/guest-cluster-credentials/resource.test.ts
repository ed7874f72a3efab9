/**
 * GuestClusterCredentials on the reconciler, its pure parts: the ref an id or inputs name (namespace default),
 * how it is described, when the credentials exist, whether a live set is ours, which live objects are someone
 * else's (the ClusterRoleBinding only while bindCsiDriverRole), and the live objects read back as inputs when the
 * cluster no longer records an input.
 */
import assert from 'node:assert/strict';
import {
  desiredClusterRoleBinding, desiredRoleBinding, desiredServiceAccount, desiredTokenSecret, validateInputs,
  type GuestClusterCredentialsInputs, type GuestClusterCredentialsOutputs,
} from '../../../../provider/resources/guest-cluster-credentials';
import { guestClusterCredentialsResource as resource, type ObservedCredentials } from '../../../../provider/resources/guest-cluster-credentials/handlers';
import type { KubeObject } from '../../../../provider/client/objects';

const inputs = validateInputs({ clusterName: 'guest', serviceAccountName: 'sa-x', namespace: 'gc-test', serverUrl: 'https://10.0.0.10:6443' }).inputs as GuestClusterCredentialsInputs;
const sa = { ...desiredServiceAccount(inputs), metadata: { ...desiredServiceAccount(inputs).metadata, uid: 'uid-1' } };
const ref = { namespace: 'gc-test', name: 'sa-x' };
const observed = (extra: Partial<ObservedCredentials> = {}): ObservedCredentials => ({
  serviceAccount: sa, tokenSecret: desiredTokenSecret(inputs, sa), roleBinding: desiredRoleBinding(inputs, sa), clusterRoleBinding: desiredClusterRoleBinding(inputs, sa), server: 'https://x', ...extra,
});
/** The same object with someone else's labels. */
const theirs = <T extends KubeObject>(o: T): T => ({ ...o, metadata: { ...o.metadata, labels: { 'app.kubernetes.io/managed-by': 'someone-else' }, ownerReferences: undefined } });
const none: Partial<GuestClusterCredentialsOutputs> = {};

describe('GuestClusterCredentials resource: refs, existence, ownership, read-back', () => {
  it('a ref or id without a namespace names the default namespace', () => {
    assert.deepEqual(resource.ref({ serviceAccountName: 'sa-x' }), { namespace: 'default', name: 'sa-x' });
    assert.deepEqual(resource.refInputs!({ name: 'sa-x' }), { namespace: 'default', serviceAccountName: 'sa-x' });
    assert.deepEqual(resource.ref(inputs), ref);
  });

  it('is described by its ServiceAccount', () => {
    assert.equal(resource.describe(ref), 'ServiceAccount gc-test/sa-x');
  });

  it('exists while its ServiceAccount does (leftovers alone are not the credentials)', () => {
    assert.equal(resource.exists!(observed()), true);
    assert.equal(resource.exists!(observed({ serviceAccount: undefined })), false);
  });

  it('a live set is ours when any one of its objects is, even beside someone else\'s', () => {
    assert.equal(resource.owns(observed({ serviceAccount: theirs(sa) }), ref, none), true);
    assert.equal(resource.owns({ serviceAccount: theirs(sa), server: 'https://x' }, ref, none), false);
  });

  it('someone else\'s ClusterRoleBinding under our name is in the way only while bindCsiDriverRole is true', () => {
    const crb = theirs(desiredClusterRoleBinding(inputs, sa));
    const live = observed({ clusterRoleBinding: crb });
    assert.deepEqual(resource.foreign(live, ref, none, inputs), [crb]);
    assert.deepEqual(resource.foreign(live, ref, none, undefined), [crb], 'inputs not known yet: the default (true)');
    assert.deepEqual(resource.foreign(live, ref, none, { ...inputs, bindCsiDriverRole: false }), []);
  });

  it('reads back what the cluster no longer records from the recorded inputs: clusterName, serverUrl', () => {
    const { annotations: _a, ...metadata } = sa.metadata;
    const live = observed({ serviceAccount: { ...sa, metadata }, tokenSecret: undefined });
    const now = resource.liveInputs(live, inputs as GuestClusterCredentialsOutputs);
    assert.equal(now.clusterName, 'guest', 'not the ServiceAccount name');
    assert.equal(now.serverUrl, 'https://10.0.0.10:6443');
    assert.equal(now.bindCsiDriverRole, true);
  });
});
