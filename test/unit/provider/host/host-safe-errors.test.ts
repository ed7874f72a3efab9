/**
 * The host wrapper's side of the dynamic-provider host contract (docs/design/dynamic-host-contract.md), in process:
 * what leaves a handler is an Error with a complete, redacted, capped message naming the call when the handler gave
 * none (traps 3 and 12); a partial failure keeps the provider text and at most 20 reasons (trap 2); failures on secret
 * and connection inputs move to property "" (trap 8); connection inputs never reach diff (trap 9); inputs' nulls are
 * absent (trap 11); the call's held-back progress line is flushed whatever the call's end; and `configure` records
 * the stack's connection. The engine suite drives the same contract through Pulumi's real host.
 */
import assert from 'node:assert/strict';
import { clearRegisteredSecrets, registerSecret } from '../../../../provider/client/redact';
import { configureConnection, stackConnection } from '../../../../provider/core/connection';
import { ResourceInitError } from '../../../../provider/core/errors';
import type { ResourceProvider } from '../../../../provider/core/types';
import { MESSAGE_LIMIT, asError, cap, hostSafe } from '../../../../provider/host/host-safe';

type Raw = Record<string, unknown>;
const OPERATIONS = ['check', 'diff', 'create', 'read', 'update', 'delete'] as const;

/** A provider whose every handler throws what `failure()` returns, and remembers what it was handed. */
function throwingProvider(failure: () => unknown, seen: Record<string, unknown[]> = {}): ResourceProvider {
  const fail = (op: string) => async (...args: unknown[]): Promise<never> => {
    seen[op] = args;
    throw failure();
  };
  return { check: fail('check'), diff: fail('diff'), create: fail('create'), read: fail('read'), update: fail('update'), delete: fail('delete') };
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  assert.fail('expected the call to fail');
}

/** Each call of the wrapped provider, with inputs naming `default/a` and the id `default/a`. */
function call(safe: ReturnType<typeof hostSafe>, op: (typeof OPERATIONS)[number], inputs: Raw = { name: 'a', namespace: 'default' }): Promise<unknown> {
  switch (op) {
    case 'check':
      return safe.check({}, inputs);
    case 'diff':
      return safe.diff('default/a', inputs, inputs);
    case 'create':
      return safe.create(inputs);
    case 'read':
      return safe.read('default/a', inputs);
    case 'update':
      return safe.update('default/a', inputs, inputs);
    case 'delete':
      return safe.delete('default/a', inputs);
  }
}

describe('provider/host: cap', () => {
  it('keeps a text of exactly the limit, and shortens one character more to the limit, saying how much went', () => {
    assert.equal(cap('x'.repeat(100), 100), 'x'.repeat(100));
    const capped = cap('x'.repeat(101), 100);
    assert.equal(capped.length, 100);
    assert.match(capped, /\n… \(1 more characters left out\)$/);
    assert.ok(capped.startsWith('x'.repeat(60)));
    assert.equal(cap('y'.repeat(MESSAGE_LIMIT)), 'y'.repeat(MESSAGE_LIMIT), 'the default limit is MESSAGE_LIMIT');
    assert.equal(cap('y'.repeat(MESSAGE_LIMIT + 5)).length, MESSAGE_LIMIT);
  });
});

