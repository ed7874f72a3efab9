/**
 * Waits against the emulator while the watch misbehaves: streams that end cleanly, end with ERROR 410,
 * are reset or stall; history compacted under a resuming watch; a token that expires mid-wait; and the
 * timeout message. Each wait must still see the truth (or fail exactly as specified).
 */
import assert from 'node:assert/strict';
import { Emulator, ManualClock } from '../../emulator';
import { waitFor } from '../../provider/await/awaiter';
import { WaitTimeoutError } from '../../provider/await/errors';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { LoadBalancer } from '../../provider/client/objects';
import { ownerSelector } from '../../provider/client/ownership';
import { connect, emulator, ipPool, journal, loadBalancer } from './client-support';

const addressed = (o?: LoadBalancer) => ({
  done: Boolean(o?.status?.address),
  description: o === undefined ? 'not created yet' : o.status?.address ? `address ${o.status.address}` : 'waiting for an address',
  pending: o?.status?.address ? [] : ['status.address'],
});

describe('client on the emulator: waits with dropped and broken watches', function () {
  this.timeout(30_000);
  let emu: Emulator;
  let n = 0;

  before(async () => {
    emu = await emulator();
    const { client } = await connect(emu);
    await client.ipPools.create(ipPool('vip', 70), { owner: { resourceType: 'ip-pool', resourceName: 'vip' } });
  });
  after(async () => emu?.stop());
  afterEach(() => emu.faults.clear());

  /** Start waiting for a new LB's address, then create it; returns the wait and the LB name. */
  async function waitForNewLb(client: HarvesterClient, extra: { idleTimeoutMs?: number; backoffInitialMs?: number } = {}) {
    const name = `lb-w${++n}`;
    const owner = { resourceType: 'load-balancer', resourceName: name };
    const lines: string[] = [];
    const wait = waitFor<LoadBalancer>({
      resource: client.loadBalancers,
      namespace: 'default',
      name,
      check: ([o]) => addressed(o),
      timeoutMs: 15_000,
      what: `LoadBalancer default/${name} to get an address`,
      onProgress: (l) => lines.push(l),
      backoffInitialMs: 50,
      ...extra,
    });
    // Let the first list and watch start before the object appears, so its events come over the watch.
    await new Promise((r) => setTimeout(r, 100));
    await client.loadBalancers.create(loadBalancer(name, 'vip', owner), { owner });
    return { name, wait, lines };
  }

  const watches = (since: number) => emu.journal.entries({ verb: 'watch', resource: 'loadbalancers', since });
  const lists = (since: number) => emu.journal.entries({ verb: 'list', resource: 'loadbalancers', since });

  it('a stream that ends cleanly after each event is resumed from the last resourceVersion, without re-listing', async () => {
    const mark = emu.journal.mark();
    emu.faults.add({ name: 'clean', match: { resource: 'loadbalancers' }, action: { type: 'watchDrop', mode: 'clean', afterEvents: 1 } });
    const { client } = await connect(emu);
    const { wait, lines } = await waitForNewLb(client);
    const [lb] = await wait;
    assert.match(lb.status!.address!, /^192\.168\.70\./);
    assert.equal(lines[0], 'not created yet');
    assert.equal(lines[lines.length - 1], `address ${lb.status!.address}`);
    assert.equal(lists(mark).length, 1, journal(emu, mark));
    const resumed = watches(mark).slice(1);
    assert.ok(resumed.length >= 1, journal(emu, mark));
    assert.ok(resumed.every((w) => /[?&]resourceVersion=\d+/.test(w.url)), `every re-watch resumes from a version:\n${journal(emu, mark)}`);
  });

  it('ERROR 410 Expired on the stream makes it re-list, then watch again', async () => {
    const mark = emu.journal.mark();
    emu.faults.add({ name: 'expire', match: { resource: 'loadbalancers' }, action: { type: 'watchDrop', mode: 'expire', afterMs: 50 }, times: 2 });
    const { client } = await connect(emu);
    const { wait } = await waitForNewLb(client);
    await wait;
    assert.ok(lists(mark).length >= 2, `re-listed after 410:\n${journal(emu, mark)}`);
  });

  it('a reset stream is re-listed after a backoff and the wait still succeeds', async () => {
    const mark = emu.journal.mark();
    emu.faults.add({ name: 'reset', match: { resource: 'loadbalancers' }, action: { type: 'watchDrop', mode: 'reset', afterMs: 50 }, times: 2 });
    const { client } = await connect(emu);
    const { wait } = await waitForNewLb(client);
    await wait;
    assert.ok(lists(mark).length >= 2, `re-listed after the reset:\n${journal(emu, mark)}`);
  });

  it('a stalled stream (headers, then silence) is abandoned after the idle timeout and resumed', async () => {
    const mark = emu.journal.mark();
    emu.faults.add({ name: 'stall', match: { resource: 'loadbalancers' }, action: { type: 'watchDrop', mode: 'stall' }, times: 1 });
    const { client } = await connect(emu);
    const { wait } = await waitForNewLb(client, { idleTimeoutMs: 300 });
    await wait;
    assert.ok(watches(mark).length >= 2, journal(emu, mark));
  });

  it('resuming from a compacted history gets 410 and re-lists', async () => {
    const mark = emu.journal.mark();
    emu.faults.add({ name: 'drop-once', match: { resource: 'loadbalancers' }, action: { type: 'watchDrop', mode: 'clean', afterMs: 400 }, times: 1 });
    const { client } = await connect(emu);
    const name = `lb-w${++n}`;
    const owner = { resourceType: 'load-balancer', resourceName: name };
    const wait = waitFor<LoadBalancer>({ resource: client.loadBalancers, namespace: 'default', name, check: ([o]) => addressed(o), timeoutMs: 15_000, what: name, backoffInitialMs: 50 });
    await new Promise((r) => setTimeout(r, 100));
    // Unrelated writes move the resourceVersion on; then the history is dropped before the watch resumes.
    await client.namespaces.create({ metadata: { name: `ns-compact-${n}` } });
    emu.faults.compact();
    await new Promise((r) => setTimeout(r, 500));
    await client.loadBalancers.create(loadBalancer(name, 'vip', owner), { owner });
    await wait;
    assert.ok(lists(mark).length >= 2, `re-listed after 410 on resume:\n${journal(emu, mark)}`);
  });

  it('a set selected by labels is awaited as a whole (2/2)', async () => {
    const { client } = await connect(emu);
    const owner = { resourceType: 'load-balancer', resourceName: 'set' };
    const lines: string[] = [];
    const wait = waitFor<LoadBalancer>({
      resource: client.loadBalancers,
      namespace: 'default',
      labelSelector: ownerSelector(owner),
      check: (os) => ({ done: os.length === 2 && os.every((o) => o.status?.address), description: `${os.filter((o) => o.status?.address).length}/2 load balancers have an address` }),
      timeoutMs: 15_000,
      what: 'the load balancers of "set"',
      onProgress: (l) => lines.push(l),
    });
    await client.loadBalancers.create(loadBalancer('set-a', 'vip', owner), { owner });
    await client.loadBalancers.create(loadBalancer('set-b', 'vip', owner), { owner });
    const got = await wait;
    assert.deepEqual(got.map((o) => o.metadata.name), ['set-a', 'set-b']);
    assert.equal(lines[0], '0/2 load balancers have an address');
    assert.equal(lines[lines.length - 1], '2/2 load balancers have an address');
  });

  it('a token that expires mid-wait fails the wait at once with TokenExpired', async () => {
    emu.faults.add({ name: 'drop', match: { resource: 'settings' }, action: { type: 'watchDrop', mode: 'clean', afterMs: 200 }, times: 1 });
    const { client } = await connect(emu);
    const started = Date.now();
    const wait = waitFor({ resource: client.settings, name: 'never-there', check: (os) => ({ done: os.length > 0, description: 'absent' }), timeoutMs: 20_000, what: 'a setting', backoffInitialMs: 50 });
    await new Promise((r) => setTimeout(r, 100));
    emu.faults.expireToken();
    const err = await wait.catch((e) => e);
    assert.equal(err.code, 'TokenExpired', String(err));
    assert.ok(Date.now() - started < 5_000, 'did not wait for the deadline');
    assert.ok(!err.message.includes(emu.token), 'no token in the message');
    emu.faults.rotateToken();
  });

  it('times out with what was awaited, the last state seen, and the option to raise', async () => {
    const { client } = await connect(emu);
    const clock = new ManualClock();
    const lines: string[] = [];
    const wait = waitFor<LoadBalancer>({
      resource: client.loadBalancers,
      namespace: 'default',
      name: 'lb-never',
      check: ([o]) => addressed(o),
      timeoutMs: 600_000,
      what: 'LoadBalancer default/lb-never to get an address',
      timeoutOption: 'timeouts.create',
      clock,
      onProgress: (l) => lines.push(l),
    });
    for (let i = 0; i < 100 && lines.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    clock.advance(600_000);
    const err = await wait.catch((e) => e);
    assert.ok(err instanceof WaitTimeoutError, String(err));
    assert.equal(err.object, 'LoadBalancer default/lb-never');
    assert.match(err.message, /^Timed out after 10m0s waiting for LoadBalancer default\/lb-never to get an address\. Last seen: not created yet\./);
    assert.match(err.message, /raise `timeouts\.create` \(now 10m0s\)/);
  });
});
