/**
 * A load balancer no IP pool would serve is refused at check (issue 34), through the provider object programs reach
 * (`harvester-iac/provider`'s `loadBalancer.check`): with ipam "pool" and no ipPool, Harvester takes the
 * highest-priority pool whose selector.network is the load balancer's network and whose scope covers it (a vm load
 * balancer has no project and no guest cluster), else the global pool (docs/design/harvester-load-balancer.md).
 * The rows restate load-balancer-harvester's pkg/ipam/selector_test.go cases for a vm load balancer, plus the
 * inputs that take no pool from the selector (ipPool, dhcp) and a preview's unknown network.
 */
import assert from 'node:assert/strict';
import { UNKNOWN, loadBalancer } from '../../provider';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { startTestEmulator, type TestEmulator } from '../support/emulator-harness';
import { acceptanceMode } from '../support/target';

type Raw = Record<string, unknown>;
type Tuple = { project?: string; namespace?: string; guestCluster?: string };
type PoolSpec = { name: string; network?: string; priority?: number; scope: Tuple[] };

const NETWORK = 'default/vm-net';
const ALL = { project: '*', namespace: '*', guestCluster: '*' };
/** upstream's pools, on our seeded VM network: for namespace default; the same at priority 100; the global pool. */
const DEFAULT: PoolSpec = { name: 'default-ns', network: NETWORK, scope: [{ ...ALL, namespace: 'default' }] };
const PRIORITY: PoolSpec = { name: 'default-priority', network: NETWORK, priority: 100, scope: [{ ...ALL, namespace: 'default' }] };
const GLOBAL: PoolSpec = { name: 'global', scope: [ALL] };
/** Made without project and guest cluster (as the UI does): "" in the scope, which a vm load balancer's "" matches. */
const NO_PROJECT: PoolSpec = { name: 'no-project', network: NETWORK, scope: [{ namespace: 'default' }] };
/** For one guest cluster of one project: not for a vm load balancer, which has neither. */
const GUEST_ONLY: PoolSpec = { name: 'guest-only', network: NETWORK, scope: [{ project: 'project1', namespace: 'default', guestCluster: 'cluster1' }] };
const ONE_CLUSTER: PoolSpec = { name: 'one-cluster', network: NETWORK, scope: [{ ...ALL, namespace: 'default', guestCluster: 'cluster1' }] };
const ONE_PROJECT: PoolSpec = { name: 'one-project', network: NETWORK, scope: [{ ...ALL, namespace: 'default', project: 'project1' }] };

const ROWS: { what: string; pools: PoolSpec[]; lb: Raw; served: boolean }[] = [
  { what: 'no pool on the cluster', pools: [], lb: { network: NETWORK }, served: false },
  { what: 'a pool for its network and namespace', pools: [DEFAULT], lb: { network: NETWORK }, served: true },
  { what: 'a pool for its network, another namespace', pools: [DEFAULT], lb: { network: NETWORK, namespace: 'test' }, served: false },
  { what: 'a pool for another namespace, and the global pool', pools: [DEFAULT, GLOBAL], lb: { network: NETWORK, namespace: 'test' }, served: true },
  { what: 'a pool of its namespace on a network, the load balancer on none', pools: [DEFAULT], lb: {}, served: false },
  { what: 'two pools of its namespace, the higher priority chosen', pools: [DEFAULT, PRIORITY], lb: { network: NETWORK }, served: true },
  { what: 'a pool whose scope leaves project and guest cluster empty', pools: [NO_PROJECT], lb: { network: NETWORK }, served: true },
  { what: 'a pool for one guest cluster of one project only', pools: [GUEST_ONLY], lb: { network: NETWORK }, served: false },
  { what: 'a pool for one guest cluster, any project', pools: [ONE_CLUSTER], lb: { network: NETWORK }, served: false },
  { what: 'a pool for one project, any guest cluster', pools: [ONE_PROJECT], lb: { network: NETWORK }, served: false },
  { what: 'the global pool alone, the load balancer on no network', pools: [GLOBAL], lb: {}, served: true },
  { what: 'no pool, but ipPool names an existing one', pools: [GUEST_ONLY], lb: { network: NETWORK, ipPool: 'guest-only' }, served: true },
  { what: 'no pool, ipam "dhcp"', pools: [], lb: { network: NETWORK, ipam: 'dhcp' }, served: true },
  { what: 'a preview: its network not known yet, a pool of its namespace on some network', pools: [DEFAULT], lb: { network: UNKNOWN }, served: true },
  { what: 'a preview: its network not known yet, no pool of its namespace', pools: [DEFAULT], lb: { network: UNKNOWN, namespace: 'test' }, served: false },
];

describe('HarvesterLoadBalancer check: a load balancer no IP pool would serve is refused on ipPool', function () {
  this.timeout(60_000);
  let t: TestEmulator;
  let client: HarvesterClient;
  let subnet = 0;

  before(async function () {
    if (acceptanceMode()) this.skip();
    t = await startTestEmulator();
    client = await HarvesterClient.connect({ kubeconfig: t.emulator.kubeconfig });
    await client.namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'test' } });
  });
  afterEach(async () => {
    for (const pool of (await client.ipPools.list({})).items) await client.ipPools.delete(pool.metadata.name!);
  });
  after(async () => t?.stop());

  for (const row of ROWS) {
    it(`${row.what}: ${row.served ? 'passes' : 'refused'}`, async () => {
      for (const p of row.pools) {
        const selector = { ...(p.network ? { network: p.network } : {}), priority: p.priority ?? 0, scope: p.scope };
        await client.ipPools.create({ apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'IPPool', metadata: { name: p.name }, spec: { ranges: [{ subnet: `10.77.${++subnet}.0/28` }], selector } } as never);
      }
      const mark = t.emulator.journal.mark();
      const r = await loadBalancer.check({}, {
        kubeconfig: t.emulator.kubeconfig,
        name: 'web',
        listeners: [{ name: 'http', port: 80, backendPort: 8080 }],
        backendServerSelector: { app: ['web'] },
        ...row.lb,
      });
      const failures = r.failures ?? [];
      if (row.served) {
        assert.deepEqual(failures, []);
      } else {
        assert.deepEqual(failures.map((f) => f.property), ['ipPool']);
        assert.match(failures[0].reason, /^no IP pool would serve this load balancer, so up would wait out timeouts\.create for an address \("no matched IPPool"\)/);
        assert.match(failures[0].reason, /Create such a pool \(a HarvesterIPPool in this program counts\), set ipPool to an existing one, or use ipam "dhcp"$/);
      }
      const writes = t.emulator.journal.entries({ since: mark }).filter((e) => ['create', 'update', 'patch', 'delete'].includes(e.verb ?? ''));
      assert.deepEqual(writes, [], 'check wrote nothing');
    });
  }

  it('a pool the program declares (the SDK names ipPool) is taken for one that will serve it', async () => {
    const r = await loadBalancer.check({}, { kubeconfig: t.emulator.kubeconfig, name: 'web', network: NETWORK, listeners: [{ name: 'http', port: 80, backendPort: 8080 }], backendServerSelector: { app: ['web'] }, __inProgram: ['ipPool'] });
    assert.deepEqual(r.failures ?? [], []);
  });
});
