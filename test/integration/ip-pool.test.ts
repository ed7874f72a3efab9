/**
 * HarvesterIPPool's handlers on the emulator, each path a user meets: check refusing a name we do not own and a
 * missing network; diff (only a rename replaces, old pool first); create adopting our own half-made pool and
 * refusing someone else's; read importing a pool (no recorded inputs, no drift, inputs free of outputs) and
 * showing an out-of-band edit; update removing the description, recreating a pool deleted behind our back, and
 * refusing a pool that changed hands. Emulator only (it writes pools by hand with the client).
 */
import assert from 'node:assert/strict';
import { waitFor, waitForDeletion } from '../../provider/await';
import { HarvesterClient } from '../../provider/client/harvester-client';
import type { IPPool } from '../../provider/client/objects';
import { createIPPoolProvider } from '../../provider/resources/ip-pool/handlers';
import { OUTPUT_ONLY, type IPPoolOutputs } from '../../provider/resources/ip-pool/model';
import { desiredPool } from '../../provider/resources/ip-pool/plan';
import { validateInputs } from '../../provider/resources/ip-pool/validate';
import { startTestEmulator, type TestEmulator } from '../support/emulator-harness';
import { acceptanceMode } from '../support/target';
import { fastConnect } from '../support/fast-connect';

type Raw = Record<string, unknown>;

