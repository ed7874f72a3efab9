/**
 * Shared setup of the client integration tests: a target (the emulator, or a real cluster in acceptance mode),
 * a client whose retries record their delays and wait at most a few milliseconds, IP pools and load balancers
 * that cannot disturb a shared cluster, and their clean-up.
 */
import assert from 'node:assert/strict';
import YAML from 'yaml';
import type { Emulator, EmulatorOptions } from '../../emulator';
import { waitForDeletion } from '../../provider/await/awaiter';
import { isHarvesterError } from '../../provider/client/errors';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { IPPool, LoadBalancer, Node } from '../../provider/client/objects';
import { OwnerIdentity, stampOwnership } from '../../provider/client/ownership';
import { eventually } from '../support/emulator-harness';
import { startTarget, TestTarget } from '../support/target';

/** Log lines and retry delays of one client. */
export interface Recorded {
  client: HarvesterClient;
  sleeps: number[];
  logs: string[];
}

/** Start the target of one test file (call stop() in after()); on the emulator VMs boot in 50 ms. */
export function startClientTarget(options: EmulatorOptions = {}): Promise<TestTarget> {
  return startTarget({ bootDelayMs: 50, guestAgentDelayMs: 50, ...options });
}

/** A client on `target`: retry delays are recorded in `sleeps` but waited for at most 5 ms. */
export async function connect(target: TestTarget, retry: { maxAttempts?: number } = {}): Promise<Recorded> {
  const sleeps: number[] = [];
  const logs: string[] = [];
  const client = await HarvesterClient.connect({
    kubeconfig: target.kubeconfig,
    retry: { maxAttempts: retry.maxAttempts ?? 6 },
    sleep: (ms) => {
      sleeps.push(ms);
      return new Promise((r) => setTimeout(r, Math.min(ms, 5)));
    },
    logger: { debug: (m) => logs.push(m), info: (m) => logs.push(m), warn: (m) => logs.push(m), error: (m) => logs.push(m) },
  });
  return { client, sleeps, logs };
}

