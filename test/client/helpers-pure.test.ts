/**
 * The client's small pure helpers, at their edges: containment of desired in live (what "our create landed"
 * means), value rendering, label-safe owner names and the words of an ownership refusal, the secret registry,
 * and the error family's own bookkeeping.
 */
import assert from 'node:assert/strict';
import { describeObject } from '../../provider/client/from-api-exception';
import { KINDS, collectionPath } from '../../provider/client/kinds';
import { HarvesterError, NotFoundError, isHarvesterError } from '../../provider/client/errors';
import { KubeObject } from '../../provider/client/objects';
import { comparable, deepEqual, firstDifference, show, writableCopy } from '../../provider/client/object-utils';
import { RESOURCE_NAME_ANNOTATION, isOwnedBy, labelSafe, notOwnedError, ownerOf, stampOwnership } from '../../provider/client/ownership';
import { REDACTED, clearRegisteredSecrets, redact, registerSecret } from '../../provider/client/redact';

describe('object helpers (pure)', () => {
  it('firstDifference: arrays element by element, live may be longer but not shorter', () => {
    assert.equal(firstDifference([1, { a: 2 }], [1, { a: 2, b: 3 }, 9]), undefined);
    assert.deepEqual(firstDifference([1, 2], [1]), { path: '.', desired: [1, 2], live: [1] });
    assert.deepEqual(firstDifference({ l: [1, 2] }, { l: [1, 3] }), { path: 'l[1]', desired: 2, live: 3 });
    assert.deepEqual(firstDifference({ l: [{ x: 1 }] }, { l: [{ x: 2 }] }), { path: 'l[0].x', desired: 1, live: 2 });
    assert.deepEqual(firstDifference({ l: [1] }, { l: 'x' }), { path: 'l', desired: [1], live: 'x' });
    assert.deepEqual(firstDifference([], {}), { path: '.', desired: [], live: {} });
  });

  it('firstDifference: an object against null, a scalar or an array is a difference at that path', () => {
    assert.deepEqual(firstDifference({ a: { b: 1 } }, { a: null }), { path: 'a', desired: { b: 1 }, live: null });
    assert.deepEqual(firstDifference({ a: { b: 1 } }, { a: 5 }), { path: 'a', desired: { b: 1 }, live: 5 });
    assert.deepEqual(firstDifference({ a: { b: 1 } }, { a: [] }), { path: 'a', desired: { b: 1 }, live: [] });
    assert.deepEqual(firstDifference({}, null), { path: '.', desired: {}, live: null });
    assert.deepEqual(firstDifference(null, {}), { path: '.', desired: null, live: {} });
    assert.equal(firstDifference(null, null), undefined);
    assert.deepEqual(firstDifference(1, 2), { path: '.', desired: 1, live: 2 });
    assert.equal(firstDifference({ a: undefined }, {}), undefined, 'an unset desired field is no requirement');
  });

  it('deepEqual tells arrays from objects with the same keys', () => {
    assert.equal(deepEqual([1], { 0: 1 }), false);
    assert.equal(deepEqual({ 0: 1 }, [1]), false);
    assert.equal(deepEqual({ a: 1, b: undefined }, { a: 1 }), true);
  });

  it('comparable keeps name, namespace, labels and annotations only, and drops apiVersion and status', () => {
    const c = comparable({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'n', namespace: 'ns', labels: { a: 'b' }, annotations: { c: 'd' }, uid: 'u', resourceVersion: '1', finalizers: ['f'] },
      status: { x: 1 },
      data: { k: 'v' },
    } as never);
    assert.deepEqual(c, { kind: 'Secret', metadata: { name: 'n', namespace: 'ns', labels: { a: 'b' }, annotations: { c: 'd' } }, data: { k: 'v' } });
  });

  it('show renders values on one short line', () => {
    assert.equal(show(undefined), 'unset');
    assert.equal(show('a'), '"a"');
    assert.equal(show('x'.repeat(78)), `"${'x'.repeat(78)}"`, '80 characters are kept whole');
    assert.equal(show('x'.repeat(79)), `"${'x'.repeat(76)}...`, 'longer ones are cut to 80 with an ellipsis');
  });
});