describe('HarvesterIPPool handlers: ownership, import, drift and update paths', function () {
  this.timeout(60_000);
  let t: TestEmulator;
  let client: HarvesterClient;
  const connect = fastConnect();
  const pools = createIPPoolProvider({ connect });
  const fast = { create: '5s', update: '5s', delete: '5s' };
  const range = (n: number) => [{ subnet: `10.7${n}.0.0/24`, rangeStart: `10.7${n}.0.10`, rangeEnd: `10.7${n}.0.19` }];
  const args = (name: string, extra: Raw = {}): Raw => ({ kubeconfig: t.emulator.kubeconfig, name, ranges: range(1), timeouts: fast, ...extra });
  const inputsOf = (raw: Raw) => validateInputs(raw).inputs!;
  /** A pool written straight to the API, as another tool (or a half-finished create of ours) would leave it. */
  const writeByHand = (pool: IPPool) => client.ipPools.create(pool);
  const foreign = (name: string, n: number): IPPool => ({ apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'IPPool', metadata: { name }, spec: { ranges: range(n), selector: { priority: 0, scope: [] } } });

  before(async function () {
    if (acceptanceMode()) this.skip();
    t = await startTestEmulator();
    client = await HarvesterClient.connect({ kubeconfig: t.emulator.kubeconfig });
  });
  afterEach(async () => {
    for (const p of (await client?.ipPools.list({}))?.items ?? []) await client.ipPools.delete(p.metadata.name!);
  });
  after(async () => t?.stop());

  it('check refuses a pool of that name that harvester-iac does not own, and a VM network that does not exist', async () => {
    await writeByHand(foreign('taken', 2));
    const r = await pools.check({}, args('taken', { ranges: range(3), selector: { network: 'default/no-such-net' } }));
    const found = Object.fromEntries((r.failures ?? []).map((f) => [f.property, f.reason]));
    assert.deepEqual(Object.keys(found).sort(), ['name', 'selector.network']);
    assert.match(found.name, /^Refusing to manage IPPool taken: it is not managed by harvester-iac .*must not change it/);
    assert.match(found.name, /`kubectl label ippool taken --overwrite .*`. Or import it \(id "taken"\), or delete it \(`kubectl delete ippool taken`\) if nothing uses it\.$/);
    assert.equal(
      found['selector.network'],
      'VM network default/no-such-net does not exist (the webhook refuses the pool): create it, or name an existing NetworkAttachmentDefinition',
    );
  });

  it('diff replaces only on a rename, deleting the old pool first; other changes update in place', async () => {
    const outs = { ...inputsOf(args('p')), drift: [] } as unknown as Raw;
    assert.deepEqual(await pools.diff('p', outs, inputsOf(args('q'))), { changes: true, replaces: ['name'], deleteBeforeReplace: true });
    assert.deepEqual(await pools.diff('p', outs, inputsOf(args('p', { ranges: range(2) }))), { changes: true, replaces: [], deleteBeforeReplace: false });
    assert.deepEqual(await pools.diff('p', outs, inputsOf(args('p'))), { changes: false, replaces: [], deleteBeforeReplace: false });
  });

  it('create adopts a pool of its own left by an interrupted create, writing the inputs over it', async () => {
    await writeByHand(desiredPool(inputsOf(args('mine', { ranges: range(4), description: 'stale' }))));
    const { id, outs } = await pools.create(inputsOf(args('mine', { description: 'fresh' })));
    assert.equal(id, 'mine');
    assert.equal(outs!.ready, true);
    const live = (await client.ipPools.get('mine'))!;
    assert.deepEqual(live.spec!.ranges, range(1));
    assert.equal(live.spec!.description, 'fresh');
  });

  it('create refuses a pool of that name it does not own, and leaves it as it was', async () => {
    await writeByHand(foreign('theirs', 2));
    await assert.rejects(pools.create(inputsOf(args('theirs'))), /Refusing to create IPPool theirs: it is not managed by harvester-iac/);
    assert.deepEqual((await client.ipPools.get('theirs'))!.spec!.ranges, range(2));
  });

  it('read imports a pool with no recorded inputs: the live spec with defaults as inputs, no outputs among them, no drift', async () => {
    await writeByHand({ ...foreign('legacy', 5), spec: { ranges: range(5), selector: { priority: 3, scope: [{ namespace: 'team' }] } } });
    await waitUntilReady('legacy');
    const r = await pools.read('legacy', { kubeconfig: t.emulator.kubeconfig });
    assert.equal(r.id, 'legacy');
    assert.deepEqual(r.props!.drift, []);
    assert.equal(r.props!.total, 10);
    assert.deepEqual(r.inputs, {
      kubeconfig: t.emulator.kubeconfig,
      name: 'legacy',
      ranges: range(5),
      selector: { priority: 3, scope: [{ project: '*', namespace: 'team', guestCluster: '*' }] },
    });
    assert.ok(!('timeouts' in r.props!), 'the cluster does not record timeouts: the program\'s are taken (core/imported.ts)');
    for (const key of OUTPUT_ONLY) assert.ok(!(key in r.inputs!), `output ${key} is not an input`);
    assert.deepEqual(await pools.read('gone', { kubeconfig: t.emulator.kubeconfig }), {});
  });

  it('read shows an out-of-band edit as drift, and diff then reports a change to heal', async () => {
    const made = (await pools.create(inputsOf(args('edited', { description: 'ours' })))).outs!;
    await client.ipPools.mergePatch('edited', { spec: { description: 'theirs' } });
    const r = await pools.read('edited', made as unknown as Raw);
    assert.deepEqual(r.props!.drift, ['IPPool edited: description is "theirs", this resource set "ours"']);
    assert.equal(r.inputs!.description, 'theirs');
    assert.equal((await pools.diff('edited', r.props as Raw, inputsOf(args('edited', { description: 'ours' })))).changes, true);
  });

  it('update removes a description dropped from the inputs and keeps the pool Ready', async () => {
    const made = (await pools.create(inputsOf(args('desc', { description: 'to go' })))).outs!;
    const { outs } = await pools.update('desc', made as unknown as Raw, inputsOf(args('desc', { ranges: range(6) })));
    assert.equal(outs!.ready, true);
    assert.equal(outs!.description, undefined);
    const live = (await client.ipPools.get('desc'))!;
    assert.equal(live.spec!.description, undefined, 'description removed from the live pool');
    assert.deepEqual(live.spec!.ranges, range(6));
  });

  it('update recreates a pool deleted behind its back, and refuses one that changed hands', async () => {
    const made = (await pools.create(inputsOf(args('vanishing')))).outs! as IPPoolOutputs;
    await client.ipPools.delete('vanishing');
    await waitUntilGone('vanishing');
    const { outs } = await pools.update('vanishing', made as unknown as Raw, inputsOf(args('vanishing')));
    assert.equal(outs!.ready, true);
    assert.ok((await client.ipPools.get('vanishing'))?.metadata.labels?.['app.kubernetes.io/managed-by']);
    await writeByHand(foreign('handed', 7));
    await assert.rejects(pools.update('handed', made as unknown as Raw, inputsOf(args('handed', { ranges: range(8) }))), /Refusing to update IPPool handed/);
    assert.deepEqual((await client.ipPools.get('handed'))!.spec!.ranges, range(7), 'their pool untouched');
    await assert.rejects(pools.update('vanishing', outs as unknown as Raw, { ...inputsOf(args('vanishing')), ranges: [] }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'InvalidInputs');
      assert.match(err.message, /^The HarvesterIPPool inputs are invalid:\n  - ranges: .*\nFix the inputs above and run again\.$/s);
      return true;
    });
  });

  async function waitUntilReady(name: string) {
    await waitFor<IPPool>({ resource: client.ipPools, name, timeoutMs: 5000, what: `IPPool ${name}`, timeoutOption: 'test', check: ([p]) => ({ done: p?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true, description: '' }) });
  }
  async function waitUntilGone(name: string) {
    await waitForDeletion<IPPool>({ resource: client.ipPools, name, timeoutMs: 5000, what: `IPPool ${name} gone`, timeoutOption: 'test' });
  }
});