describe('provider/host: asError', () => {
  afterEach(() => clearRegisteredSecrets());

  it('puts a Node error code in front of a message that does not name it, once', () => {
    const withCode = Object.assign(new Error('connect failed'), { code: 'ECONNREFUSED' });
    assert.equal(asError(withCode, 'read', 'HarvesterImage').message, 'ECONNREFUSED: connect failed');
    const named = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    assert.equal(asError(named, 'read', 'HarvesterImage').message, 'connect ECONNREFUSED 127.0.0.1:1');
    const numeric = Object.assign(new Error('status 500'), { code: 500 });
    assert.equal(asError(numeric, 'read', 'HarvesterImage').message, 'status 500', 'only a text code is named');
    const notAnError = { message: 'plain object', code: 'EPLAIN' };
    assert.equal(asError(notAnError, 'read', 'HarvesterImage').message, JSON.stringify(notAnError), 'a non-Error is written whole, its code not prefixed');
  });

  it('names the resource, the call and the kind of error when the message is empty or blank', () => {
    assert.equal(asError(new TypeError(''), 'create', 'HarvesterImage').message, 'HarvesterImage create failed without a message (TypeError)');
    assert.equal(asError(new Error(' \n '), 'delete', 'HarvesterNetwork').message, 'HarvesterNetwork delete failed without a message (Error)');
    assert.equal(asError('', 'check', 'HarvesterKeyPair').message, 'HarvesterKeyPair check failed without a message (string)');
    assert.equal(asError('  spaced  ', 'check', 'HarvesterKeyPair').message, 'spaced', 'trimmed');
  });

  it('turns anything thrown into an Error keeping the Error\'s name', () => {
    const range = asError(new RangeError('too far'), 'read', 'X');
    assert.ok(range instanceof Error);
    assert.equal(range.name, 'RangeError');
    assert.equal(asError('just text', 'read', 'X').name, 'Error');
    assert.equal(asError('just text', 'read', 'X').message, 'just text');
    assert.equal(asError({ a: 1 }, 'read', 'X').message, '{"a":1}');
    assert.equal(asError(undefined, 'read', 'X').message, 'undefined', 'JSON has no undefined: its String');
    const circular: Raw = {};
    circular.self = circular;
    assert.equal(asError(circular, 'read', 'X').message, '[object Object]', 'an unstringifiable value: its String');
  });

  it('redacts and caps the message', () => {
    registerSecret('s3cr3t-token-value-0123');
    const message = asError(new Error(`token s3cr3t-token-value-0123 refused ${'z'.repeat(MESSAGE_LIMIT)}`), 'read', 'X').message;
    assert.doesNotMatch(message, /s3cr3t/);
    assert.equal(message.length, MESSAGE_LIMIT);
  });

  it('lets a partial failure through as it is', () => {
    const partial = new ResourceInitError('default/a', { name: 'a' }, ['one']);
    assert.equal(asError(partial, 'create', 'X'), partial);
  });
});