describe('writable copies (pure)', () => {
  it('drop status and every server-owned metadata field, keeping the rest', () => {
    const server = { uid: 'u', resourceVersion: '7', generation: 2, creationTimestamp: 't', deletionTimestamp: 't', deletionGracePeriodSeconds: 30, managedFields: [], selfLink: '/x' };
    const obj = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'n', labels: { a: 'b' }, ...server }, status: { x: 1 }, data: { k: 'dg==' } };
    assert.deepEqual(writableCopy(obj as KubeObject), { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'n', labels: { a: 'b' } }, data: { k: 'dg==' } });
    assert.equal(obj.metadata.uid, 'u', 'the original is untouched');
  });
});

describe('ownership helpers (pure)', () => {
  it('labelSafe keeps valid values and turns others into a cleaned prefix plus a stable hash', () => {
    assert.equal(labelSafe('pool-a'), 'pool-a');
    const odd = labelSafe('--My Pool/v2!!');
    assert.match(odd, /^My-Pool-v2-[0-9a-f]{10}$/);
    assert.equal(labelSafe('--My Pool/v2!!'), odd, 'stable');
    const long = labelSafe(`a${'b'.repeat(80)}.`);
    assert.match(long, /^ab+-[0-9a-f]{10}$/);
    assert.equal(long.length, 63);
    assert.match(labelSafe('x_y.'), /^x_y-[0-9a-f]{10}$/, 'underscores and dots are kept inside, trailing ones dropped');
    assert.match(labelSafe('!!!'), /^[0-9a-f]{10}$/, 'nothing usable left: the hash alone');
  });

  it('a shortened owner name is recorded in an annotation next to existing ones, and settles ownership', () => {
    const owner = { resourceType: 'machine-pool', resourceName: 'Team Pool/One' };
    const stamped = stampOwnership({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', annotations: { keep: 'me' } } }, owner);
    assert.deepEqual(stamped.metadata.annotations, { keep: 'me', [RESOURCE_NAME_ANNOTATION]: 'Team Pool/One' });
    const bare = stampOwnership<KubeObject>({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } }, owner);
    assert.deepEqual(bare.metadata.annotations, { [RESOURCE_NAME_ANNOTATION]: 'Team Pool/One' });
    assert.deepEqual(ownerOf(bare), { resourceType: 'machine-pool', resourceName: 'Team Pool/One' });
    assert.equal(isOwnedBy(bare, owner), true);
    assert.equal(isOwnedBy(bare, { ...owner, resourceName: 'Team Pool/Two' }), false);
  });

  it('the refusal names the object, its real owner and both kubectl commands', () => {
    const owner = { resourceType: 'machine-pool', resourceName: 'Team Pool' };
    const theirs = stampOwnership({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1', namespace: 'ns' } }, { resourceType: 'load-balancer', resourceName: 'lb' });
    const err = notOwnedError(theirs, owner, 'delete');
    const safe = labelSafe('Team Pool');
    assert.equal(
      err.message,
      'Refusing to delete Secret ns/s1: it belongs to another harvester-iac resource (load-balancer "lb"), so machine-pool "Team Pool" must not change it. ' +
        'Choose another name for the new object; or, to adopt this one, label it: ' +
        `\`kubectl label -n ns secret s1 --overwrite app.kubernetes.io/managed-by=harvester-iac harvester-iac.io/resource-type=machine-pool harvester-iac.io/resource-name=${safe}\`` +
        ` and \`kubectl annotate -n ns secret s1 --overwrite ${RESOURCE_NAME_ANNOTATION}="Team Pool"\`.`,
    );
    const foreign = notOwnedError({ apiVersion: 'v1', metadata: { name: 'ip1', labels: { 'app.kubernetes.io/managed-by': 'helm' } } }, { resourceType: 'ip-pool', resourceName: 'ip1' }, 'update');
    assert.equal(
      foreign.message,
      'Refusing to update Object ip1: it is not managed by harvester-iac (label app.kubernetes.io/managed-by is "helm"), so ip-pool "ip1" must not change it. ' +
        'Choose another name for the new object; or, to adopt this one, label it: ' +
        '`kubectl label object ip1 --overwrite app.kubernetes.io/managed-by=harvester-iac harvester-iac.io/resource-type=ip-pool harvester-iac.io/resource-name=ip1`.',
    );
    const partial = notOwnedError({ apiVersion: 'v1', metadata: { name: 'x', labels: { 'app.kubernetes.io/managed-by': 'harvester-iac' } } }, owner, 'patch', 'IPPool');
    assert.match(partial.message, /^Refusing to patch IPPool x: it belongs to another harvester-iac resource \(\? "\?"\)/);
    assert.match(partial.message, /`kubectl label ippool x /);
  });
});

describe('secret registry (pure)', () => {
  afterEach(() => clearRegisteredSecrets());

  it('registers each line of 16+ characters of a multi-line secret, trimmed; shorter lines stay readable', () => {
    registerSecret('#cloud-config\n   password: abcdefghijklmnop   \nshort line here\n');
    assert.equal(redact('line "password: abcdefghijklmnop" quoted'), `line "${REDACTED}" quoted`);
    assert.equal(redact('x short line here'), 'x short line here', 'a 15-character line is not a secret by itself');
  });

  it('a line of exactly 16 characters counts', () => {
    registerSecret('first line here.\n0123456789abcdef\n');
    assert.equal(redact('got 0123456789abcdef'), `got ${REDACTED}`);
  });

  it('extra secrets of 6+ characters are removed for one call only', () => {
    assert.equal(redact('token-ish abcdef and abcde', ['abcdef', 'abcde', 7 as never]), `token-ish ${REDACTED} and abcde`);
    assert.equal(redact('abcdef again'), 'abcdef again');
  });

  it('a bearer credential keeps its scheme word', () => {
    assert.equal(redact('sent Bearer abc.def-123456'), `sent Bearer ${REDACTED}`);
  });

  it('clearRegisteredSecrets forgets them', () => {
    registerSecret('forget-me-please');
    assert.equal(redact('forget-me-please'), REDACTED);
    clearRegisteredSecrets();
    assert.equal(redact('forget-me-please'), 'forget-me-please');
  });
});

describe('error family bookkeeping (pure)', () => {
  it('one attempt is not "gave up after"; two are', () => {
    const e = new HarvesterError({ code: 'Unavailable', summary: 'down', fix: 'retry' });
    assert.equal(e.withAttempts(1).message, 'down. retry.');
    assert.equal(e.withAttempts(2).message, 'down. Gave up after 2 attempts. retry.');
  });

  it('toJSON is the plain, secret-free view', () => {
    const e = new NotFoundError({ code: 'NotFound', summary: 'gone', object: 'Secret a/b', httpStatus: 404 }).withAttempts(3);
    assert.deepEqual(JSON.parse(JSON.stringify(e)), { name: 'NotFoundError', code: 'NotFound', message: 'gone. Gave up after 3 attempts.', object: 'Secret a/b', causes: [], httpStatus: 404, attempts: 3 });
  });

  it('isHarvesterError narrows by code, any code when none is given', () => {
    const e = new HarvesterError({ code: 'Conflict', summary: 'x' });
    assert.equal(isHarvesterError(e), true);
    assert.equal(isHarvesterError(e, 'Conflict'), true);
    assert.equal(isHarvesterError(e, 'NotFound', 'Conflict'), true);
    assert.equal(isHarvesterError(e, 'NotFound'), false);
    assert.equal(isHarvesterError(new Error('x')), false);
  });
});

describe('paths and names of kinds (pure)', () => {
  it('a namespace goes into the path and the name of namespaced kinds only', () => {
    assert.equal(collectionPath(KINDS.IPPool, 'default'), '/apis/loadbalancer.harvesterhci.io/v1beta1/ippools');
    assert.equal(collectionPath(KINDS.Service, 'team a'), '/api/v1/namespaces/team%20a/services');
    assert.equal(collectionPath(KINDS.Service), '/api/v1/services');
    assert.equal(describeObject(KINDS.IPPool, 'default', 'p1'), 'IPPool p1');
    assert.equal(describeObject(KINDS.Service, 'ns', 's1'), 'Service ns/s1');
    assert.equal(describeObject(KINDS.Service, undefined, 's1'), 'Service s1');
  });
});
