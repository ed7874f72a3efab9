import assert from 'node:assert/strict';
import { hostSafe } from '../../../../provider/host/host-safe';
import type { ResourceProvider } from '../../../../provider/core/types';

type Raw = Record<string, unknown>;

describe('provider/host: hostSafe hands recorded states to the handlers without the host\'s keys', () => {
  const seen: Record<string, Raw | undefined> = {};
  const provider: ResourceProvider = {
    check: async (_olds, news) => ({ inputs: news }),
    diff: async (_id, olds) => ((seen.diff = olds), { changes: false }),
    create: async () => ({ id: 'x', outs: {} }),
    read: async (id, props, options) => ((seen.read = props), (seen.readOptions = options), { id, props: { name: 'a' } }),
    update: async (_id, olds) => ((seen.update = olds), { outs: {} }),
    delete: async (_id, props) => void (seen.delete = props),
  };
  const safe = hostSafe(provider, { resource: 'Test', secretInputs: [] });
  const state = { __provider: 'exports.handler = …', name: 'a', namespace: 'default' };

  it('drops __provider (every state the real host sends carries it) from read, diff, update and delete', async () => {
    await safe.read('x', state);
    await safe.diff('x', state, { name: 'a' });
    await safe.update('x', state, { __provider: 'p', name: 'a' });
    await safe.delete('x', state);
    for (const call of ['read', 'diff', 'update', 'delete']) assert.deepEqual(seen[call], { name: 'a', namespace: 'default' }, call);
  });

  it('keeps the hidden inputs of new inputs for check (references to objects of the same program)', async () => {
    const r = await safe.check({}, { name: 'a', __inProgram: ['ipPool'] });
    assert.deepEqual(r.inputs, { name: 'a', __inProgram: ['ipPool'] });
  });

  it('passes an import\'s missing state through as missing, and tells the handler it is an import', async () => {
    await safe.read('x', undefined);
    assert.equal(seen.read, undefined);
    assert.deepEqual(seen.readOptions, { importing: true });
  });

  it('tells an import (the id and the host\'s own keys alone) from a refresh (a recorded state)', async () => {
    await safe.read('x', { __provider: 'exports.handler = …' });
    assert.deepEqual(seen.readOptions, { importing: true });
    await safe.read('x', state);
    assert.deepEqual(seen.readOptions, { importing: false });
  });
});
