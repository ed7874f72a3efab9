/**
 * refresh (runner/refresh.ts) over a fake host: every recorded resource read back, at most `parallel` at once,
 * results applied in the state's order; a resource gone from the cluster leaves the state; what moved is labelled
 * drift (inputs) or outputs only; a failed read reported and the others still applied.
 */
import assert from 'node:assert/strict';
import { Display, type CountKey } from '../../../runner/display';
import { DEFAULT_REFRESH_PARALLEL, limited, refreshResources } from '../../../runner/refresh';
import type { ResourceState, StackState } from '../../../runner/state';
import { emptyState, FakeHost, urnOf, WIDGET } from './fakes';

const resource = (name: string, over: Partial<ResourceState> = {}): ResourceState => ({
  urn: urnOf(name),
  type: WIDGET,
  name,
  id: `id-${name}`,
  inputs: { name, size: 1 },
  outputs: { name, size: 1, ip: '10.0.0.1' },
  secretKeys: [],
  ...over,
});

async function refresh(host: FakeHost, resources: ResourceState[], options: { parallel?: number; full?: boolean } = {}) {
  const state: StackState = { ...emptyState(), resources };
  const lines: string[] = [];
  const counts: CountKey[] = [];
  const failed: [string, unknown][] = [];
  await refreshResources({
    state,
    host: host.asHost,
    display: new Display((l) => lines.push(l)),
    full: options.full,
    parallel: options.parallel ?? DEFAULT_REFRESH_PARALLEL,
    count: (op) => counts.push(op),
    fail: (r, err) => failed.push([r.name, err]),
  });
  return { state, lines: lines.map((l) => l.replace(/ +/g, ' ').trim()), counts, failed };
}

