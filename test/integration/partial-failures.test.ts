/**
 * HarvesterLoadBalancer and HarvesterIPPool on the emulator when a create or update fails after its first write
 * (issue 24): the failure is a ResourceInitError with the id and the outputs of what exists, carrying a drift
 * line saying it did not finish; a refresh keeps that line (so diff plans the next up) until an up completes;
 * delete removes what the record names and nothing is left. A failure before any write stays a plain error.
 * Emulator only (faults, the guest cluster).
 */
import assert from 'node:assert/strict';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { ResourceInitError } from '../../provider/core/errors';
import { createIPPoolProvider } from '../../provider/resources/ip-pool/handlers';
import type { IPPoolOutputs } from '../../provider/resources/ip-pool/model';
import { createLoadBalancerProvider } from '../../provider/resources/load-balancer/handlers';
import type { LoadBalancerOutputs } from '../../provider/resources/load-balancer/model';
import { desiredLoadBalancer } from '../../provider/resources/load-balancer/plan';
import { validateInputs } from '../../provider/resources/load-balancer/validate';
import { createMachinePoolProvider } from '../../provider/resources/machine-pool/handlers';
import type { MachinePoolOutputs } from '../../provider/resources/machine-pool/outputs';
import { startTestEmulator, type TestEmulator } from '../support/emulator-harness';
import { acceptanceMode } from '../support/target';
import { fastConnect } from '../support/fast-connect';

type Raw = Record<string, unknown>;
const FAST = { create: '1s', update: '1s', delete: '10s' };
const unfinished = (op: string, what: string, code = 'WaitTimeout') => `the last ${op} of ${what} did not finish (${code}); the next \`pulumi up\` resumes it`;

