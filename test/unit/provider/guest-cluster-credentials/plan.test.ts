/** GuestClusterCredentials' pure rules: check's model rules, read-back as inputs, drift lines, diff, rotation, adoption. */
import assert from 'node:assert/strict';
import { desiredClusterRoleBinding, desiredRoleBinding, desiredServiceAccount, desiredTokenSecret, validateInputs } from '../../../../provider/resources/guest-cluster-credentials';
import type { GuestClusterCredentialsInputs } from '../../../../provider/resources/guest-cluster-credentials';
import { adoptableUid, driftOf, isOurs, liveInputs, rotates, toOutputs, credentialsOwner } from '../../../../provider/resources/guest-cluster-credentials/plan';
import { guestClusterCredentialsResource } from '../../../../provider/resources/guest-cluster-credentials/handlers';
import { diffOf } from '../../../../provider/core/reconciler/reconciler';

const diffInputs = diffOf(guestClusterCredentialsResource);
import { UNKNOWN } from '../../../../provider/core/unknowns';

const inputs = validateInputs({ clusterName: 'gc4', namespace: 'gc-test', rotationTrigger: 'v1' }).inputs as GuestClusterCredentialsInputs;
const sa = { ...desiredServiceAccount(inputs), metadata: { ...desiredServiceAccount(inputs).metadata, uid: 'uid-1' } };
const filled = (trigger = 'v1') => {
  const s = desiredTokenSecret({ ...inputs, rotationTrigger: trigger }, sa);
  return { ...s, metadata: { ...s.metadata, uid: 'sec-1' }, data: { token: Buffer.from('the-token').toString('base64'), 'ca.crt': 'Q0E=' } };
};
const live = () => ({ serviceAccount: sa, tokenSecret: filled(), roleBinding: desiredRoleBinding(inputs, sa), clusterRoleBinding: desiredClusterRoleBinding(inputs, sa) });

