/**
 * GuestClusterCredentials' pure rules, pinned case by case: which objects are ours (labels, or owned by the
 * ServiceAccount an import adopted), when a live binding still grants what ours grants, the token wait's verdicts,
 * the drift lines word for word, and the preview of a derived serviceAccountName.
 */
import assert from 'node:assert/strict';
import {
  desiredClusterRoleBinding, desiredRoleBinding, desiredServiceAccount, desiredTokenSecret, validateInputs,
  type GuestClusterCredentialsInputs,
} from '../../../../provider/resources/guest-cluster-credentials';
import { adoptableUid, bindingHolds, credentialsOwner, driftOf, isOurs, tokenReadiness, toOutputs } from '../../../../provider/resources/guest-cluster-credentials/plan';
import type { KubeObject, RoleBinding } from '../../../../provider/client/objects';
import { UNKNOWN } from '../../../../provider/core/unknowns';

const inputs = validateInputs({ clusterName: 'gc4', namespace: 'gc-test' }).inputs as GuestClusterCredentialsInputs;
const sa = { ...desiredServiceAccount(inputs), metadata: { ...desiredServiceAccount(inputs).metadata, uid: 'uid-1' } };
const filledSecret = () => {
  const s = desiredTokenSecret(inputs, sa);
  return { ...s, metadata: { ...s.metadata, uid: 'sec-1' }, data: { token: Buffer.from('the-token').toString('base64'), 'ca.crt': 'Q0E=' } };
};
const live = () => ({ serviceAccount: sa, tokenSecret: filledSecret(), roleBinding: desiredRoleBinding(inputs, sa), clusterRoleBinding: desiredClusterRoleBinding(inputs, sa) });
/** An object without our labels (what Harvester's generator or Rancher made), with the given uid and owner references. */
const bare = (uid: string, ownerReferences?: { kind: string; uid: string }[]): KubeObject =>
  ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x', namespace: 'gc-test', uid, ...(ownerReferences ? { ownerReferences: ownerReferences.map((r) => ({ apiVersion: 'v1', name: 'gc4', ...r })) } : {}) } }) as KubeObject;

describe('GuestClusterCredentials ownership and binding rules', () => {
  const owner = credentialsOwner(inputs);

  it('stamps every object with the owner gc-test/gc4 (the resource id): labels, and the exact name in an annotation', () => {
    assert.deepEqual(desiredServiceAccount(inputs), {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: {
        name: 'gc4',
        namespace: 'gc-test',
        annotations: { 'harvester-iac.io/guest-cluster': 'gc4', 'harvester-iac.io/resource-name': 'gc-test/gc4' },
        labels: { 'app.kubernetes.io/managed-by': 'harvester-iac', 'harvester-iac.io/resource-type': 'guest-cluster-credentials', 'harvester-iac.io/resource-name': desiredServiceAccount(inputs).metadata.labels!['harvester-iac.io/resource-name'] },
      },
    });
    assert.match(desiredServiceAccount(inputs).metadata.labels!['harvester-iac.io/resource-name'], /^gc-test-gc4-[0-9a-f]{10}$/);
  });

  it('an adopted set is ours through the recorded ServiceAccount uid: the ServiceAccount itself, or an object it owns', () => {
    assert.equal(isOurs(bare('uid-1'), owner, 'uid-1'), true, 'the ServiceAccount itself');
    assert.equal(isOurs(bare('other'), owner, 'uid-1'), false, 'no owner reference at all');
    assert.equal(isOurs(bare('other', [{ kind: 'ServiceAccount', uid: 'uid-1' }]), owner, 'uid-1'), true);
    assert.equal(isOurs(bare('other', [{ kind: 'ServiceAccount', uid: 'uid-2' }]), owner, 'uid-1'), false, 'owned by another ServiceAccount');
    assert.equal(isOurs(bare('other', [{ kind: 'Secret', uid: 'uid-1' }]), owner, 'uid-1'), false, 'an owner of another kind with that uid');
    assert.equal(isOurs(bare('other', [{ kind: 'ConfigMap', uid: 'cm' }, { kind: 'ServiceAccount', uid: 'uid-1' }]), owner, 'uid-1'), true, 'one of several owners');
    assert.equal(isOurs(bare('uid-1'), owner, undefined), false, 'nothing adopted: labels only');
  });

  it('a live binding holds while its roleRef and its ServiceAccount subject are exactly ours', () => {
    const desired = desiredRoleBinding(inputs, sa);
    const edited = (change: Partial<RoleBinding>) => ({ ...desired, ...change }) as RoleBinding;
    const subject = desired.subjects![0];
    assert.equal(bindingHolds(desired, desired), true);
    assert.equal(bindingHolds(undefined, desired), false);
    assert.equal(bindingHolds({ ...desired, metadata: { ...desired.metadata, deletionTimestamp: '2025-01-01T00:00:00Z' } }, desired), false, 'being deleted');
    for (const roleRef of [{ ...desired.roleRef, kind: 'Role' }, { ...desired.roleRef, name: 'view' }, { ...desired.roleRef, apiGroup: 'example.com' }]) {
      assert.equal(bindingHolds(edited({ roleRef }), desired), false, JSON.stringify(roleRef));
    }
    for (const s of [{ ...subject, kind: 'User' }, { ...subject, name: 'other' }, { ...subject, namespace: 'other' }]) {
      assert.equal(bindingHolds(edited({ subjects: [s] }), desired), false, JSON.stringify(s));
    }
    assert.equal(bindingHolds(edited({ subjects: [{ ...subject, name: 'other' }, subject] }), desired), true, 'one subject among others');
    assert.equal(bindingHolds(edited({ subjects: undefined }), desired), false, 'no subjects');
  });

  it('adopts only for the same ServiceAccount, and only when its token Secret names that ServiceAccount as owner', () => {
    const unlabelled = <T extends KubeObject>(o: T, ownerReferences?: { kind: string; uid: string }[]): T =>
      ({ ...o, metadata: { ...o.metadata, labels: {}, ...(ownerReferences ? { ownerReferences: ownerReferences.map((r) => ({ apiVersion: 'v1', name: 'gc4', ...r })) } : {}) } });
    const made = { serviceAccount: unlabelled(sa), tokenSecret: unlabelled(filledSecret()) };
    assert.equal(adoptableUid(inputs, inputs, made), 'uid-1');
    assert.equal(adoptableUid({ ...inputs, namespace: 'other' }, inputs, made), undefined, 'another namespace recorded');
    assert.equal(adoptableUid({ ...inputs, serviceAccountName: 'other' }, inputs, made), undefined, 'another ServiceAccount recorded');
    assert.equal(adoptableUid(inputs, inputs, { ...made, tokenSecret: unlabelled(filledSecret(), [{ kind: 'Secret', uid: 'uid-1' }]) }), undefined, 'an owner of another kind');
    assert.equal(adoptableUid(inputs, inputs, { ...made, tokenSecret: unlabelled(filledSecret(), [{ kind: 'ServiceAccount', uid: 'uid-2' }]) }), undefined, 'owned by another ServiceAccount');
  });
});

