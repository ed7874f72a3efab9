import * as assert from 'node:assert/strict';
import * as fc from 'fast-check';
import { validateObject } from '../../../../emulator/api/validation';
import { KINDS } from '../../../../emulator/kinds';
import { formatPath, normalizeStructure } from '../../../../emulator/kinds/schema/structural';
import { KindKey, valid } from './fixtures';

describe('structural normalisation', () => {
  it('formatPath prints apiserver field paths', () => {
    assert.equal(formatPath(['spec', 'listeners', 0, 'port']), 'spec.listeners[0].port');
    assert.equal(formatPath(['metadata', 'labels', 'harvesterhci.io/creator']), 'metadata.labels.harvesterhci.io/creator');
    assert.equal(formatPath([]), '');
  });

  it('leaves a value of the wrong type for validation instead of pruning inside it', () => {
    const schema = { type: 'object', properties: { port: { 'x-kubernetes-int-or-string': true } } };
    const r = normalizeStructure({ port: { a: 1 } }, schema);
    assert.deepEqual(r, { value: { port: { a: 1 } }, unknownFields: [] });
  });

  it('additionalProperties schemas apply to every map value', () => {
    const schema = { type: 'object', additionalProperties: { type: 'object', properties: { a: { type: 'string' } } } };
    const r = normalizeStructure({ x: { a: 's', b: 1 }, y: { c: 2 } }, schema);
    assert.deepEqual(r.value, { x: { a: 's' }, y: {} });
    assert.deepEqual(r.unknownFields.sort(), ['x.b', 'y.c']);
  });

  // Property: whatever junk a client adds to a valid object, validation prunes exactly that junk and the
  // pruned result validates cleanly a second time (pruning is idempotent).
  it('pruning is idempotent and removes only added unknown fields (property)', () => {
    const kinds: KindKey[] = ['loadBalancer', 'ipPool', 'virtualMachine', 'service'];
    const junkKey = fc.string({ minLength: 1, maxLength: 8 }).map((s) => `zz-${s}`);
    fc.assert(
      fc.property(fc.constantFrom(...kinds), fc.dictionary(junkKey, fc.jsonValue(), { maxKeys: 3 }), (key, junk) => {
        const object = valid(key) as any;
        Object.assign(object.spec, junk);
        const first = validateObject(KINDS[key], object);
        assert.deepEqual(first.unknownFields.sort(), Object.keys(junk).map((k) => `spec.${k}`).sort());
        assert.deepEqual(first.object, valid(key));
        const second = validateObject(KINDS[key], first.object);
        assert.deepEqual(second.unknownFields, []);
        assert.deepEqual(second.causes, []);
      }),
      { numRuns: 60 },
    );
  });
});