describe('GuestClusterCredentials plan', () => {
  it('check refuses names that are not DNS names, naming the input', () => {
    const v = validateInputs({ clusterName: 'Guest_1', namespace: 'a/b', serviceAccountName: 'UPPER' });
    assert.deepEqual(v.failures.map((f) => f.property).sort(), ['clusterName', 'namespace', 'serviceAccountName']);
    assert.ok(validateInputs({ clusterName: 'g', namespace: 'n', serverUrl: 'http://x' }).failures.some((f) => f.property === 'serverUrl'));
  });

  it('at preview an unknown clusterName leaves the derived serviceAccountName unknown, not absent', () => {
    const v = validateInputs({ clusterName: UNKNOWN, namespace: 'n' });
    assert.equal(v.previewInputs?.serviceAccountName, UNKNOWN);
  });

  it('reads the live objects back as the inputs that made them; no drift', () => {
    assert.deepEqual(liveInputs(inputs, live()), inputs);
    assert.deepEqual(driftOf(inputs, live()), []);
  });

  it('a ClusterRoleBinding deleted or edited by hand reads as bindCsiDriverRole false, with a drift line', () => {
    for (const crb of [undefined, { ...live().clusterRoleBinding, subjects: [] }]) {
      const l = { ...live(), clusterRoleBinding: crb };
      assert.equal(liveInputs(inputs, l).bindCsiDriverRole, false);
      assert.match(driftOf(inputs, l).join('\n'), /ClusterRoleBinding gc-test-gc4: bindCsiDriverRole is false/);
    }
  });

  it('a RoleBinding or token Secret deleted by hand is a drift line; diff then reports a change (up heals it)', () => {
    const drift = driftOf(inputs, { ...live(), roleBinding: undefined, tokenSecret: undefined });
    assert.equal(drift.length, 2);
    assert.match(drift[0], /Secret gc-test\/gc4-token: missing/);
    assert.match(drift[1], /RoleBinding gc-test\/gc-test-gc4: missing/);
    assert.ok(drift.every((line) => !line.includes('the-token')));
    assert.equal(diffInputs({ ...inputs, drift }, inputs).changes, true);
    assert.equal(diffInputs({ ...inputs, drift: [] }, inputs).changes, false);
  });

  it('outputs the kubeconfig with the live token and CA, and nothing while the token is not issued', () => {
    const outs = toOutputs(inputs, live(), 'https://10.0.0.10:6443');
    assert.match(outs.cloudConfig, /token: the-token/);
    assert.match(outs.cloudConfig, /certificate-authority-data: Q0E=/);
    assert.match(outs.cloudInit, /^#cloud-config\nwrite_files:/);
    assert.equal(outs.serviceAccountUid, 'uid-1');
    const empty = toOutputs(inputs, { ...live(), tokenSecret: undefined }, 'https://x');
    assert.equal(empty.cloudConfig, '');
    assert.equal(empty.cloudInit, '');
  });

  it('diff: namespace and serviceAccountName replace (also through a clusterName that derives it); other inputs update', () => {
    const rename = validateInputs({ clusterName: 'gc5', namespace: 'gc-test', rotationTrigger: 'v1' }).inputs!;
    assert.deepEqual(diffInputs(inputs, rename).replaces, ['serviceAccountName']);
    const explicit = { ...inputs, serviceAccountName: 'gc4', clusterName: 'gc5' };
    assert.deepEqual(diffInputs(inputs, explicit), { changes: true, replaces: [] });
    assert.deepEqual(diffInputs(inputs, { ...inputs, namespace: 'other' }).replaces, ['namespace']);
    assert.deepEqual(diffInputs(inputs, { ...inputs, rotationTrigger: 'v2' }), { changes: true, replaces: [] });
  });

  it('an import (no timeouts recorded) takes them from the program: no change; a serverUrl the objects do not record is one', () => {
    const { timeouts: _t, ...imported } = inputs;
    assert.equal(diffInputs(imported, inputs).changes, false);
    assert.equal(diffInputs(imported, { ...inputs, serverUrl: 'https://10.0.0.10:6443' }).changes, true, 'the next up writes it into the outputs');
  });

  it('reads serverUrl and rotationTrigger back from the token Secret; an edited annotation is drift', () => {
    const withUrl = { ...inputs, serverUrl: 'https://10.0.0.10:6443' };
    const secret = { ...desiredTokenSecret(withUrl, sa), data: filled().data };
    assert.deepEqual(liveInputs(withUrl, { ...live(), tokenSecret: secret }), withUrl);
    const edited = { ...secret, metadata: { ...secret.metadata, annotations: { ...secret.metadata.annotations, 'harvester-iac.io/server-url': 'https://elsewhere' } } };
    assert.match(driftOf(withUrl, { ...live(), tokenSecret: edited }).join('\n'), /serverUrl is "https:\/\/elsewhere"/);
  });

  it('rotates when the trigger differs from the one the live Secret was issued under, on a Secret of ours only', () => {
    assert.equal(rotates(inputs, filled('v1')), false);
    assert.equal(rotates({ ...inputs, rotationTrigger: 'v2' }, filled('v1')), true);
    assert.equal(rotates({ ...inputs, rotationTrigger: undefined }, filled('v1')), true);
    const adopted = { ...filled('v1'), metadata: { ...filled('v1').metadata, labels: {} } };
    assert.equal(rotates({ ...inputs, rotationTrigger: 'v2' }, adopted), false, 'the first write after an import records the trigger');
  });

  it('adopts, on an update of the same ServiceAccount, the set the generator made (its token Secret owned by it); never on create', () => {
    const bare = (o: { metadata: Record<string, unknown> }) => ({ ...o, metadata: { ...o.metadata, labels: {} } });
    const generatorMade = { serviceAccount: bare(sa), tokenSecret: bare(filled()), roleBinding: bare(desiredRoleBinding(inputs, sa)) };
    assert.equal(adoptableUid(inputs, inputs, generatorMade as never), 'uid-1');
    assert.equal(adoptableUid({}, inputs, generatorMade as never), undefined);
    assert.equal(adoptableUid(inputs, inputs, { serviceAccount: bare(sa) } as never), undefined, 'a lone ServiceAccount is someone else\'s');
    const owner = credentialsOwner(inputs);
    assert.equal(isOurs(generatorMade.roleBinding as never, owner, 'uid-1'), true);
    assert.equal(isOurs(generatorMade.roleBinding as never, owner, undefined), false);
    assert.equal(isOurs(desiredRoleBinding(inputs, sa), owner), true);
  });
});