describe('GuestClusterCredentials token wait, drift lines and outputs', () => {
  it('the token wait is done once token and ca.crt are filled, and says what it waits for until then', () => {
    assert.deepEqual(tokenReadiness('gc4-token', filledSecret()), { done: true, description: 'Secret gc4-token holds a token and ca.crt' });
    const why = 'waiting for the token controller to fill token and ca.crt';
    assert.deepEqual(tokenReadiness('gc4-token', desiredTokenSecret(inputs, sa)), { done: false, description: `Secret gc4-token: ${why}`, pending: [why] });
    assert.deepEqual(tokenReadiness('gc4-token', undefined), { done: false, description: 'Secret gc4-token: the Secret does not exist yet', pending: ['the Secret does not exist yet'] });
  });

  it('names each object changed outside Pulumi and what the next up does, never quoting the token', () => {
    const renamed = { ...sa, metadata: { ...sa.metadata, annotations: { ...sa.metadata.annotations, 'harvester-iac.io/guest-cluster': 'gc9' } } };
    assert.deepEqual(driftOf(inputs, { ...live(), serviceAccount: renamed }), ['ServiceAccount gc-test/gc4: clusterName is "gc9", this resource set "gc4"']);
    const { data: _data, ...emptied } = filledSecret();
    assert.deepEqual(driftOf(inputs, { ...live(), tokenSecret: emptied }), ['Secret gc-test/gc4-token: holds no token; the next `pulumi up` issues a new token']);
    const rebound = { ...live().roleBinding, subjects: [{ kind: 'User', name: 'mallory' }] };
    assert.deepEqual(driftOf(inputs, { ...live(), roleBinding: rebound }), [
      'RoleBinding gc-test/gc-test-gc4: no longer binds harvesterhci.io:cloudprovider to ServiceAccount gc4 (edited outside Pulumi); the next `pulumi up` restores it',
    ]);
  });

  it('outputs no drift unless told, and an empty uid for a ServiceAccount the API has not given one yet', () => {
    assert.deepEqual(toOutputs(inputs, live(), 'https://x').drift, []);
    const { uid: _uid, ...metadata } = sa.metadata;
    assert.equal(toOutputs(inputs, { ...live(), serviceAccount: { ...sa, metadata } }, 'https://x').serviceAccountUid, '');
  });

  it('at preview an explicit serviceAccountName stays what it is, whatever else is unknown', () => {
    const v = validateInputs({ clusterName: 'gc4', namespace: UNKNOWN, serviceAccountName: 'explicit' });
    assert.equal(v.previewInputs?.serviceAccountName, 'explicit');
    assert.equal(validateInputs({ clusterName: 'gc4', namespace: UNKNOWN }).previewInputs?.serviceAccountName, 'gc4');
  });
});
