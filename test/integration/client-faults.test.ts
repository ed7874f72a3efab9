/**
 * The client against the embedded emulator with faults on: reads and writes succeed or fail exactly as
 * specified under latency, 503 bursts, 429 with Retry-After, connection resets, 409 conflicts and
 * server-side-apply field conflicts; ownership is enforced; status (IPPool allocations) is never dropped.
 */
import assert from 'node:assert/strict';
import { Emulator } from '../../emulator';
import { waitFor, waitForDeletion } from '../../provider/await/awaiter';
import { ConflictError, NotOwnedError } from '../../provider/client/errors';
import { IPPool, LoadBalancer } from '../../provider/client/objects';
import { isOwnedBy, ownerLabels } from '../../provider/client/ownership';
import { connect, emulator, ipPool, journal, loadBalancer } from './client-support';

const owner = { resourceType: 'load-balancer', resourceName: 'web' };
const poolOwner = { resourceType: 'ip-pool', resourceName: 'vip' };

describe('client on the emulator: reads and writes under faults', function () {
  this.timeout(30_000);
  let emu: Emulator;

  before(async () => {
    emu = await emulator();
    const { client } = await connect(emu);
    await client.ipPools.create(ipPool('vip', 60), { owner: poolOwner });
  });
  after(async () => emu?.stop());
  afterEach(() => emu.faults.clear());

  it('reads succeed under added latency', async () => {
    emu.faults.add({ name: 'slow', match: { verb: ['get', 'list'] }, action: { type: 'latency', ms: 120 }, times: 2 });
    const { client, sleeps } = await connect(emu);
    const started = Date.now();
    const nodes = await client.nodes.list();
    const key = await client.keyPairs.get('ops-key', 'default');
    assert.ok(Date.now() - started >= 240, 'both requests were delayed');
    assert.equal(nodes.items.length, 3);
    assert.equal(key?.metadata.name, 'ops-key');
    assert.deepEqual(sleeps, [], 'latency alone is not retried');
  });

  it('a 503 burst is retried with growing delays until the read passes', async () => {
    const mark = emu.journal.mark();
    emu.faults.add({ name: '503-burst', match: { verb: 'list', resource: 'nodes' }, action: { type: 'error', code: 503 }, times: 3 });
    const { client, sleeps } = await connect(emu);
    const zoneA = await client.nodes.list({ labelSelector: 'topology.kubernetes.io/zone=us-east-1a' });
    assert.deepEqual(zoneA.items.map((n) => n.metadata.name), ['harvester-node-0']);
    assert.deepEqual(emu.journal.entries({ verb: 'list', resource: 'nodes', since: mark }).map((e) => e.status), [503, 503, 503, 200], journal(emu, mark));
    assert.equal(sleeps.length, 3);
    assert.ok(sleeps[0] < sleeps[1] || sleeps[1] < sleeps[2], `delays grow: ${sleeps}`);
  });

  it('a 503 burst longer than the budget fails as Unavailable with the attempt count', async () => {
    emu.faults.add({ name: 'down', match: { verb: 'get', resource: 'settings' }, action: { type: 'error', code: 503 }, times: 10 });
    const { client } = await connect(emu, { maxAttempts: 3 });
    const err = await client.settings.get('server-version').catch((e) => e);
    assert.equal(err.code, 'Unavailable');
    assert.equal(err.attempts, 3);
    assert.equal(err.object, 'Setting server-version');
    assert.match(err.message, /\(503 ServiceUnavailable: the server is currently unable to handle the request\)\. Gave up after 3 attempts\./);
  });

  it('429 waits at least Retry-After (Status JSON and APF text/plain)', async () => {
    const mark = emu.journal.mark();
    emu.faults.add(
      { name: 'apf', match: { verb: 'get', resource: 'settings' }, action: { type: 'error', code: 429, format: 'plain', retryAfterSeconds: 2 }, times: 1 },
      { name: 'throttle', match: { verb: 'get', resource: 'settings' }, action: { type: 'error', code: 429, retryAfterSeconds: 3 }, times: 1 },
    );
    const { client, sleeps } = await connect(emu);
    assert.equal((await client.settings.get('server-version'))?.value, 'v1.6.1');
    assert.deepEqual(sleeps, [2000, 3000]);
    assert.deepEqual(emu.journal.entries({ verb: 'get', resource: 'settings', since: mark }).map((e) => e.status), [429, 429, 200]);
  });

  it('a create whose connection is reset is read back first, then sent again: one object', async () => {
    const mark = emu.journal.mark();
    emu.faults.add({ name: 'reset', match: { verb: 'create', resource: 'loadbalancers' }, action: { type: 'reset' }, times: 1 });
    const { client } = await connect(emu);
    const created = await client.loadBalancers.create(loadBalancer('lb-reset', 'vip', owner), { owner });
    assert.equal(created.metadata.name, 'lb-reset');
    const calls = emu.journal.entries({ resource: 'loadbalancers', since: mark }).map((e) => `${e.method} ${e.status}`);
    assert.deepEqual(calls, ['POST 0', 'GET 404', 'POST 201'], journal(emu, mark));
  });

  it('a create that landed before a 503 is returned, not sent again', async () => {
    const kind = emu.registry.byKind('loadbalancer.harvesterhci.io/v1beta1', 'LoadBalancer')!;
    // GIVEN our earlier POST was stored although its answer was lost
    emu.store.create(kind, loadBalancer('lb-landed', 'vip', owner) as never);
    emu.faults.add({ name: '503-create', match: { verb: 'create', resource: 'loadbalancers' }, action: { type: 'error', code: 503 }, times: 1 });
    const mark = emu.journal.mark();
    const { client } = await connect(emu);
    // WHEN the provider creates it (again)
    const got = await client.loadBalancers.create(loadBalancer('lb-landed', 'vip', owner), { owner });
    // THEN it gets the stored object and sends no second POST
    assert.ok(got.metadata.uid);
    const calls = emu.journal.entries({ resource: 'loadbalancers', since: mark }).map((e) => `${e.method} ${e.status}`);
    assert.deepEqual(calls, ['POST 503', 'GET 200'], journal(emu, mark));
  });

  it('409 conflicts on a read-modify-write are re-read and re-applied, and the pool keeps its allocations', async () => {
    const { client } = await connect(emu);
    await client.loadBalancers.create(loadBalancer('lb-alloc', 'vip', owner), { owner });
    const [lbAlloc] = await waitFor<LoadBalancer>({
      resource: client.loadBalancers,
      namespace: 'default',
      name: 'lb-alloc',
      check: ([o]) => ({ done: Boolean(o?.status?.address), description: o?.status?.address ?? 'no address yet' }),
      timeoutMs: 10_000,
      what: 'lb-alloc to get an address',
    });
    const ip = lbAlloc.status!.address!;
    const mark = emu.journal.mark();
    emu.faults.add({ name: 'stale', match: { verb: 'update', resource: 'ippools' }, action: { type: 'conflict' }, times: 2 });
    const updated = await client.ipPools.update(
      'vip',
      undefined,
      (p) => {
        p.spec!.description = 'front-end VIPs';
        delete p.status; // a careless mutator: the client must still send the allocations back
        return p;
      },
      { owner: poolOwner },
    );
    assert.equal(updated.spec?.description, 'front-end VIPs');
    assert.equal(updated.status?.allocated?.[ip], 'default/lb-alloc');
    const calls = emu.journal.entries({ resource: 'ippools', since: mark }).map((e) => `${e.method} ${e.status}`);
    assert.deepEqual(calls, ['GET 200', 'PUT 409', 'GET 200', 'PUT 409', 'GET 200', 'PUT 200'], journal(emu, mark));

    const patched = await client.ipPools.mergePatch('vip', { spec: { description: 'patched' } }, { owner: poolOwner });
    assert.equal(patched.status?.allocated?.[ip], 'default/lb-alloc', 'a merge patch leaves status alone');
  });

  it('server-side apply writes as harvester-iac; a field-manager conflict surfaces with its causes', async () => {
    const { client } = await connect(emu);
    const applied = await client.loadBalancers.apply(loadBalancer('lb-ssa', 'vip', owner), { owner });
    const managers = (applied.metadata.managedFields as { manager: string; operation: string }[] | undefined) ?? [];
    assert.ok(managers.some((m) => m.manager === 'harvester-iac' && m.operation === 'Apply'), JSON.stringify(managers));

    emu.faults.add({ name: 'ssa', match: { verb: 'patch', resource: 'loadbalancers' }, action: { type: 'conflict', reason: 'FieldManagerConflict', manager: 'kubectl', field: '.spec.ipam' }, times: 1 });
    const err = await client.loadBalancers.apply(loadBalancer('lb-ssa', 'vip', owner), { owner }).catch((e) => e);
    assert.ok(err instanceof ConflictError, String(err));
    assert.deepEqual(err.causes.map((c) => [c.reason, c.field]), [['FieldManagerConflict', '.spec.ipam']]);
  });

  it('Harvester webhook denials and schema errors come back typed, naming the field', async () => {
    const { client } = await connect(emu);
    const denied = await client.loadBalancers
      .update('lb-ssa', 'default', (l) => ({ ...l, spec: { ...l.spec, ipam: 'dhcp' } }), { owner })
      .catch((e) => e);
    assert.equal(denied.code, 'BadRequest');
    assert.match(denied.message, /admission webhook .* denied the request: .*can't change the IPAM from pool to dhcp/);

    const bad = loadBalancer('lb-bad', 'vip', owner);
    bad.spec!.ipam = 'static';
    const invalid = await client.loadBalancers.create(bad, { owner }).catch((e) => e);
    assert.equal(invalid.code, 'Invalid');
    assert.ok(invalid.causes.some((c: { field?: string }) => c.field === 'spec.ipam'), JSON.stringify(invalid.causes));
  });

  it('refuses to change or delete what it does not own, and leaves it intact', async () => {
    const { client } = await connect(emu);
    const mark = emu.journal.mark();
    const del = await client.keyPairs.delete('ops-key', { namespace: 'default', owner }).catch((e) => e);
    assert.ok(del instanceof NotOwnedError);
    assert.match(del.message, /Refusing to delete KeyPair default\/ops-key: it is not managed by harvester-iac/);
    const patch = await client.keyPairs.mergePatch('ops-key', { metadata: { labels: { x: 'y' } } }, { namespace: 'default', owner }).catch((e) => e);
    assert.equal(patch.code, 'NotOwned');
    assert.deepEqual(emu.journal.entries({ since: mark }).map((e) => e.method), ['GET', 'GET'], 'only reads were sent');
    assert.ok(await client.keyPairs.get('ops-key', 'default'));

    // Another harvester-iac resource's object is not ours either.
    const theirs = await client.loadBalancers.delete('lb-ssa', { owner: { resourceType: 'load-balancer', resourceName: 'other' } }).catch((e) => e);
    assert.match(theirs.message, /belongs to another harvester-iac resource \(load-balancer "web"\)/);
  });

  it("delete says 'deleting' while the controller's finalizer holds it; waitForDeletion sees it go", async () => {
    const { client } = await connect(emu);
    const lbName = 'lb-del';
    await client.loadBalancers.create(loadBalancer(lbName, 'vip', owner), { owner });
    await waitFor<LoadBalancer>({
      resource: client.loadBalancers,
      name: lbName,
      check: ([o]) => ({ done: (o?.metadata.finalizers ?? []).length > 0 && Boolean(o?.status?.address), description: 'finalizer and address' }),
      timeoutMs: 10_000,
      what: 'the LB controller to take lb-del',
    });
    assert.equal(await client.loadBalancers.delete(lbName, { owner }), 'deleting');
    await waitForDeletion<LoadBalancer>({ resource: client.loadBalancers, name: lbName, timeoutMs: 10_000, what: 'lb-del to be gone' });
    assert.equal(await client.loadBalancers.delete(lbName, { owner }), 'absent');
    const pool = (await client.ipPools.get('vip')) as IPPool;
    assert.ok(!Object.values(pool.status?.allocated ?? {}).includes(`default/${lbName}`), 'the address went back to the pool');
  });

  it('stamped objects are found by the owner selector', async () => {
    const { client } = await connect(emu);
    const sel = Object.entries(ownerLabels(owner)).map(([k, v]) => `${k}=${v}`).join(',');
    const mine = await client.loadBalancers.list({ namespace: 'default', labelSelector: sel });
    assert.ok(mine.items.length >= 3);
    assert.ok(mine.items.every((o) => isOwnedBy(o, owner)));
    const all = await client.loadBalancers.list({ namespace: 'default' });
    assert.equal(all.items.filter((o) => isOwnedBy(o, owner)).length, mine.items.length, 'the selector finds exactly the owned ones');
  });
});
