/**
 * HarvesterIPPool and HarvesterLoadBalancer on the emulator, in front of a machine pool's VMs: pool selection by
 * network, a health check, drift of an out-of-band listener edit healed by update, a pool delete refused while in
 * use, an ipam change replacing the load balancer (old address released first), an exhausted pool and no
 * matching pool each named in the timeout, bad inputs refused with nothing written. Emulator only (it uses the
 * request journal and relies on the seed's network).
 */
import assert from 'node:assert/strict';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { createIPPoolProvider } from '../../provider/resources/ip-pool/handlers';
import type { IPPoolOutputs } from '../../provider/resources/ip-pool/model';
import { createLoadBalancerProvider } from '../../provider/resources/load-balancer/handlers';
import type { LoadBalancerOutputs } from '../../provider/resources/load-balancer/model';
import { createMachinePoolProvider } from '../../provider/resources/machine-pool/handlers';
import type { MachinePoolOutputs } from '../../provider/resources/machine-pool/outputs';
import { startTestEmulator, type TestEmulator } from '../support/emulator-harness';
import { acceptanceMode } from '../support/target';
import { fastConnect } from '../support/fast-connect';

type Raw = Record<string, unknown>;

describe('HarvesterIPPool and HarvesterLoadBalancer in front of a machine pool', function () {
  this.timeout(60_000);
  let t: TestEmulator;
  let client: HarvesterClient;
  let kubeconfig: string;
  const connect = fastConnect();
  const pools = createIPPoolProvider({ connect });
  const lbs = createLoadBalancerProvider({ connect });
  const machines = createMachinePoolProvider({ connect });
  let web: MachinePoolOutputs;
  let poolA: IPPoolOutputs;
  let lb: LoadBalancerOutputs;

  const checked = async (provider: { check(o: Raw, n: Raw): Promise<{ inputs?: Raw; failures?: { property: string; reason: string }[] }> }, args: Raw, olds: Raw = {}) => {
    const r = await provider.check(olds, { kubeconfig, ...args });
    assert.deepEqual(r.failures ?? [], [], 'check passes');
    return r.inputs!;
  };
  const writesSince = (mark: number) =>
    t.emulator.journal.entries({ since: mark }).filter((e) => ['create', 'update', 'patch', 'delete'].includes(e.verb ?? '')).map((e) => `${e.method} ${e.path}`);
  const lbArgs = (overrides: Raw = {}): Raw => ({
    name: 'web',
    network: 'default/vm-net',
    listeners: [{ name: 'http', port: 80, backendPort: 8080 }],
    backendServerSelector: web.backendSelector,
    healthCheck: { port: 8080 },
    ...overrides,
  });

  before(async function () {
    if (acceptanceMode()) this.skip();
    t = await startTestEmulator({ harvester: { delays: { vmiSchedule: 10, vmiBoot: 30, guestAgent: 30, imageImport: 20 } } });
    kubeconfig = t.emulator.kubeconfig;
    client = await HarvesterClient.connect({ kubeconfig });
    const inputs = await checked(machines, { name: 'web', count: 2, disks: [{ image: 'default/ubuntu-22.04-server-cloudimg', size: '10Gi' }], networks: [{ network: 'default/vm-net' }], timeouts: { create: '30s', update: '30s', delete: '30s' } });
    web = (await machines.create(inputs)).outs!;
  });
  after(async () => {
    if (web) await machines.delete('default/web', web as unknown as Raw);
    await t?.stop();
  });

  it('refuses bad inputs at check, each on its field, and writes nothing', async () => {
    const mark = t.emulator.journal.mark();
    const badPool = await pools.check({}, { kubeconfig, name: 'bad', ranges: [{ subnet: '172.16.100.0/24', rangeStart: '172.16.100.50', rangeEnd: '172.16.100.40' }], selector: { network: 'default/nope' } });
    const poolFailures = Object.fromEntries((badPool.failures ?? []).map((f) => [f.property, f.reason]));
    assert.match(poolFailures['ranges[0].rangeEnd'], /before rangeStart/);
    const badLb = await lbs.check({}, { kubeconfig, ...lbArgs({ listeners: [{ name: 'a', port: 80, backendPort: 8080 }, { name: 'a', port: 80, backendPort: 9090, protocol: 'UDP' }], healthCheck: { port: 9090 }, ipam: 'dhcp', ipPool: 'pool-a' }) });
    const lbFailures = Object.fromEntries((badLb.failures ?? []).map((f) => [f.property, f.reason]));
    assert.deepEqual(Object.keys(lbFailures).sort(), ['healthCheck.port', 'ipPool', 'listeners[1].name']);
    assert.match(lbFailures['healthCheck.port'], /UDP listener; health checks are TCP only/);
    const missingPool = await lbs.check({}, { kubeconfig, ...lbArgs({ ipPool: 'no-such-pool' }) });
    assert.equal(missingPool.failures?.[0].property, 'ipPool');
    assert.match(missingPool.failures![0].reason, /^IPPool no-such-pool does not exist/);
    assert.deepEqual(writesSince(mark), []);
  });

  it('creates a pool and a load balancer that takes an address from it, by network, with both VMs as backends', async () => {
    const created = await pools.create(await checked(pools, { name: 'pool-a', ranges: [{ subnet: '172.16.100.0/24', rangeStart: '172.16.100.200', rangeEnd: '172.16.100.209', gateway: '172.16.100.1' }], selector: { network: 'default/vm-net', scope: [{ namespace: 'default' }] } }));
    poolA = created.outs!;
    assert.equal(poolA.ready, true);
    assert.equal(poolA.total, 10);
    const made = await lbs.create(await checked(lbs, lbArgs()));
    lb = made.outs!;
    assert.equal(made.id, 'default/web');
    assert.match(lb.address, /^172\.16\.100\.20\d$/);
    assert.equal(lb.allocatedPool, 'pool-a');
    assert.equal(lb.backendServers.length, 2);
    assert.deepEqual(lb.healthCheck, { port: 8080, successThreshold: 2, failureThreshold: 2, periodSeconds: 1, timeoutSeconds: 1 });
    const read = await pools.read('pool-a', poolA as unknown as Raw);
    assert.deepEqual(read.props!.allocated, { [lb.address]: 'default/web' });
  });

  it('reads back without false drift, then shows an out-of-band listener edit per property and heals it', async () => {
    const clean = await lbs.read('default/web', lb as unknown as Raw);
    assert.deepEqual(clean.props!.drift, []);
    assert.equal((await lbs.diff('default/web', clean.props as Raw, await checked(lbs, lbArgs(), clean.inputs))).changes, false);
    await client.loadBalancers.mergePatch('web', { spec: { listeners: [{ name: 'http', port: 81, protocol: 'TCP', backendPort: 8080 }] } }, { namespace: 'default' });
    const drifted = await lbs.read('default/web', lb as unknown as Raw);
    assert.equal(drifted.props!.drift.length, 1);
    assert.match(drifted.props!.drift[0], /listeners is .*"port":81/);
    assert.deepEqual((drifted.inputs!.listeners as { port: number }[]).map((l) => l.port), [81], 'read returns the live listener as the input');
    const news = await checked(lbs, lbArgs(), drifted.inputs);
    const d = await lbs.diff('default/web', drifted.props as Raw, news);
    assert.equal(d.changes, true);
    assert.deepEqual(d.replaces, []);
    lb = (await lbs.update('default/web', drifted.props as Raw, news)).outs!;
    assert.equal((await client.loadBalancers.get('web', 'default'))!.spec!.listeners![0].port, 80);
    assert.deepEqual((await lbs.read('default/web', lb as unknown as Raw)).props!.drift, []);
  });

  it('refuses to delete a pool while a load balancer holds one of its addresses, naming it', async () => {
    await assert.rejects(pools.delete('pool-a', poolA as unknown as Raw), (err: Error) => {
      assert.match(err.message, new RegExp(`${lb.address.replace(/\./g, '\\.')} → LoadBalancer default/web`));
      assert.match(err.message, /Delete those load balancers first/);
      return true;
    });
    assert.ok(await client.ipPools.get('pool-a'));
  });

  it('replaces on an ipam change, deleting the old one first: the pool address is released, DHCP serves the new one', async () => {
    const news = await checked(lbs, lbArgs({ ipam: 'dhcp' }), lb as unknown as Raw);
    const d = await lbs.diff('default/web', lb as unknown as Raw, news);
    assert.deepEqual(d.replaces, ['ipam']);
    assert.equal(d.deleteBeforeReplace, true, 'the name is fixed: the old load balancer goes first');
    await lbs.delete('default/web', lb as unknown as Raw);
    assert.deepEqual((await client.ipPools.get('pool-a'))!.status!.allocated ?? {}, {}, 'the address went back to the pool');
    lb = (await lbs.create(news)).outs!;
    assert.equal(lb.ipam, 'dhcp');
    assert.ok(lb.address && !lb.address.startsWith('172.16.100.20'), lb.address);
    await lbs.delete('default/web', lb as unknown as Raw);
  });

  it('a timeout names what held the address back: the pool exhausted, or no pool matching', async () => {
    const fast = { create: '1s', update: '1s', delete: '10s' };
    await pools.create(await checked(pools, { name: 'pool-one', ranges: [{ subnet: '10.9.0.0/24', rangeStart: '10.9.0.10', rangeEnd: '10.9.0.10' }] }));
    const first = (await lbs.create(await checked(lbs, lbArgs({ name: 'one', ipPool: 'pool-one', network: undefined })))).outs!;
    await assert.rejects(lbs.create(await checked(lbs, lbArgs({ name: 'two', ipPool: 'pool-one', network: undefined, timeouts: fast }))), /the IP pool is exhausted: widen its ranges or free an address/);
    const unserved = { kubeconfig, ...lbArgs({ name: 'three', namespace: 'harvester-public', timeouts: fast }) };
    assert.deepEqual((await lbs.check({}, unserved)).failures?.map((f) => f.property), ['ipPool'], 'check refuses it first (load-balancer-pool-choice.test.ts)');
    // Up without that check (a pool that served it at preview and went before up): the wait still says why.
    await assert.rejects(lbs.create(unserved), /no IP pool matches it \(tried: network default\/vm-net, namespace harvester-public, then the global pool\)/);
    for (const [ns, name] of [['default', 'two'], ['harvester-public', 'three']]) await lbs.delete(`${ns}/${name}`, { kubeconfig, name, namespace: ns, timeouts: fast });
    await lbs.delete('default/one', first as unknown as Raw);
    await pools.delete('pool-one', { kubeconfig, name: 'pool-one', timeouts: fast });
    await pools.delete('pool-a', poolA as unknown as Raw);
    assert.deepEqual((await client.ipPools.list({})).items.map((p) => p.metadata.name), []);
    assert.deepEqual((await client.loadBalancers.list({})).items.map((p) => p.metadata.name), []);
  });
});
