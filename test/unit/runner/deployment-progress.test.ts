/**
 * What a Deployment prints while it works (runner/deployment.ts), over a fake host and a hand-driven clock: the time
 * a step took, from the clock, in seconds; a progress line every progressEveryMs (5 s unless told) and none once the
 * step ended; the lines of a delete-before-replace; the provider's progress lines of a registry resource keyed by the
 * object the host wrapper stamps them with; the program's indented log lines; the secret keys recorded.
 */
import assert from 'node:assert/strict';
import { secretValue } from '../../../runner/secrets';
import type { ResourceState } from '../../../runner/state';
import { emptyState, FakeHost, fakeDeployment, registration, urnOf, WIDGET } from './fakes';

const collapsed = (lines: string[]) => lines.map((l) => l.replace(/ +/g, ' ').trim());

/**
 * A clock the test moves by hand: Date.now reads it, and setInterval only records its callback and period (the
 * test fires it). Restored after `body`, whatever happens.
 */
async function withClock<T>(body: (clock: { advance(ms: number): void; timers: { tick: () => void; every: number; cleared: boolean }[] }) => Promise<T>): Promise<T> {
  let now = 1_700_000_000_000;
  const timers: { tick: () => void; every: number; cleared: boolean }[] = [];
  const saved = { now: Date.now, setInterval: globalThis.setInterval, clearInterval: globalThis.clearInterval };
  Date.now = () => now;
  globalThis.setInterval = ((tick: () => void, every: number) => {
    timers.push({ tick, every, cleared: false });
    return timers.length - 1;
  }) as unknown as typeof setInterval;
  globalThis.clearInterval = ((handle: number) => {
    timers[handle].cleared = true;
  }) as unknown as typeof clearInterval;
  try {
    return await body({ advance: (ms) => (now += ms), timers });
  } finally {
    Date.now = saved.now;
    globalThis.setInterval = saved.setInterval;
    globalThis.clearInterval = saved.clearInterval;
  }
}

describe('runner deployment: progress and timing', () => {
  it('tells the time a step took in seconds, a progress line every 5 s unless told, none after the step ends', async () => {
    await withClock(async (clock) => {
      const host = new FakeHost();
      host.create = async (_u, props) => {
        clock.advance(5000);
        clock.timers[0].tick();
        clock.advance(2340);
        return { id: 'id-a', properties: props };
      };
      const { deployment, lines } = fakeDeployment({ fakeHost: host });
      await deployment.register(registration('a'));
      assert.deepEqual(collapsed(lines), ['+ test:Widget a creating...', '+ test:Widget a creating... (5.0s)', '+ test:Widget a created (7.3s)']);
      assert.deepEqual(clock.timers.map((t) => [t.every, t.cleared]), [[5000, true]], 'every 5 s, stopped when the step ended');
    });
  });

  it('a failed step says how long it ran; progressEveryMs sets the period', async () => {
    await withClock(async (clock) => {
      const host = new FakeHost();
      host.create = async () => {
        clock.advance(61_050);
        throw new Error('refused');
      };
      const { deployment, lines } = fakeDeployment({ fakeHost: host, progressEveryMs: 250 });
      await deployment.register(registration('a'));
      assert.deepEqual(collapsed(lines), ['+ test:Widget a creating...', '+ test:Widget a **creating failed** (61.0s)']);
      assert.deepEqual(clock.timers.map((t) => [t.every, t.cleared]), [[250, true]]);
    });
  });

  it('a delete-before-replace shows the original deleted, then the replacement created', async () => {
    const host = new FakeHost();
    host.diff = async () => ({ changes: 'some', replaces: ['size'], deleteBeforeReplace: true });
    const state = { ...emptyState(), resources: [{ urn: urnOf('a'), type: WIDGET, name: 'a', id: 'id-a', inputs: { name: 'a', size: 1 }, outputs: { name: 'a', size: 1 }, secretKeys: [] }] };
    const { deployment, lines } = fakeDeployment({ fakeHost: host, state });
    await deployment.register(registration('a', { object: { name: 'a', size: 2 } }));
    assert.deepEqual(
      collapsed(lines).map((l) => l.replace(/\(\d+\.\ds\)/, '(Ns)')),
      [
        '+- test:Widget a replace',
        '~ size: 1 => 2 (forces replacement)',
        '- test:Widget a deleting original...',
        '- test:Widget a deleted original (Ns)',
        '+ test:Widget a creating replacement...',
        '+ test:Widget a created replacement (Ns)',
      ],
    );
  });

  it("a registry resource's progress lines are keyed by its object as the wrapper stamps it (a key pair's namespace defaults)", async () => {
    const type = 'pulumi-nodejs:dynamic/harvester:HarvesterKeyPair';
    const host = new FakeHost();
    const waits: (() => void)[] = [];
    host.create = async (_u, props) => {
      await new Promise<void>((resolve) => waits.push(resolve));
      return { id: `default/${String(props.name)}`, properties: props };
    };
    const { deployment, lines } = fakeDeployment({ fakeHost: host, progressEveryMs: 1e9 });
    const pending = [deployment.register(registration('a', { type, object: { name: 'a' } })), deployment.register(registration('b', { type, object: { name: 'b' } }))];
    while (waits.length < 2) await new Promise((resolve) => setImmediate(resolve));
    deployment.providerOutput('HarvesterKeyPair default/b: waiting for the key to validate');
    for (const release of waits) release();
    await Promise.all(pending);
    assert.ok(collapsed(lines).includes('+ harvester:HarvesterKeyPair b creating... waiting for the key to validate'), lines.join('\n'));
  });

  it('log: only the leading tabs of a line are stripped, all of them', () => {
    const { deployment, lines } = fakeDeployment();
    deployment.log('warning', '\t\tdeep\tinside\nkey:\tvalue');
    assert.deepEqual(lines, ['    warning: deep\tinside', '    warning: key:\tvalue']);
  });

  it('records the secret keys sorted: secret inputs and additionalSecretOutputs together, once each', async () => {
    const { deployment, store } = fakeDeployment();
    await deployment.register(registration('a', { object: { name: 'a', zeta: secretValue('z'), beta: secretValue('b') }, additionalSecretOutputs: ['alpha', 'zeta'] }));
    const saved: ResourceState = store.saved.at(-1)!.resources[0];
    assert.deepEqual(saved.secretKeys, ['alpha', 'beta', 'zeta']);
  });
});