describe('provider/host: hostSafe when a handler fails', () => {
  afterEach(() => clearRegisteredSecrets());

  for (const op of OPERATIONS) {
    it(`${op}: an empty error names the resource and the call, and the call's progress is flushed`, async () => {
      const flushed: string[] = [];
      const safe = hostSafe(throwingProvider(() => new Error('')), { resource: 'HarvesterImage', secretInputs: [], progress: { flush: (r, o) => flushed.push(`${r} ${o}`) } });
      const err = await rejection(call(safe, op));
      assert.equal(err.message, `HarvesterImage ${op} failed without a message (Error)`);
      assert.deepEqual(flushed, ['HarvesterImage default/a']);
    });
  }

  it('flushes the progress of the call\'s own object when it succeeds too (create: the object its inputs name)', async () => {
    const flushed: string[] = [];
    const provider: ResourceProvider = {
      check: async (_o, news) => ({ inputs: news }),
      diff: async () => ({ changes: false }),
      create: async () => ({ id: 'team/img', outs: {} }),
      read: async (id) => ({ id }),
      update: async () => ({ outs: {} }),
      delete: async () => undefined,
    };
    const safe = hostSafe(provider, { resource: 'HarvesterImage', secretInputs: [], progress: { flush: (r, o) => flushed.push(`${r} ${o}`) }, objectOf: (i) => `objectOf:${String(i.name)}` });
    await safe.create({ name: 'img', namespace: 'team' });
    await safe.check({}, { name: 'img' });
    await safe.delete('team/img', {});
    assert.deepEqual(flushed, ['HarvesterImage objectOf:img', 'HarvesterImage objectOf:img', 'HarvesterImage team/img']);
  });

  it('keeps the provider text in a partial failure\'s properties: create\'s inputs, update\'s new inputs, else its old ones', async () => {
    const partial = () => new ResourceInitError('default/a', { name: 'a', absent: undefined }, ['the VM did not start']);
    const safe = hostSafe(throwingProvider(partial), { resource: 'X', secretInputs: [] });
    const created = (await rejection(safe.create({ name: 'a', __provider: 'text-create' }))) as ResourceInitError;
    assert.ok(created instanceof ResourceInitError);
    assert.deepEqual(created.properties, { name: 'a', __provider: 'text-create' }, 'plain JSON, with the provider text');
    assert.equal(created.id, 'default/a');
    const updated = (await rejection(safe.update('default/a', { __provider: 'text-old' }, { name: 'a', __provider: 'text-new' }))) as ResourceInitError;
    assert.equal(updated.properties.__provider, 'text-new');
    const fromOld = (await rejection(safe.update('default/a', { __provider: 'text-old' }, { name: 'a' }))) as ResourceInitError;
    assert.equal(fromOld.properties.__provider, 'text-old');
    const none = (await rejection(safe.update('default/a', {}, { name: 'a', __provider: 7 }))) as ResourceInitError;
    assert.equal('__provider' in none.properties, false, 'only a text is a provider text');
    const deleted = (await rejection(safe.delete('default/a', { __provider: 'text-old' }))) as ResourceInitError;
    assert.equal('__provider' in deleted.properties, false, 'delete records nothing new');
  });

  it('keeps 20 reasons of a partial failure, says how many more there were, and redacts and caps each', async () => {
    registerSecret('pa55word-of-the-user');
    const reasons = Array.from({ length: 23 }, (_, i) => `reason ${i}: pa55word-of-the-user ${i === 0 ? 'r'.repeat(MESSAGE_LIMIT) : ''}`);
    const safe = hostSafe(throwingProvider(() => new ResourceInitError('default/a', {}, reasons, new Error('cause'))), { resource: 'X', secretInputs: [] });
    const err = (await rejection(safe.create({ name: 'a' }))) as ResourceInitError;
    assert.equal(err.reasons.length, 21);
    assert.equal(err.reasons[20], '… and 3 more');
    assert.equal(err.reasons[0].length, MESSAGE_LIMIT / 4);
    assert.match(err.reasons[19], /^reason 19: /);
    for (const r of err.reasons) assert.doesNotMatch(r, /pa55word/);
    assert.equal((err.cause as Error).message, 'cause');
    const exactly20 = hostSafe(throwingProvider(() => new ResourceInitError('i', {}, reasons.slice(1, 21))), { resource: 'X', secretInputs: [] });
    assert.equal(((await rejection(exactly20.create({}))) as ResourceInitError).reasons.length, 20, 'twenty reasons are all kept, with no "more" line');
  });
});