const ipToInt = (ip: string): number => ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);
const intToIp = (n: number): string => [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');

/** One test pool's addresses. */
export interface PoolRange {
  subnet: string;
  rangeStart: string;
  rangeEnd: string;
  gateway: string;
}

/** Addresses network+10+10·slot … +19 of `subnet` (each test file takes its own slot, so pools never overlap). */
export function poolRange(subnet: string, slot: number): PoolRange {
  const [address, prefix] = subnet.split('/');
  const network = ipToInt(address) - (ipToInt(address) % 2 ** (32 - Number(prefix)));
  const start = network + 10 + 10 * slot;
  return { subnet: `${intToIp(network)}/${prefix}`, rangeStart: intToIp(start), rangeEnd: intToIp(start + 9), gateway: intToIp(network + 1) };
}

/** True when `ip` lies within the range. */
export function inRange(ip: string, range: PoolRange): boolean {
  const n = ipToInt(ip);
  return /^\d+\.\d+\.\d+\.\d+$/.test(ip) && n >= ipToInt(range.rangeStart) && n <= ipToInt(range.rangeEnd);
}

/**
 * An IP pool that only load balancers naming it (`spec.ipPool`) use: not global, scoped to a guest cluster
 * that does not exist, with a run-specific non-zero priority (so Harvester's "same scope as pool X" check
 * never meets another pool).
 */
export function ipPool(target: TestTarget, name: string, range: PoolRange): IPPool {
  return {
    apiVersion: 'loadbalancer.harvesterhci.io/v1beta1',
    kind: 'IPPool',
    metadata: { name },
    spec: {
      ranges: [range],
      selector: {
        priority: 1000 + (parseInt(target.runId, 16) % 1_000_000),
        scope: [{ project: '*', namespace: target.fixtures.namespace, guestCluster: target.name('no-such-cluster') }],
      },
    },
  };
}

/** A VM-type LoadBalancer in the fixture namespace taking its address from `pool`, stamped as owned by `owner`. */
export function loadBalancer(target: TestTarget, name: string, pool: string, owner: OwnerIdentity): LoadBalancer {
  return stampOwnership(
    {
      apiVersion: 'loadbalancer.harvesterhci.io/v1beta1',
      kind: 'LoadBalancer',
      metadata: { name, namespace: target.fixtures.namespace },
      spec: {
        ipam: 'pool',
        ipPool: pool,
        workloadType: 'vm',
        listeners: [{ name: 'http', port: 80, protocol: 'TCP', backendPort: 8080 }],
        // Selects no VM of anyone else on a shared cluster.
        backendServerSelector: { app: [target.name('web')] },
      },
    },
    owner,
  );
}

/**
 * Delete every load balancer using `pool` (all of them were made by this test file), wait until they are gone
 * and their addresses released, then delete the pool.
 */
export async function removeTestPool(target: TestTarget, pool: string, poolOwner: OwnerIdentity): Promise<void> {
  const { client } = await connect(target);
  const namespace = target.fixtures.namespace;
  const lbs = (await client.loadBalancers.list({ namespace })).items.filter((l) => l.spec?.ipPool === pool);
  for (const lb of lbs) await client.loadBalancers.delete(lb.metadata.name!, { namespace });
  for (const lb of lbs) {
    await waitForDeletion<LoadBalancer>({ resource: client.loadBalancers, namespace, name: lb.metadata.name!, timeoutMs: target.timeouts.waitMs, what: `test load balancer ${lb.metadata.name} to be gone` });
  }
  // Harvester refuses to delete a pool until its controller has released every address.
  await eventually(async () => {
    try {
      await client.ipPools.delete(pool, { owner: poolOwner });
      return true;
    } catch (err) {
      if (isHarvesterError(err, 'AdmissionDenied') && /releasing all the allocated IP/.test(err.message)) return false;
      throw err;
    }
  }, `IP pool ${pool} to be deletable`, target.timeouts.waitMs);
}

/** A test file's own IP pool (absent when no subnet for test pools is configured). */
export interface TestPool {
  name: string;
  owner: OwnerIdentity;
  range?: PoolRange;
  /** Delete the pool and every load balancer using it. */
  remove(): Promise<void>;
}

/** Create the test file's IP pool in address slot `slot` (each file its own slot, so pools never overlap). */
export async function createTestPool(target: TestTarget, slot: number): Promise<TestPool> {
  const name = target.name('vip');
  const owner = { resourceType: 'ip-pool', resourceName: name };
  const range = target.fixtures.lbSubnet ? poolRange(target.fixtures.lbSubnet, slot) : undefined;
  if (range) {
    const { client } = await connect(target);
    await client.ipPools.create(ipPool(target, name, range), { owner });
  }
  return { name, owner, range, remove: async () => (range ? removeTestPool(target, name, owner) : undefined) };
}

/** Journal lines of `emu` for assertion messages. */
export function journal(emu: Emulator, since?: number): string {
  return emu.journal.format({ since });
}

/** The current context's cluster entry of a kubeconfig (editable in `doc`), its context name and server. */
export function currentCluster(kubeconfig: string): { doc: any; cluster: Record<string, unknown>; context: string; server: string } {
  const doc = YAML.parse(kubeconfig);
  const context = doc['current-context'] as string;
  const clusterName = doc.contexts.find((c: { name: string }) => c.name === context).context.cluster;
  const cluster = doc.clusters.find((c: { name: string }) => c.name === clusterName).cluster;
  return { doc, cluster, context, server: cluster.server };
}

/** The nodes listed are the target's hosts: every fixture zone is on one (and on the emulator, its 3 seeded hosts). */
export function assertHosts(target: TestTarget, nodes: Node[]): void {
  const zones = new Set(nodes.map((n) => n.metadata.labels?.['topology.kubernetes.io/zone']));
  assert.deepEqual(target.fixtures.zones.filter((z) => !zones.has(z)), [], 'every fixture zone is on a listed host');
  if (target.emulator) assert.equal(nodes.length, 3);
}

/** A RegExp matching `text` literally. */
export function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