describe('runner refresh', () => {
  it('reads 8 at a time unless told', () => assert.equal(DEFAULT_REFRESH_PARALLEL, 8));

  it('reads each resource with its id, outputs and inputs; unchanged ones count as same and print nothing', async () => {
    const host = new FakeHost();
    const { counts, lines, state } = await refresh(host, [resource('a')]);
    assert.deepEqual(host.calls, [['read', urnOf('a'), 'id-a', { name: 'a', size: 1, ip: '10.0.0.1' }, { name: 'a', size: 1 }]]);
    assert.deepEqual([counts, lines], [['same'], []]);
    assert.deepEqual(state.resources, [resource('a')]);
  });

  it('drift: counted as refresh and shown with what moved in the outputs (else in the inputs); the state takes what was read', async () => {
    const host = new FakeHost();
    host.read = async (_u, id) => ({ id: `${id}-new`, properties: { name: 'a', size: 2, ip: '10.0.0.2' }, inputs: { name: 'a', size: 2 } });
    const { counts, lines, state } = await refresh(host, [resource('a')]);
    assert.deepEqual(counts, ['refresh']);
    assert.deepEqual(lines, ['~ test:Widget a refreshed (the cluster differs)', '~ ip: "10.0.0.1" => "10.0.0.2"', '~ size: 1 => 2']);
    assert.deepEqual(state.resources[0], { ...resource('a'), id: 'id-a-new', inputs: { name: 'a', size: 2 }, outputs: { name: 'a', size: 2, ip: '10.0.0.2' } });
    host.read = async (_u, id) => ({ id, properties: { name: 'a', size: 1, ip: '10.0.0.1' }, inputs: { name: 'a', size: 3 } });
    const inputsOnly = await refresh(host, [resource('a')]);
    assert.deepEqual(inputsOnly.lines, ['~ test:Widget a refreshed (the cluster differs)', '~ size: 1 => 3']);
  });

  it('outputs only: counted apart from drift, shown as "no drift"; a read without inputs keeps the recorded ones', async () => {
    const host = new FakeHost();
    host.read = async (_u, id) => ({ id, properties: { name: 'a', size: 1, ip: '10.0.0.9' } });
    const { counts, lines, state } = await refresh(host, [resource('a')]);
    assert.deepEqual(counts, ['outputs']);
    assert.deepEqual(lines, ['~ test:Widget a outputs refreshed (no drift)', '~ ip: "10.0.0.1" => "10.0.0.9"']);
    assert.deepEqual(state.resources[0].inputs, { name: 'a', size: 1 });
    assert.equal(state.resources[0].outputs.ip, '10.0.0.9');
  });

  it('secret properties are compared, never printed; --diff prints whole values', async () => {
    const host = new FakeHost();
    const long = 'x'.repeat(150);
    host.read = async (_u, id) => ({ id, properties: { name: 'a', size: 1, ip: '10.0.0.1', pw: 'new', note: long } });
    const r = resource('a', { outputs: { name: 'a', size: 1, ip: '10.0.0.1', pw: 'old', note: '' }, secretKeys: ['pw'] });
    const cut = await refresh(host, [{ ...r }]);
    assert.ok(cut.lines.includes('~ pw: [secret] => [secret]'), cut.lines.join('\n'));
    assert.ok(cut.lines.some((l) => l.endsWith('…')));
    const full = await refresh(host, [{ ...r }], { full: true });
    assert.ok(full.lines.includes(`~ note: "" => "${long}"`), full.lines.join('\n'));
  });

  it('drift seen only in the inputs: a secret input compared, never printed; a long one cut unless --diff', async () => {
    const host = new FakeHost();
    const long = 'y'.repeat(150);
    const r = resource('a', { inputs: { name: 'a', pw: 'old-password', note: '' }, secretKeys: ['pw'] });
    host.read = async (_u, id) => ({ id, properties: r.outputs, inputs: { name: 'a', pw: 'new-password', note: long } });
    const cut = await refresh(host, [{ ...r }]);
    assert.deepEqual(cut.lines, ['~ test:Widget a refreshed (the cluster differs)', `~ note: "" => ${JSON.stringify(long).slice(0, 99)}…`, '~ pw: [secret] => [secret]']);
    const full = await refresh(host, [{ ...r }], { full: true });
    assert.deepEqual(full.lines, ['~ test:Widget a refreshed (the cluster differs)', `~ note: "" => "${long}"`, '~ pw: [secret] => [secret]']);
  });

  it('a resource gone from the cluster leaves the state, counted and shown as deleted', async () => {
    const host = new FakeHost();
    host.read = async (_u, id) => (id === 'id-b' ? { id: '', properties: {} } : { id, properties: { name: 'a', size: 1, ip: '10.0.0.1' } });
    const { counts, lines, state } = await refresh(host, [resource('a'), resource('b'), resource('c', { outputs: { name: 'a', size: 1, ip: '10.0.0.1' } })]);
    assert.deepEqual(counts, ['same', 'delete', 'same']);
    assert.deepEqual(lines, ['- test:Widget b deleted (gone from the cluster)']);
    assert.deepEqual(state.resources.map((r) => r.name), ['a', 'c']);
  });

  it('a failed read is reported with its error and shown; the others are still applied', async () => {
    const host = new FakeHost();
    const forbidden = new Error('forbidden');
    host.read = async (_u, id) => {
      if (id === 'id-a') throw forbidden;
      return { id, properties: { name: 'b', size: 1, ip: '10.0.0.2' } };
    };
    const { counts, lines, failed, state } = await refresh(host, [resource('a'), resource('b')]);
    assert.deepEqual(failed, [['a', forbidden]]);
    assert.deepEqual(lines, ['~ test:Widget a **refresh failed**', '~ test:Widget b outputs refreshed (no drift)', '~ ip: "10.0.0.1" => "10.0.0.2"']);
    assert.deepEqual(counts, ['outputs']);
    assert.deepEqual(state.resources[0], resource('a'), 'a failed read changes nothing');
  });

  it('a parallel of 0 or less still reads, one at a time', async () => {
    for (const parallel of [0, -3]) {
      let running = 0;
      let most = 0;
      const host = new FakeHost();
      host.read = async (_u, id, props) => {
        most = Math.max(most, ++running);
        await new Promise((resolve) => setImmediate(resolve));
        running--;
        return { id, properties: props };
      };
      const { counts } = await refresh(host, [resource('a'), resource('b')], { parallel });
      assert.deepEqual([counts, most], [['same', 'same'], 1]);
    }
  });

  it('limited: at most `limit` at once, the next as one ends, results in the items\' order', async () => {
    const finish = new Map<number, () => void>();
    const results = limited([1, 2, 3, 4], 2, (n) => new Promise<number>((resolve) => finish.set(n, () => resolve(n * 10))));
    const started = async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return [...finish.keys()];
    };
    assert.deepEqual(await started(), [1, 2]);
    finish.get(2)!();
    assert.deepEqual(await started(), [1, 2, 3]);
    finish.get(3)!();
    assert.deepEqual(await started(), [1, 2, 3, 4]);
    finish.get(4)!();
    finish.get(1)!();
    assert.deepEqual(await Promise.all(results), [10, 20, 30, 40]);
    const afterFailure = limited(['a', 'b'], 1, async (x) => {
      if (x === 'a') throw new Error('a failed');
      return x;
    });
    assert.deepEqual((await Promise.allSettled(afterFailure)).map((r) => r.status), ['rejected', 'fulfilled']);
  });
});
