import assert from 'node:assert/strict';
import {
  acceptedPatchTypes,
  applyJsonPatch,
  applyMergePatch,
  applyStrategicMergePatch,
  checkPatchTypeAllowed,
  mergePatch,
  patchTypeOf,
} from '../../../../../emulator/api/patch';
import { expectStatus } from '../fixtures';

describe('patch: json-patch (RFC 6902)', () => {
  const doc = { metadata: { name: 'a', labels: { 'topology.kubernetes.io/zone': 'z1' } }, spec: { list: [1, 2] } };

  it('applies add/remove/replace/move/copy/test with JSON-pointer escaping', () => {
    const out = applyJsonPatch(doc, [
      { op: 'test', path: '/metadata/name', value: 'a' },
      { op: 'replace', path: '/metadata/labels/topology.kubernetes.io~1zone', value: 'z2' },
      { op: 'add', path: '/spec/list/-', value: 3 },
      { op: 'copy', from: '/spec/list', path: '/spec/copy' },
      { op: 'move', from: '/spec/copy', path: '/spec/moved' },
      { op: 'remove', path: '/spec/list/0' },
    ]);
    assert.deepEqual(out, { metadata: { name: 'a', labels: { 'topology.kubernetes.io/zone': 'z2' } }, spec: { list: [2, 3], moved: [1, 2, 3] } });
    assert.deepEqual(doc.spec.list, [1, 2], 'input untouched');
  });

  it('400 when the body is not an array', () => {
    const e = expectStatus(() => applyJsonPatch(doc, { op: 'add' }), 400, 'BadRequest');
    assert.match(e.message, /^error decoding patch: json: cannot unmarshal object into Go value of type jsonpatch.Patch/);
  });

  it('422 Invalid when an operation cannot apply, without echoing the document', () => {
    const e = expectStatus(() => applyJsonPatch(doc, [{ op: 'replace', path: '/spec/missing', value: 1 }]), 422, 'Invalid');
    assert.match(e.message, /replace operation does not apply: doc is missing path: "\/spec\/missing"/);
    assert.doesNotMatch(e.message, /topology/);
    const t = expectStatus(() => applyJsonPatch(doc, [{ op: 'test', path: '/metadata/name', value: 'b' }]), 422, 'Invalid');
    assert.equal(t.message, 'testing value /metadata/name failed: test failed');
    expectStatus(() => applyJsonPatch(doc, [{ op: 'bogus', path: '/x' }]), 422);
    expectStatus(() => applyJsonPatch(doc, [{ op: 'add', path: '/__proto__/x', value: 1 }]), 422);
  });

  it('413 above 10000 operations', () => {
    const ops = Array.from({ length: 10001 }, () => ({ op: 'test', path: '/metadata/name', value: 'a' }));
    expectStatus(() => applyJsonPatch(doc, ops), 413, 'RequestEntityTooLarge');
  });
});