describe('HarvesterLoadBalancer and HarvesterIPPool: a failure after the first write is recorded, refreshed and destroyed', function () {
  this.timeout(60_000);
  let t: TestEmulator;
  let client: HarvesterClient;
  let guest: HarvesterClient;
  let kubeconfig: string;
  let web: MachinePoolOutputs;
  const connect = fastConnect();
  const pools = createIPPoolProvider({ connect });
  const lbs = createLoadBalancerProvider({ connect });
  const machines = createMachinePoolProvider({ connect });

  const checked = async (provider: { check(o: Raw, n: Raw): Promise<{ inputs?: Raw; failures?: { property: string; reason: string }[] }> }, args: Raw, olds: Raw = {}) => {
    const r = await provider.check(olds, { kubeconfig, ...args });
    assert.deepEqual(r.failures ?? [], [], 'check passes');
    return r.inputs!;
  };
  const lbArgs = (name: string, overrides: Raw = {}): Raw => ({
    name, ipPool: 'tiny', listeners: [{ name: 'http', port: 80, backendPort: 8080 }], backendServerSelector: web.backendSelector, ...overrides,
  });
  const serviceArgs = (name: string): Raw => ({
    name, namespace: 'kube-system', workloadType: 'cluster', guestKubeconfig: t.emulator.guest!.kubeconfig, guestClusterName: 'gc1',
    ports: [{ name: 'https', port: 443 }], timeouts: { create: '2s', update: '2s', delete: '10s' },
  });
  /** The ResourceInitError `p` rejects with (anything else fails the test). */
  const initFailure = async (p: Promise<unknown>): Promise<ResourceInitError> => {
    const err = await p.then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof ResourceInitError, `expected a partial failure (ResourceInitError), got: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`);
    return err;
  };
  const names = async () => ({
    loadBalancers: (await client.loadBalancers.list({})).items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
    ipPools: (await client.ipPools.list({})).items.map((o) => o.metadata.name),
  });

  before(async function () {
    if (acceptanceMode()) this.skip();
    t = await startTestEmulator({
      harvester: { delays: { vmiSchedule: 10, vmiBoot: 30, guestAgent: 30, imageImport: 20 } },
      guest: { clusterName: 'gc1', delays: { nodeRegister: 20, ccmInit: 10 } },
    });
    kubeconfig = t.emulator.kubeconfig;
    client = await HarvesterClient.connect({ kubeconfig });
    guest = await HarvesterClient.connect({ kubeconfig: t.emulator.guest!.kubeconfig });
    const pool = await checked(machines, { name: 'web', count: 1, disks: [{ image: 'default/ubuntu-22.04-server-cloudimg', size: '10Gi' }], networks: [{ network: 'default/vm-net' }], timeouts: { create: '30s', update: '30s', delete: '30s' } });
    web = (await machines.create(pool)).outs!;
  });
  afterEach(() => t?.emulator.faults.clear());
  after(async () => {
    if (web) await machines.delete('default/web', web as unknown as Raw);
    await t?.stop();
  });

  it('a second load balancer on a one-address pool times out: recorded with its id and outputs, refreshed, destroyed; then the first and the pool go too', async () => {
    const pool = (await pools.create(await checked(pools, { name: 'tiny', ranges: [{ subnet: '10.9.0.0/24', rangeStart: '10.9.0.10', rangeEnd: '10.9.0.10' }] }))).outs!;
    const first = (await lbs.create(await checked(lbs, lbArgs('one')))).outs!;
    const inputs = await checked(lbs, lbArgs('two', { timeouts: FAST }));
    const err = await initFailure(lbs.create(inputs));
    assert.equal(err.id, 'default/two');
    assert.match(err.message, /the IP pool is exhausted: widen its ranges or free an address \(fail to get ip from pool tiny, error: no IP addresses available in range set: 10\.9\.0\.10-10\.9\.0\.10\)/);
    const recorded = err.properties as unknown as LoadBalancerOutputs;
    assert.deepEqual(
      { name: recorded.name, namespace: recorded.namespace, ipPool: recorded.ipPool, address: recorded.address, ready: recorded.ready, harvesterLoadBalancer: recorded.harvesterLoadBalancer },
      { name: 'two', namespace: 'default', ipPool: 'tiny', address: '', ready: false, harvesterLoadBalancer: 'default/two' },
    );
    assert.deepEqual(recorded.drift, [unfinished('create', 'LoadBalancer default/two')]);

    const refreshed = await lbs.read(err.id, err.properties);
    assert.equal(refreshed.id, 'default/two');
    assert.deepEqual(refreshed.props!.drift, recorded.drift, 'a refresh keeps the unfinished create');
    assert.equal((await lbs.diff(err.id, refreshed.props as Raw, await checked(lbs, lbArgs('two', { timeouts: FAST }), refreshed.inputs))).changes, true, 'the next up resumes it');

    await lbs.delete(err.id, refreshed.props as Raw);
    assert.deepEqual(await names(), { loadBalancers: ['default/one'], ipPools: ['tiny'] }, 'destroy of the partial record removed it');
    await lbs.delete('default/one', first as unknown as Raw);
    await pools.delete('tiny', pool as unknown as Raw);
    assert.deepEqual(await names(), { loadBalancers: [], ipPools: [] });
  });

  it('an update that fails after its patch is recorded with the live state; a refresh keeps the line until an update completes', async () => {
    const pool = (await pools.create(await checked(pools, { name: 'pair', ranges: [{ subnet: '10.7.0.0/24', rangeStart: '10.7.0.10', rangeEnd: '10.7.0.11' }] }))).outs!;
    const made = (await lbs.create(await checked(lbs, lbArgs('moving', { ipPool: 'pair', timeouts: FAST })))).outs!;
    const news = await checked(lbs, lbArgs('moving', { ipPool: 'pair', timeouts: FAST, backendServerSelector: { app: ['nothing-runs-this'] } }), made as unknown as Raw);
    // The patch goes through; then the wait cannot watch the load balancer (the token refused for lists and
    // watches). Waiting for the controller to notice the selector matches nothing instead would race its
    // reconcile: the wait may still see the Ready condition of before the patch.
    const faults = t.emulator.faults.add({ name: 'lb-wait-refused', match: { resource: 'loadbalancers', verb: ['list', 'watch'] }, action: { type: 'unauthorized' } });
    const err = await initFailure(lbs.update('default/moving', made as unknown as Raw, news)).finally(() => faults.forEach((id) => t.emulator.faults.remove(id)));
    assert.equal(err.id, 'default/moving');
    const recorded = err.properties as unknown as LoadBalancerOutputs;
    assert.deepEqual(recorded.backendServerSelector, { app: ['nothing-runs-this'] }, 'the outputs are what was written');
    assert.equal(recorded.address, made.address, 'and what exists: the address it still holds');
    assert.deepEqual(recorded.drift, [unfinished('update', 'LoadBalancer default/moving', 'TokenExpired')]);
    const refreshed = await lbs.read(err.id, err.properties);
    assert.deepEqual(refreshed.props!.drift, recorded.drift);
    const healed = (await lbs.update(err.id, refreshed.props as Raw, await checked(lbs, lbArgs('moving', { ipPool: 'pair', timeouts: FAST }), refreshed.inputs))).outs!;
    assert.deepEqual(healed.drift, []);
    assert.deepEqual((await lbs.read(err.id, healed as unknown as Raw)).props!.drift, [], 'a completed update clears the line');
    await lbs.delete(err.id, healed as unknown as Raw);
    await pools.delete('pair', pool as unknown as Raw);
    assert.deepEqual([await client.loadBalancers.get('moving', 'default'), await client.ipPools.get('pair')], [undefined, undefined]);
  });

  it('workloadType "cluster": a guest Service that gets no address is recorded with its outputs, refreshed and destroyed', async () => {
    const err = await initFailure(lbs.create(await checked(lbs, serviceArgs('stranded'))));
    assert.equal(err.id, 'kube-system/stranded');
    assert.match(err.message, /^Timed out after 2s waiting for guest Service kube-system\/stranded to get a load-balancer address/);
    const recorded = err.properties as unknown as LoadBalancerOutputs;
    assert.deepEqual([recorded.workloadType, recorded.name, recorded.address, recorded.ready], ['cluster', 'stranded', '', false]);
    assert.deepEqual(recorded.drift, [unfinished('create', 'guest Service kube-system/stranded')]);
    const refreshed = await lbs.read(err.id, err.properties);
    assert.deepEqual(refreshed.props!.drift, recorded.drift);
    await lbs.delete(err.id, refreshed.props as Raw);
    assert.equal(await guest.services.get('stranded', 'kube-system'), undefined, 'the guest Service is gone');
    assert.deepEqual((await names()).loadBalancers.filter((n) => n.includes('stranded')), [], 'and the cloud provider\'s load balancer with it');
  });

  it('an IP pool whose Ready wait fails after the create is recorded, refreshed with its line and destroyed', async () => {
    // Every LIST of pools fails: the create's POST goes through, its wait (list + watch) never sees the pool.
    const inputs = await checked(pools, { name: 'blind', ranges: [{ subnet: '10.6.0.0/24' }], timeouts: FAST });
    t.emulator.faults.add({ name: 'no-list', match: { verb: 'list', resource: 'ippools' }, action: { type: 'error', code: 503 } });
    const err = await initFailure(pools.create(inputs));
    t.emulator.faults.clear();
    assert.equal(err.id, 'blind');
    assert.match(err.message, /^Timed out after 1s waiting for IPPool blind to be Ready/);
    const recorded = err.properties as unknown as IPPoolOutputs;
    assert.deepEqual([recorded.name, recorded.total], ['blind', 253]);
    assert.deepEqual(recorded.drift, [unfinished('create', 'IPPool blind')]);
    const refreshed = await pools.read(err.id, err.properties);
    assert.deepEqual(refreshed.props!.drift, recorded.drift);
    assert.equal((await pools.diff(err.id, refreshed.props as Raw, await checked(pools, { name: 'blind', ranges: [{ subnet: '10.6.0.0/24' }], timeouts: FAST }, refreshed.inputs))).changes, true);
    await pools.delete(err.id, refreshed.props as Raw);
    assert.equal(await client.ipPools.get('blind'), undefined);
  });

  it('a failure before any write stays a plain error, and leaves what it found as it was', async () => {
    const theirs = desiredLoadBalancer(validateInputs({ name: 'theirs', listeners: [{ name: 'http', port: 80, backendPort: 80 }], backendServerSelector: { app: ['x'] } }).inputs!);
    await client.loadBalancers.create({ ...theirs, metadata: { name: 'theirs', namespace: 'default' } });
    const refused = await lbs.create({ kubeconfig, ...lbArgs('theirs', { ipPool: undefined }) }).then(() => undefined, (e: unknown) => e);
    assert.ok(refused instanceof Error && !(refused instanceof ResourceInitError), `a plain error, got ${String(refused)}`);
    assert.match(refused.message, /^Refusing to create LoadBalancer default\/theirs: it is not managed by harvester-iac/);
    await pools.create(await checked(pools, { name: 'first', ranges: [{ subnet: '10.8.0.0/24' }] }));
    const overlapping = await pools.create({ kubeconfig, name: 'second', ranges: [{ subnet: '10.8.0.0/25' }] }).then(() => undefined, (e: unknown) => e);
    assert.ok(overlapping instanceof Error && !(overlapping instanceof ResourceInitError), `a plain error, got ${String(overlapping)}`);
    assert.match(overlapping.message, /overlap with other pools/);
    assert.ok(await client.loadBalancers.get('theirs', 'default'), 'their load balancer is kept');
    assert.equal(await client.ipPools.get('second'), undefined, 'nothing was written for the refused pool');
    await client.loadBalancers.delete('theirs', { namespace: 'default' });
    await client.ipPools.delete('first');
  });
});