describe('provider/host: hostSafe on what reaches the handlers', () => {
  it('moves check failures on secret and connection inputs (and their nested fields) to property ""', async () => {
    const failures = [
      { property: 'userData', reason: 'userData is not valid YAML' },
      { property: 'userData.users[0]', reason: 'must be a map' },
      { property: 'kubeconfig', reason: 'kubeconfig is not a kubeconfig' },
      { property: 'context[1]', reason: 'unknown context' },
      { property: 'name', reason: 'name is too long' },
      { property: 'userDataSecret', reason: 'not a Secret' },
    ];
    const provider = { ...throwingProvider(() => new Error('unused')), check: async () => ({ failures }) };
    const safe = hostSafe(provider, { resource: 'X', secretInputs: ['userData'] });
    const r = await safe.check({}, { name: 'a' });
    assert.deepEqual(r.failures, [
      { property: '', reason: 'userData is not valid YAML' },
      { property: '', reason: 'userData.users[0]: must be a map' },
      { property: '', reason: 'kubeconfig is not a kubeconfig' },
      { property: '', reason: 'context[1]: unknown context' },
      { property: 'name', reason: 'name is too long' },
      { property: 'userDataSecret', reason: 'not a Secret' },
    ]);
  });

  it('hands diff neither the connection inputs nor nulls, and create, check and update no nulls', async () => {
    const seen: Record<string, unknown[]> = {};
    const record = (op: string, result: unknown) => async (...args: unknown[]) => ((seen[op] = args), result);
    const provider = {
      check: record('check', { inputs: {} }),
      diff: record('diff', { changes: false }),
      create: record('create', { id: 'i', outs: {} }),
      read: record('read', { id: 'i' }),
      update: record('update', { outs: {} }),
      delete: record('delete', undefined),
    } as unknown as ResourceProvider;
    const safe = hostSafe(provider, { resource: 'X', secretInputs: [] });
    const inputs = { name: 'a', kubeconfig: 'apiVersion: v1', context: 'lab', description: null, nested: { keep: 1, drop: null } };
    await safe.diff('i', { ...inputs, __provider: 'p' }, inputs);
    assert.deepEqual(seen.diff, ['i', { name: 'a', description: null, nested: { keep: 1, drop: null } }, { name: 'a', nested: { keep: 1 } }]);
    await safe.create(inputs);
    assert.deepEqual(seen.create, [{ name: 'a', kubeconfig: 'apiVersion: v1', context: 'lab', nested: { keep: 1 } }]);
    await safe.check({ old: null }, inputs);
    assert.deepEqual(seen.check, [{ old: null }, { name: 'a', kubeconfig: 'apiVersion: v1', context: 'lab', nested: { keep: 1 } }]);
    await safe.update('i', { a: null }, { b: null, c: 2 });
    assert.deepEqual(seen.update, ['i', { a: null }, { c: 2 }]);
    await safe.diff('i', undefined as unknown as Raw, { name: 'a' });
    assert.deepEqual(seen.diff, ['i', {}, { name: 'a' }], 'a missing recorded state is an empty one');
  });

  it('takes calls that carry no inputs at all without failing in the wrapper', async () => {
    const partial = () => new ResourceInitError('i', { name: 'a' }, ['failed']);
    const safe = hostSafe(throwingProvider(partial), { resource: 'X', secretInputs: [] });
    const created = (await rejection(safe.create(undefined as unknown as Raw))) as ResourceInitError;
    assert.deepEqual(created.properties, { name: 'a' });
    const updated = (await rejection(safe.update('i', undefined as unknown as Raw, undefined as unknown as Raw))) as ResourceInitError;
    assert.deepEqual(updated.properties, { name: 'a' });
  });

  it('returns plain JSON whatever a handler returns', async () => {
    const provider = {
      ...throwingProvider(() => new Error('unused')),
      create: async () => ({ id: 'i', outs: { big: BigInt(7), bytes: Buffer.from('hi'), at: new Date(0), gone: undefined, list: [undefined, Number.NaN] } }),
    };
    const safe = hostSafe(provider, { resource: 'X', secretInputs: [] });
    assert.deepEqual(await safe.create({}), { id: 'i', outs: { big: '7', bytes: 'aGk=', at: '1970-01-01T00:00:00.000Z', list: [null, null] } });
  });
});

describe('provider/host: configure', () => {
  after(() => configureConnection({}));

  it('records the stack\'s kubeconfig and context from stack config', async () => {
    const safe = hostSafe(throwingProvider(() => new Error('unused')), { resource: 'X', secretInputs: [] });
    const config: Record<string, string> = { 'harvester:kubeconfig': '/tmp/lab.yaml', 'harvester:context': 'lab' };
    await safe.configure({ config: { get: (key) => config[key] } });
    assert.deepEqual(stackConnection(), { kubeconfig: '/tmp/lab.yaml', context: 'lab' });
    await safe.configure({ config: { get: () => undefined } });
    assert.deepEqual(stackConnection(), { kubeconfig: undefined, context: undefined });
    await safe.configure(undefined as unknown as { config: { get(key: string): string | undefined } });
    assert.deepEqual(stackConnection(), { kubeconfig: undefined, context: undefined }, 'a host that sends no config: nothing configured');
  });
});