describe('patch: merge patch (RFC 7386)', () => {
  it('follows the RFC examples', () => {
    const cases: [unknown, unknown, unknown][] = [
      [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
      [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
      [{ a: 'b' }, { a: null }, {}],
      [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
      [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
      [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
      [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
      [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
      [['a', 'b'], ['c', 'd'], ['c', 'd']],
      [{ a: 'b' }, ['c'], ['c']],
      [{ a: 'foo' }, null, null],
      [{ e: null }, { a: 1 }, { e: null, a: 1 }],
      [[1, 2], { a: 'b', c: null }, { a: 'b' }],
      [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
    ];
    for (const [target, patch, want] of cases) assert.deepEqual(mergePatch(target, patch), want, JSON.stringify([target, patch]));
  });

  it('never mutates its inputs, and rejects a non-object body with 400', () => {
    const target = { a: { b: 1 } };
    const patch = { a: { c: 2 } };
    applyMergePatch(target, patch);
    assert.deepEqual(target, { a: { b: 1 } });
    expectStatus(() => applyMergePatch(target, [1]), 400, 'BadRequest');
    expectStatus(() => applyMergePatch(target, 'x'), 400, 'BadRequest');
  });
});

describe('patch: strategic merge subset', () => {
  const keys = { 'spec.ports': 'port', 'status.conditions': 'type' };
  const service = {
    metadata: { name: 's', finalizers: ['a', 'b'], ownerReferences: [{ uid: 'u1', name: 'o1' }] },
    spec: {
      ports: [
        { port: 80, targetPort: 8080 },
        { port: 443, targetPort: 8443 },
      ],
      selector: { app: 'x' },
    },
  };

  it('merges ports by key, deletes with $patch, and orders with $setElementOrder (kubectl apply shape)', () => {
    const out = applyStrategicMergePatch(
      service,
      {
        spec: {
          '$setElementOrder/ports': [{ port: 443 }, { port: 9090 }],
          ports: [
            { port: 443, targetPort: 9443 },
            { name: 'metrics', port: 9090, protocol: 'TCP', targetPort: 9090 },
            { $patch: 'delete', port: 80 },
          ],
        },
      },
      keys,
    );
    assert.deepEqual((out.spec as Record<string, unknown>).ports, [
      { port: 443, targetPort: 9443 },
      { name: 'metrics', port: 9090, protocol: 'TCP', targetPort: 9090 },
    ]);
  });

  it('lists without a merge key replace; maps merge; null deletes', () => {
    const out = applyStrategicMergePatch({ spec: { list: [1, 2], m: { a: 1, b: 2 } } }, { spec: { list: [3], m: { a: null, c: 3 } } });
    assert.deepEqual(out, { spec: { list: [3], m: { b: 2, c: 3 } } });
  });

  it('finalizers merge as a set; $deleteFromPrimitiveList removes; ownerReferences merge by uid', () => {
    const out = applyStrategicMergePatch(service, {
      metadata: {
        finalizers: ['c', 'a'],
        '$deleteFromPrimitiveList/finalizers': ['b'],
        ownerReferences: [{ uid: 'u2', name: 'o2' }, { uid: 'u1', name: 'renamed' }],
      },
    });
    const meta = out.metadata as Record<string, unknown>;
    assert.deepEqual(meta.finalizers, ['a', 'c']);
    assert.deepEqual(meta.ownerReferences, [{ uid: 'u1', name: 'renamed' }, { uid: 'u2', name: 'o2' }]);
  });

  it('$patch: replace on a map and on a keyed list, $patch: delete on a map', () => {
    const r = applyStrategicMergePatch(service, { spec: { selector: { $patch: 'replace', tier: 'web' } } }, keys);
    assert.deepEqual((r.spec as Record<string, unknown>).selector, { tier: 'web' });
    const l = applyStrategicMergePatch(service, { spec: { ports: [{ $patch: 'replace' }, { port: 1 }] } }, keys);
    assert.deepEqual((l.spec as Record<string, unknown>).ports, [{ port: 1 }]);
    const d = applyStrategicMergePatch(service, { spec: { selector: { $patch: 'delete' } } }, keys);
    assert.equal((d.spec as Record<string, unknown>).selector, undefined);
  });

  it('$retainKeys clears keys not listed', () => {
    const out = applyStrategicMergePatch({ spec: { strategy: { type: 'Recreate', rollingUpdate: { max: 1 } } } }, {
      spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } },
    });
    assert.deepEqual(out, { spec: { strategy: { type: 'Recreate' } } });
  });

  it('400 on malformed directives or missing merge keys', () => {
    expectStatus(() => applyStrategicMergePatch(service, { spec: { selector: { $patch: 'explode' } } }, keys), 400, 'BadRequest');
    expectStatus(() => applyStrategicMergePatch(service, { spec: { ports: [{ targetPort: 1 }] } }, keys), 400);
    expectStatus(() => applyStrategicMergePatch(service, { spec: { '$setElementOrder/ports': 'x' } }, keys), 400);
    expectStatus(() => applyStrategicMergePatch(service, { spec: { $unknown: 1 } }, keys), 400);
    expectStatus(() => applyStrategicMergePatch(service, { spec: { strategy: { $retainKeys: [1] } } }, keys), 400);
    expectStatus(() => applyStrategicMergePatch(service, [], keys), 400);
  });
});

describe('patch: media types', () => {
  it('CRDs accept json, merge and apply; built-ins add strategic', () => {
    assert.deepEqual(acceptedPatchTypes({ builtIn: false }), ['json', 'merge', 'apply']);
    assert.deepEqual(acceptedPatchTypes({ builtIn: true }), ['json', 'merge', 'strategic', 'apply']);
    assert.equal(patchTypeOf('application/merge-patch+json; charset=utf-8'), 'merge');
    assert.equal(patchTypeOf('application/json'), undefined);
  });

  it('strategic on a CRD is 415 with the exact accepted list', () => {
    const e = expectStatus(() => checkPatchTypeAllowed({ builtIn: false }, 'strategic'), 415, 'UnsupportedMediaType');
    assert.equal(
      e.message,
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    );
  });
});
