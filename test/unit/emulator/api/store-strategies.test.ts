import assert from 'node:assert/strict';
import { ManualClock } from '../../../../emulator/clock';
import { ObjectStore } from '../../../../emulator/api/store';
import { validateObject } from '../../../../emulator/api/validation';
import { createHarvesterRegistry, KINDS } from '../../../../emulator/kinds';

describe('ObjectStore built-in strategies', () => {
  function storeWithDefaultNamespace(): ObjectStore {
    const store = new ObjectStore(createHarvesterRegistry(), new ManualClock(), { validate: validateObject });
    store.create(KINDS.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
    return store;
  }

  it('merges Secret stringData into base64 data (stringData wins), drops it, and defaults type to Opaque', () => {
    const store = storeWithDefaultNamespace();
    const out = store.create(KINDS.secret, {
      apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1', namespace: 'default' },
      data: { a: Buffer.from('old').toString('base64'), b: Buffer.from('keep').toString('base64') },
      stringData: { a: 'new', c: '#cloud-config\n' },
    });
    assert.equal(out.stringData, undefined);
    assert.equal(out.type, 'Opaque');
    const data = out.data as Record<string, string>;
    assert.deepEqual(Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()])), {
      a: 'new', b: 'keep', c: '#cloud-config\n',
    });
  });

  it('keeps an explicit Secret type and applies the same rules on update', () => {
    const store = storeWithDefaultNamespace();
    const created = store.create(KINDS.secret, {
      apiVersion: 'v1', kind: 'Secret', metadata: { name: 's2', namespace: 'default' }, type: 'kubernetes.io/ssh-auth', data: {},
    });
    assert.equal(created.type, 'kubernetes.io/ssh-auth');
    const updated = store.update(KINDS.secret, { ...created, stringData: { userdata: 'x' } });
    assert.equal(updated.stringData, undefined);
    assert.equal(Buffer.from((updated.data as Record<string, string>).userdata, 'base64').toString(), 'x');
  });
});
