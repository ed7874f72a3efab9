/**
 * Waits while the watch misbehaves (faults injected into the emulator; emulator only): streams that end
 * cleanly, end with ERROR 410, are reset or stall; history compacted under a resuming watch; a token that
 * expires mid-wait. Each wait must still see the truth (or fail exactly as specified). On any cluster: a set
 * awaited as a whole, and the timeout message.
 */
import assert from 'node:assert/strict';
import { ManualClock } from '../../emulator';
import { waitFor } from '../../provider/await/awaiter';
import { WaitTimeoutError } from '../../provider/await/errors';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { LoadBalancer } from '../../provider/client/objects';
import { OwnerIdentity, ownerSelector } from '../../provider/client/ownership';
import { eventually } from '../support/emulator-harness';
import { requireEmulator, requireLbSubnet, suiteTimeout, TestTarget } from '../support/target';
import { connect, createTestPool, inRange, journal, literal, loadBalancer, PoolRange, startClientTarget, TestPool } from './client-support';

const addressed = (o?: LoadBalancer) => ({
  done: Boolean(o?.status?.address),
  description: o === undefined ? 'not created yet' : o.status?.address ? `address ${o.status.address}` : 'waiting for an address',
  pending: o?.status?.address ? [] : ['status.address'],
});

describe('client: waits (dropped and broken watches injected on the emulator only)', function () {
  this.timeout(suiteTimeout(30_000, 20 * 60_000));
  let target: TestTarget;
  let ns: string;
  let pool: string;
  let poolOwner: OwnerIdentity;
  let range: PoolRange | undefined;
  let n = 0;

  let testPool: TestPool | undefined;

  before(async () => {
    target = await startClientTarget();
    ns = target.fixtures.namespace;
    testPool = await createTestPool(target, 1);
    ({ name: pool, owner: poolOwner, range } = testPool);
  });
  after(async () => {
    try {
      await testPool?.remove();
    } finally {
      await target?.stop();
    }
  });
  afterEach(() => target.emulator?.emulator.faults.clear());

  /** The emulator (the test has called requireEmulator). */
  const emulator = () => target.emulator!.emulator;

  /**
   * Start waiting for a new LB's address, then create it (after `before`, e.g. until an injected fault has
   * hit the wait's stream); returns the wait and the LB name.
   */
  async function waitForNewLb(client: HarvesterClient, extra: { idleTimeoutMs?: number; backoffInitialMs?: number } = {}, before?: () => Promise<unknown>) {
    const name = target.name(`lb-w${++n}`);
    const owner = { resourceType: 'load-balancer', resourceName: name };
    const lines: string[] = [];
    const wait = waitFor<LoadBalancer>({
      resource: client.loadBalancers,
      namespace: ns,
      name,
      check: ([o]) => addressed(o),
      timeoutMs: 15_000,
      what: `LoadBalancer ${ns}/${name} to get an address`,
      onProgress: (l) => lines.push(l),
      backoffInitialMs: 50,
      ...extra,
    });
    // The first progress line means the first list is done: from here on the object's events come over the watch.
    await eventually(() => lines.length > 0, 'the first list of the wait', 10_000);
    await before?.();
    await client.loadBalancers.create(loadBalancer(target, name, pool, owner), { owner });
    return { name, wait, lines };
  }

  const watches = (since: number) => emulator().journal.entries({ verb: 'watch', resource: 'loadbalancers', since });
  const lists = (since: number) => emulator().journal.entries({ verb: 'list', resource: 'loadbalancers', since });

  it('a stream that ends cleanly after each event is resumed from the last resourceVersion, without re-listing (emulator: fault injection)', async function () {
    requireEmulator(this, target);
    const emu = emulator();
    const mark = emu.journal.mark();
    emu.faults.add({ name: 'clean', match: { resource: 'loadbalancers' }, action: { type: 'watchDrop', mode: 'clean', afterEvents: 1 } });
    const { client } = await connect(target);
    const { wait, lines } = await waitForNewLb(client);
    const [lb] = await wait;
    assert.ok(inRange(lb.status!.address!, range!), `${lb.status!.address} from the test pool ${JSON.stringify(range)}`);
    assert.equal(lines[0], 'not created yet');
    assert.equal(lines[lines.length - 1], `address ${lb.status!.address}`);
    assert.equal(lists(mark).length, 1, journal(emu, mark));
    const resumed = watches(mark).slice(1);
    assert.ok(resumed.length >= 1, journal(emu, mark));
    assert.ok(resumed.every((w) => /[?&]resourceVersion=\d+/.test(w.url)), `every re-watch resumes from a version:\n${journal(emu, mark)}`);
  });

  it('ERROR 410 Expired on the stream makes it re-list, then watch again (emulator: fault injection)', async function () {
    requireEmulator(this, target);
    const emu = emulator();
    const mark = emu.journal.mark();
    emu.faults.add({ name: 'expire', match: { resource: 'loadbalancers' }, action: { type: 'watchDrop', mode: 'expire', afterMs: 50 }, times: 2 });
    const { client } = await connect(target);
    const relisted = () => eventually(() => lists(mark).length >= 2, `re-listed after 410:\n${journal(emu, mark)}`, 10_000);
    const { wait } = await waitForNewLb(client, {}, relisted);
    await wait;
  });

  it('a reset stream is re-listed after a backoff and the wait still succeeds (emulator: fault injection)', async function () {
    requireEmulator(this, target);
    const emu = emulator();
    const mark = emu.journal.mark();
    emu.faults.add({ name: 'reset', match: { resource: 'loadbalancers' }, action: { type: 'watchDrop', mode: 'reset', afterMs: 50 }, times: 2 });
    const { client } = await connect(target);
    const relisted = () => eventually(() => lists(mark).length >= 2, `re-listed after the reset:\n${journal(emu, mark)}`, 10_000);
    const { wait } = await waitForNewLb(client, {}, relisted);
    await wait;
  });

  it('a stalled stream (headers, then silence) is abandoned after the idle timeout and resumed (emulator: fault injection)', async function () {
    requireEmulator(this, target);
    const emu = emulator();
    const mark = emu.journal.mark();
    emu.faults.add({ name: 'stall', match: { resource: 'loadbalancers' }, action: { type: 'watchDrop', mode: 'stall' }, times: 1 });
    const { client } = await connect(target);
    const { wait } = await waitForNewLb(client, { idleTimeoutMs: 300 });
    await wait;
    assert.ok(watches(mark).length >= 2, journal(emu, mark));
  });

  it('resuming from a compacted history gets 410 and re-lists (emulator: fault injection)', async function () {
    requireEmulator(this, target);
    const emu = emulator();
    const mark = emu.journal.mark();
    emu.faults.add({ name: 'drop-once', match: { resource: 'loadbalancers' }, action: { type: 'watchDrop', mode: 'clean', afterMs: 400 }, times: 1 });
    const { client } = await connect(target);
    const name = target.name(`lb-w${++n}`);
    const owner = { resourceType: 'load-balancer', resourceName: name };
    const lines: string[] = [];
    const wait = waitFor<LoadBalancer>({ resource: client.loadBalancers, namespace: ns, name, check: ([o]) => addressed(o), timeoutMs: 15_000, what: name, backoffInitialMs: 50, onProgress: (l) => lines.push(l) });
    await eventually(() => lines.length > 0, 'the first list of the wait', 10_000);
    // Unrelated writes move the resourceVersion on; then the history is dropped before the watch resumes.
    await client.namespaces.create({ metadata: { name: `ns-compact-${n}` } });
    emu.faults.compact();
    // The stream is dropped after 400 ms; resuming from the compacted version gets 410, which must re-list.
    await eventually(() => lists(mark).length >= 2, `re-listed after 410 on resume:\n${journal(emu, mark)}`, 10_000);
    await client.loadBalancers.create(loadBalancer(target, name, pool, owner), { owner });
    const [lb] = await wait;
    assert.ok(lb.status?.address, 'the wait still sees the object created after the re-list');
  });

  it('a set selected by labels is awaited as a whole (2/2)', async function () {
    requireLbSubnet(this, target);
    const { client } = await connect(target);
    const owner = { resourceType: 'load-balancer', resourceName: target.name('set') };
    const lines: string[] = [];
    const wait = waitFor<LoadBalancer>({
      resource: client.loadBalancers,
      namespace: ns,
      labelSelector: ownerSelector(owner),
      check: (os) => ({ done: os.length === 2 && os.every((o) => o.status?.address), description: `${os.filter((o) => o.status?.address).length}/2 load balancers have an address` }),
      timeoutMs: Math.max(15_000, target.timeouts.waitMs),
      what: `the load balancers of "${owner.resourceName}"`,
      onProgress: (l) => lines.push(l),
    });
    const names = [target.name('set-a'), target.name('set-b')];
    for (const name of names) await client.loadBalancers.create(loadBalancer(target, name, pool, owner), { owner });
    const got = await wait;
    assert.deepEqual(got.map((o) => o.metadata.name), names);
    assert.equal(lines[0], '0/2 load balancers have an address');
    assert.equal(lines[lines.length - 1], '2/2 load balancers have an address');
  });

  it('a token that expires mid-wait fails the wait at once with TokenExpired (emulator: token expiry)', async function () {
    requireEmulator(this, target);
    const emu = emulator();
    emu.faults.add({ name: 'drop', match: { resource: 'settings' }, action: { type: 'watchDrop', mode: 'clean', afterMs: 200 }, times: 1 });
    const { client } = await connect(target);
    // Backoffs and the deadline run on a ManualClock moved in 50 ms steps, never past 5 s: ending there with
    // TokenExpired (not WaitTimeout at 20 s) is "at once", whatever the machine's load.
    const clock = new ManualClock();
    const started = clock.now().getTime();
    const lines: string[] = [];
    const wait = waitFor({ resource: client.settings, name: 'never-there', check: (os) => ({ done: os.length > 0, description: 'absent' }), timeoutMs: 20_000, what: 'a setting', backoffInitialMs: 50, onProgress: (l) => lines.push(l), clock });
    let err: any;
    void wait.then(() => (err = new Error('the wait succeeded')), (e) => (err = e));
    await eventually(() => lines.length > 0, 'the first list of the wait', 10_000);
    emu.faults.expireToken();
    await eventually(() => {
      if (err === undefined && clock.now().getTime() - started < 5_000) clock.advance(50);
      return err !== undefined;
    }, 'the wait ends within 5 s of its clock', 15_000);
    assert.equal(err.code, 'TokenExpired', String(err));
    assert.ok(!err.message.includes(emu.token), 'no token in the message');
    emu.faults.rotateToken();
  });

  it('times out with what was awaited, the last state seen, and the option to raise', async () => {
    const { client } = await connect(target);
    const clock = new ManualClock();
    const lines: string[] = [];
    const name = target.name('lb-never');
    const wait = waitFor<LoadBalancer>({
      resource: client.loadBalancers,
      namespace: ns,
      name,
      check: ([o]) => addressed(o),
      timeoutMs: 600_000,
      what: `LoadBalancer ${ns}/${name} to get an address`,
      timeoutOption: 'timeouts.create',
      clock,
      onProgress: (l) => lines.push(l),
    });
    // The first progress line means the first read is done (a real cluster may take a moment).
    await eventually(() => lines.length > 0, 'the first list of the wait', 10_000);
    clock.advance(600_000);
    const err = await wait.catch((e) => e);
    assert.ok(err instanceof WaitTimeoutError, String(err));
    assert.equal(err.object, `LoadBalancer ${ns}/${name}`);
    assert.match(err.message, new RegExp(`^Timed out after 10m0s waiting for LoadBalancer ${literal(`${ns}/${name}`)} to get an address\\. Last seen: not created yet\\.`));
    assert.match(err.message, /raise `timeouts\.create` \(now 10m0s\)/);
  });
});
