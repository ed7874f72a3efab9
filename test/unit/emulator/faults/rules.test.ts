import assert from 'node:assert/strict';
import { FaultRequest, FaultRuleSet, Faults, RequestJournal, seededRandom, validateRule } from '../../../../emulator/faults';

const get = (over: Partial<FaultRequest> = {}): FaultRequest => ({
  method: 'GET', url: '/apis/loadbalancer.harvesterhci.io/v1beta1/namespaces/default/loadbalancers?limit=500', verb: 'list',
  resource: 'loadbalancers', qualifiedResource: 'loadbalancers.loadbalancer.harvesterhci.io', namespace: 'default', ...over,
});

describe('emulator/faults/rules', () => {
  it('acts on `times` requests after `skip`, then lets requests through', () => {
    const set = new FaultRuleSet();
    set.add({ name: 'r', match: { resource: 'loadbalancers' }, action: { type: 'error', code: 503 }, skip: 1, times: 2 });
    const codes = [1, 2, 3, 4].map(() => set.decide(get()).action);
    assert.deepEqual(codes.map((a) => a?.type ?? 'pass'), ['pass', 'error', 'error', 'pass']);
    assert.deepEqual(set.list().map((s) => [s.matched, s.applied]), [[4, 2]]);
  });

  it('matches on method, path regexp, qualified resource, verb, name and user agent', () => {
    const set = new FaultRuleSet();
    set.add({
      match: { method: ['PATCH'], path: 'loadbalancers/lb1', resource: 'loadbalancers.loadbalancer.harvesterhci.io', verb: 'patch', name: 'lb1', userAgent: /^kubectl/ },
      action: { type: 'reset' },
    });
    assert.equal(set.decide(get()).action, undefined);
    const hit = get({ method: 'PATCH', url: '/x/loadbalancers/lb1', verb: 'patch', name: 'lb1', userAgent: 'kubectl/v1.32.4' });
    assert.deepEqual(set.decide(hit).action, { type: 'reset' });
    assert.equal(set.decide({ ...hit, userAgent: 'node-fetch' }).action, undefined);
  });

  it('adds latencies, and the first terminal action stops evaluation without spending later budgets', () => {
    const set = new FaultRuleSet();
    set.add(
      { action: { type: 'latency', ms: 5 } },
      { action: { type: 'latency', ms: 7 } },
      { name: 'first', action: { type: 'error', code: 429, retryAfterSeconds: 1 }, times: 1 },
      { name: 'second', action: { type: 'error', code: 500 } },
    );
    const d1 = set.decide(get());
    assert.equal(d1.latencyMs, 12);
    assert.deepEqual(d1.action, { type: 'error', code: 429, retryAfterSeconds: 1 });
    assert.deepEqual(set.list().find((s) => s.id === 'second')!.applied, 0);
    const d2 = set.decide(get());
    assert.equal((d2.action as { code: number }).code, 500);
  });

  it('keeps conflicts to writes and watch drops to watches', () => {
    const set = new FaultRuleSet();
    set.add({ action: { type: 'conflict' }, times: 1 }, { action: { type: 'watchDrop', mode: 'reset' } });
    assert.equal(set.decide(get()).action, undefined);
    assert.equal(set.decide(get({ verb: 'watch' })).action?.type, 'watchDrop');
    assert.equal(set.decide(get({ method: 'PUT', verb: 'update', name: 'a' })).action?.type, 'conflict');
    assert.equal(set.decide(get({ method: 'PUT', verb: 'update', name: 'a' })).action, undefined);
  });

  it('draws probabilities from the seed, reproducibly', () => {
    const run = (seed: number): string => {
      const set = new FaultRuleSet(seed);
      set.add({ action: { type: 'error', code: 500 }, probability: 0.3 });
      return Array.from({ length: 40 }, () => (set.decide(get()).action ? 'x' : '.')).join('');
    };
    assert.equal(run(42), run(42));
    assert.notEqual(run(42), run(43));
    const hits = run(7).split('').filter((c) => c === 'x').length;
    assert.ok(hits > 3 && hits < 25, `about 30% of 40 should fail, got ${hits}`);
    const r = seededRandom(1);
    assert.ok(r() >= 0 && r() < 1);
  });

  it('rejects rules with impossible numbers, naming the field', () => {
    assert.throws(() => validateRule({ action: { type: 'error', code: 500 }, probability: 2 }), /probability must be between 0 and 1 \(got 2\)/);
    assert.throws(() => validateRule({ action: { type: 'error', code: 500 }, times: -1 }), /times must be/);
    assert.throws(() => validateRule({ action: { type: 'error', code: 500, format: 'plain' } }), /only for 429/);
    assert.throws(() => validateRule({ action: { type: 'error', code: 418 as 500 } }), /429, 500, 503 or 504/);
    assert.throws(() => validateRule({ name: 'slow', action: { type: 'latency', ms: -1 } }), /^Error: fault rule slow: latency ms must be ≥ 0 \(got -1\)$/);
    assert.throws(() => validateRule({ action: { type: 'watchDrop', mode: 'explode' as 'clean' } }), /watchDrop mode must be clean, expire, reset or stall \(got explode\)/);
  });

  it('out-of-band faults need a running emulator', () => {
    const faults = new Faults();
    assert.throws(() => faults.expireToken(), /^Error: faults\.expireToken\(\): this Faults object is not attached to a running emulator$/);
    assert.throws(() => faults.compact(), /faults\.compact\(\): this Faults object is not attached/);
  });
});

describe('emulator/faults/journal', () => {
  it('records in order, filters and marks', () => {
    const j = new RequestJournal(3);
    j.record({ method: 'GET', url: '/a', path: '/a', status: 200 });
    const m = j.mark();
    j.record({ method: 'PATCH', url: '/b?x=1', path: '/b', verb: 'patch', status: 200 });
    j.record({ method: 'GET', url: '/c', path: '/c', status: 404 });
    j.record({ method: 'GET', url: '/d', path: '/d', status: 200 });
    assert.deepEqual(j.entries().map((e) => e.path), ['/b', '/c', '/d'], 'bounded to the last 3');
    assert.deepEqual(j.entries({ since: m, method: 'GET' }).map((e) => e.path), ['/c', '/d']);
    assert.deepEqual(j.entries({ path: /^\/[bc]$/ }).map((e) => e.seq), [2, 3]);
    assert.match(j.format({ verb: 'patch' }), /^200 PATCH \/b\?x=1$/);
  });
});
