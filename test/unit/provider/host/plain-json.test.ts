/**
 * plainJson and withoutNulls (provider/host/plain-json.ts): what crosses the dynamic-provider host is JSON alone
 * (trap 1 of docs/design/dynamic-host-contract.md), and `null` in a program's inputs means absent (trap 11).
 */
import assert from 'node:assert/strict';
import { plainJson, withoutNulls } from '../../../../provider/host/plain-json';

describe('provider/host: plainJson', () => {
  it('turns what JSON cannot carry into what it can', () => {
    assert.deepEqual(
      plainJson({ big: BigInt('12345678901234567890'), buffer: Buffer.from('héllo'), bytes: new Uint8Array([1, 2, 255]), at: new Date(Date.UTC(2026, 10, 27)) }),
      { big: '12345678901234567890', buffer: Buffer.from('héllo').toString('base64'), bytes: 'AQL/', at: '2026-11-27T00:00:00.000Z' },
    );
    assert.deepEqual(plainJson({ nan: Number.NaN, inf: Number.POSITIVE_INFINITY, neg: -Infinity, zero: 0, n: -1.5 }), { nan: null, inf: null, neg: null, zero: 0, n: -1.5 });
    assert.deepEqual(plainJson({ kept: 1, dropped: undefined, list: [undefined, 1], nested: { also: undefined } }), { kept: 1, list: [null, 1], nested: {} });
  });

  it('returns a fresh copy, and undefined as undefined (JSON has no undefined to parse)', () => {
    const value = { a: { b: [1] } };
    const copy = plainJson(value);
    assert.deepEqual(copy, value);
    assert.notEqual(copy.a, value.a);
    assert.equal(plainJson(undefined), undefined);
    assert.equal(plainJson(null), null);
    assert.equal(plainJson('text'), 'text');
    assert.equal(plainJson(BigInt(3)), '3');
  });
});

describe('provider/host: withoutNulls', () => {
  it('drops null and undefined keys of plain objects at every depth, arrays included', () => {
    assert.deepEqual(withoutNulls({ a: null, b: undefined, c: 0, d: '', e: false, f: { g: null, h: [{ i: null, j: 1 }, null] } }), { c: 0, d: '', e: false, f: { h: [{ j: 1 }, null] } });
  });

  it('leaves values that are not plain objects as they are', () => {
    const at = new Date(0);
    const buffer = Buffer.from('x');
    class Box {
      inside: unknown = null;
    }
    const box = new Box();
    const out = withoutNulls({ at, buffer, box, text: 'null', n: 1 });
    assert.equal(out.at, at);
    assert.equal(out.buffer, buffer);
    assert.equal(out.box, box);
    assert.equal(box.inside, null, 'an instance of a class is not a map of inputs');
    assert.equal(withoutNulls(null), null);
    assert.equal(withoutNulls('x'), 'x');
    assert.equal(withoutNulls(5), 5);
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { a: null });
    assert.equal(withoutNulls(bare), bare, 'only objects of Object.prototype are input maps');
  });
});
