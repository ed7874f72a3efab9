/**
 * The client's reads and writes: under faults injected into the emulator (latency, 503 bursts, 429 with
 * Retry-After, connection resets, 409 conflicts, server-side-apply field conflicts; emulator only), and what
 * holds on any cluster: ownership is enforced, status (IPPool allocations) is never dropped, Harvester's
 * webhook denials come back typed, deletes report finalizers.
 */
import assert from 'node:assert/strict';
import { waitFor, waitForDeletion } from '../../provider/await/awaiter';
import { ConflictError, NotOwnedError } from '../../provider/client/errors';
import type { HarvesterClient } from '../../provider/client/harvester-client';
import { IPPool, LoadBalancer } from '../../provider/client/objects';
import { OwnerIdentity, isOwnedBy, ownerLabels } from '../../provider/client/ownership';
import { requireEmulator, requireLbSubnet, suiteTimeout, TestTarget } from '../support/target';
import { connect, createTestPool, inRange, journal, literal, loadBalancer, PoolRange, startClientTarget, TestPool } from './client-support';

describe('client: reads and writes, ownership and status (faults injected on the emulator only)', function () {
  this.timeout(suiteTimeout(30_000, 20 * 60_000));
  let target: TestTarget;
  let ns: string;
  let owner: OwnerIdentity;
  let poolOwner: OwnerIdentity;
  let pool: string;
  let range: PoolRange | undefined;
  /** Load balancers owned by `owner` that exist now (what the owner selector must find). */
  const owned = new Set<string>();

  let testPool: TestPool | undefined;

  before(async () => {
    target = await startClientTarget();
    ns = target.fixtures.namespace;
    owner = { resourceType: 'load-balancer', resourceName: target.name('web') };
    testPool = await createTestPool(target, 0);
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

  /** Create an LB owned by `owner` and remember it. */
  async function createOwned(client: HarvesterClient, name: string): Promise<LoadBalancer> {
    const lb = await client.loadBalancers.create(loadBalancer(target, name, pool, owner), { owner });
    owned.add(name);
    return lb;
  }

  /** Wait until Harvester's LB controller gave `name` an address from our pool. */
  async function addressOf(client: HarvesterClient, name: string): Promise<string> {
    const [lb] = await waitFor<LoadBalancer>({
      resource: client.loadBalancers,
      namespace: ns,
      name,
      check: ([o]) => ({ done: Boolean(o?.status?.address), description: o?.status?.address ?? 'no address yet' }),
      timeoutMs: target.timeouts.waitMs,
      what: `${name} to get an address`,
    });
    return lb.status!.address!;
  }

  it('reads succeed under added latency (emulator: fault injection)', async function () {
    requireEmulator(this, target);
    const emu = target.emulator.emulator;
    emu.faults.add({ name: 'slow', match: { verb: ['get', 'list'] }, action: { type: 'latency', ms: 120 }, times: 2 });
    const { client, sleeps } = await connect(target);
    const started = Date.now();
    const nodes = await client.nodes.list();
    const [keyNs, keyName] = target.fixtures.keyPair.split('/');
    const key = await client.keyPairs.get(keyName, keyNs);
    assert.ok(Date.now() - started >= 240, 'both requests were delayed');
    assert.equal(nodes.items.length, 3);
    assert.equal(key?.metadata.name, keyName);
    assert.deepEqual(sleeps, [], 'latency alone is not retried');
  });

  it('a 503 burst is retried with growing delays until the read passes (emulator: fault injection)', async function () {
    requireEmulator(this, target);
    const emu = target.emulator.emulator;
    const mark = emu.journal.mark();
    emu.faults.add({ name: '503-burst', match: { verb: 'list', resource: 'nodes' }, action: { type: 'error', code: 503 }, times: 3 });
    const { client, sleeps } = await connect(target);
    const zoneA = await client.nodes.list({ labelSelector: 'topology.kubernetes.io/zone=us-east-1a' });
    assert.deepEqual(zoneA.items.map((n) => n.metadata.name), ['harvester-node-0']);
    assert.deepEqual(emu.journal.entries({ verb: 'list', resource: 'nodes', since: mark }).map((e) => e.status), [503, 503, 503, 200], journal(emu, mark));
    assert.equal(sleeps.length, 3);
    assert.ok(sleeps[0] < sleeps[1] || sleeps[1] < sleeps[2], `delays grow: ${sleeps}`);
  });

  it('a 503 burst longer than the budget fails as Unavailable with the attempt count (emulator: fault injection)', async function () {
    requireEmulator(this, target);
    target.emulator.emulator.faults.add({ name: 'down', match: { verb: 'get', resource: 'settings' }, action: { type: 'error', code: 503 }, times: 10 });
    const { client } = await connect(target, { maxAttempts: 3 });
    const err = await client.settings.get('server-version').catch((e) => e);
    assert.equal(err.code, 'Unavailable');
    assert.equal(err.attempts, 3);
    assert.equal(err.object, 'Setting server-version');
    assert.match(err.message, /\(503 ServiceUnavailable: the server is currently unable to handle the request\)\. Gave up after 3 attempts\./);
  });

  it('429 waits at least Retry-After (Status JSON and APF text/plain) (emulator: fault injection)', async function () {
    requireEmulator(this, target);
    const emu = target.emulator.emulator;
    const mark = emu.journal.mark();
    emu.faults.add(
      { name: 'apf', match: { verb: 'get', resource: 'settings' }, action: { type: 'error', code: 429, format: 'plain', retryAfterSeconds: 2 }, times: 1 },
      { name: 'throttle', match: { verb: 'get', resource: 'settings' }, action: { type: 'error', code: 429, retryAfterSeconds: 3 }, times: 1 },
    );
    const { client, sleeps } = await connect(target);
    assert.equal((await client.settings.get('server-version'))?.value, 'v1.6.1');
    assert.deepEqual(sleeps, [2000, 3000]);
    assert.deepEqual(emu.journal.entries({ verb: 'get', resource: 'settings', since: mark }).map((e) => e.status), [429, 429, 200]);
  });

  it('a create whose connection is reset is read back first, then sent again: one object (emulator: fault injection)', async function () {
    requireEmulator(this, target);
    const emu = target.emulator.emulator;
    const mark = emu.journal.mark();
    emu.faults.add({ name: 'reset', match: { verb: 'create', resource: 'loadbalancers' }, action: { type: 'reset' }, times: 1 });
    const { client } = await connect(target);
    const name = target.name('lb-reset');
    const created = await createOwned(client, name);
    assert.equal(created.metadata.name, name);
    const calls = emu.journal.entries({ resource: 'loadbalancers', since: mark }).map((e) => `${e.method} ${e.status}`);
    assert.deepEqual(calls, ['POST 0', 'GET 404', 'POST 201'], journal(emu, mark));
  });

  it('a create that landed before a 503 is returned, not sent again (emulator: fault injection)', async function () {
    requireEmulator(this, target);
    const emu = target.emulator.emulator;
    const { client } = await connect(target);
    const name = target.name('lb-landed');
    // GIVEN our earlier POST was stored although its answer was lost
    await createOwned(client, name);
    emu.faults.add({ name: '503-create', match: { verb: 'create', resource: 'loadbalancers' }, action: { type: 'error', code: 503 }, times: 1 });
    const mark = emu.journal.mark();
    // WHEN the provider creates it (again)
    const got = await client.loadBalancers.create(loadBalancer(target, name, pool, owner), { owner });
    // THEN it gets the stored object and sends no second POST
    assert.ok(got.metadata.uid);
    const calls = emu.journal.entries({ resource: 'loadbalancers', since: mark }).map((e) => `${e.method} ${e.status}`);
    assert.deepEqual(calls, ['POST 503', 'GET 200'], journal(emu, mark));
  });

  it('a read-modify-write whose mutator drops status keeps the pool\'s allocations; a merge patch leaves status alone', async function () {
    requireLbSubnet(this, target);
    const { client } = await connect(target);
    const name = target.name('lb-alloc');
    await createOwned(client, name);
    const ip = await addressOf(client, name);
    assert.ok(inRange(ip, range!), `address ${ip} from the test pool ${JSON.stringify(range)}`);
    const updated = await client.ipPools.update(
      pool,
      undefined,
      (p) => {
        p.spec!.description = 'front-end VIPs';
        delete p.status; // a careless mutator: the client must still send the allocations back
        return p;
      },
      { owner: poolOwner },
    );
    assert.equal(updated.spec?.description, 'front-end VIPs');
    assert.equal(updated.status?.allocated?.[ip], `${ns}/${name}`);

    const patched = await client.ipPools.mergePatch(pool, { spec: { description: 'patched' } }, { owner: poolOwner });
    assert.equal(patched.status?.allocated?.[ip], `${ns}/${name}`, 'a merge patch leaves status alone');
  });

  it('409 conflicts on a read-modify-write are re-read and re-applied, and the pool keeps its allocations (emulator: fault injection)', async function () {
    requireEmulator(this, target);
    const emu = target.emulator.emulator;
    const { client } = await connect(target);
    const name = target.name('lb-conflict');
    await createOwned(client, name);
    const ip = await addressOf(client, name);
    const mark = emu.journal.mark();
    emu.faults.add({ name: 'stale', match: { verb: 'update', resource: 'ippools' }, action: { type: 'conflict' }, times: 2 });
    const updated = await client.ipPools.update(
      pool,
      undefined,
      (p) => {
        p.spec!.description = 'front-end VIPs, again';
        delete p.status;
        return p;
      },
      { owner: poolOwner },
    );
    assert.equal(updated.spec?.description, 'front-end VIPs, again');
    assert.equal(updated.status?.allocated?.[ip], `${ns}/${name}`);
    const calls = emu.journal.entries({ resource: 'ippools', since: mark }).map((e) => `${e.method} ${e.status}`);
    assert.deepEqual(calls, ['GET 200', 'PUT 409', 'GET 200', 'PUT 409', 'GET 200', 'PUT 200'], journal(emu, mark));
  });

  it('server-side apply writes as harvester-iac', async function () {
    requireLbSubnet(this, target);
    const { client } = await connect(target);
    const name = target.name('lb-ssa');
    const applied = await client.loadBalancers.apply(loadBalancer(target, name, pool, owner), { owner });
    owned.add(name);
    const managers = (applied.metadata.managedFields as { manager: string; operation: string }[] | undefined) ?? [];
    assert.ok(managers.some((m) => m.manager === 'harvester-iac' && m.operation === 'Apply'), JSON.stringify(managers));
  });

  it('a server-side-apply field-manager conflict surfaces with its causes (emulator: fault injection)', async function () {
    requireEmulator(this, target);
    const { client } = await connect(target);
    const name = target.name('lb-ssa');
    target.emulator.emulator.faults.add({ name: 'ssa', match: { verb: 'patch', resource: 'loadbalancers' }, action: { type: 'conflict', reason: 'FieldManagerConflict', manager: 'kubectl', field: '.spec.ipam' }, times: 1 });
    const err = await client.loadBalancers.apply(loadBalancer(target, name, pool, owner), { owner }).catch((e) => e);
    assert.ok(err instanceof ConflictError, String(err));
    assert.deepEqual(err.causes.map((c) => [c.reason, c.field]), [['FieldManagerConflict', '.spec.ipam']]);
  });

  it('Harvester webhook denials and schema errors come back typed, naming the field', async function () {
    requireLbSubnet(this, target);
    const { client } = await connect(target);
    const denied = await client.loadBalancers
      .update(target.name('lb-ssa'), ns, (l) => ({ ...l, spec: { ...l.spec, ipam: 'dhcp' } }), { owner })
      .catch((e) => e);
    // A real cluster relays the load-balancer webhook's denial as 500 InternalError (wrangler's router); the
    // client must classify it as a denial, not a retryable server failure.
    assert.equal(denied.code, 'AdmissionDenied');
    assert.equal(denied.attempts, undefined, 'a denial is not retried');
    assert.match(denied.message, /admission webhook "validator\.harvester-system\.harvester-load-balancer-webhook" denied the update of LoadBalancer .*: update loadbalancer .* failed: can't change the IPAM from pool to dhcp/);

    const bad = loadBalancer(target, target.name('lb-bad'), pool, owner);
    bad.spec!.ipam = 'static';
    const invalid = await client.loadBalancers.create(bad, { owner }).catch((e) => e);
    assert.equal(invalid.code, 'Invalid');
    assert.ok(invalid.causes.some((c: { field?: string }) => c.field === 'spec.ipam'), JSON.stringify(invalid.causes));
  });

  /** Try to delete and to patch the fixture key pair (not ours) as `owner`. */
  async function touchForeignKeyPair(client: HarvesterClient) {
    const [keyNs, keyName] = target.fixtures.keyPair.split('/');
    const del = await client.keyPairs.delete(keyName, { namespace: keyNs, owner }).catch((e) => e);
    const patch = await client.keyPairs.mergePatch(keyName, { metadata: { labels: { x: 'y' } } }, { namespace: keyNs, owner }).catch((e) => e);
    return { del, patch };
  }

  it('refuses to change or delete a key pair it does not own, and leaves it intact', async () => {
    const { client } = await connect(target);
    const [keyNs, keyName] = target.fixtures.keyPair.split('/');
    const before = await client.keyPairs.get(keyName, keyNs);
    const { del, patch } = await touchForeignKeyPair(client);
    assert.ok(del instanceof NotOwnedError);
    assert.match(del.message, new RegExp(`Refusing to delete KeyPair ${literal(target.fixtures.keyPair)}: it is not managed by harvester-iac`));
    assert.equal(patch.code, 'NotOwned');
    const after = await client.keyPairs.get(keyName, keyNs);
    assert.ok(after);
    assert.equal(after.metadata.resourceVersion, before?.metadata.resourceVersion, 'the key pair was not written');
  });

  it("refuses to delete another harvester-iac resource's object", async function () {
    requireLbSubnet(this, target);
    const { client } = await connect(target);
    const theirs = await client.loadBalancers.delete(target.name('lb-ssa'), { namespace: ns, owner: { resourceType: 'load-balancer', resourceName: 'other' } }).catch((e) => e);
    assert.ok(theirs instanceof NotOwnedError, String(theirs));
    assert.match(theirs.message, new RegExp(`belongs to another harvester-iac resource \\(load-balancer "${literal(owner.resourceName)}"\\)`));
    assert.ok(await client.loadBalancers.get(target.name('lb-ssa'), ns), 'the load balancer is still there');
  });

  it('refusing sends only reads (emulator: request journal)', async function () {
    requireEmulator(this, target);
    const emu = target.emulator.emulator;
    const { client } = await connect(target);
    const mark = emu.journal.mark();
    const { del, patch } = await touchForeignKeyPair(client);
    assert.equal(del.code, 'NotOwned');
    assert.equal(patch.code, 'NotOwned');
    assert.deepEqual(emu.journal.entries({ since: mark }).map((e) => e.method), ['GET', 'GET'], 'only reads were sent');
  });

  it("delete says 'deleting' while the controller's finalizer holds it; waitForDeletion sees it go", async function () {
    requireLbSubnet(this, target);
    const { client } = await connect(target);
    const lbName = target.name('lb-del');
    await createOwned(client, lbName);
    await waitFor<LoadBalancer>({
      resource: client.loadBalancers,
      namespace: ns,
      name: lbName,
      check: ([o]) => ({ done: (o?.metadata.finalizers ?? []).length > 0 && Boolean(o?.status?.address), description: 'finalizer and address' }),
      timeoutMs: target.timeouts.waitMs,
      what: `the LB controller to take ${lbName}`,
    });
    assert.equal(await client.loadBalancers.delete(lbName, { namespace: ns, owner }), 'deleting');
    await waitForDeletion<LoadBalancer>({ resource: client.loadBalancers, namespace: ns, name: lbName, timeoutMs: target.timeouts.waitMs, what: `${lbName} to be gone` });
    owned.delete(lbName);
    assert.equal(await client.loadBalancers.delete(lbName, { namespace: ns, owner }), 'absent');
    const live = (await client.ipPools.get(pool)) as IPPool;
    assert.ok(!Object.values(live.status?.allocated ?? {}).includes(`${ns}/${lbName}`), 'the address went back to the pool');
  });

  it('stamped objects are found by the owner selector, exactly', async function () {
    requireLbSubnet(this, target);
    const { client } = await connect(target);
    const sel = Object.entries(ownerLabels(owner)).map(([k, v]) => `${k}=${v}`).join(',');
    const mine = await client.loadBalancers.list({ namespace: ns, labelSelector: sel });
    assert.ok(mine.items.length >= 2, `at least the LBs of the tests above: ${[...owned]}`);
    assert.deepEqual(mine.items.map((o) => o.metadata.name).sort(), [...owned].sort());
    assert.ok(mine.items.every((o) => isOwnedBy(o, owner)));
    const all = await client.loadBalancers.list({ namespace: ns });
    assert.equal(all.items.filter((o) => isOwnedBy(o, owner)).length, mine.items.length, 'the selector finds exactly the owned ones');
  });
});
