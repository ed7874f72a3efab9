/**
 * The plans of test/install/resource-examples.test.ts: per resource page (docs/src/resources/<page>.md), what its
 * example's reader provides (stack config, files, objects the page takes as existing) and what its program makes
 * and outputs; and the helpers that read a page's example, snapshot the emulated cluster and pick what of a secret
 * must never be printed.
 */
import assert from 'node:assert/strict';
import type { HarvesterClient } from '../../provider/client/harvester-client';
import { repoRoot } from '../../scripts/resource-docs';
import { eventually, type TestEmulator } from './emulator-harness';
import { codeBlocks, readText } from './markdown';
import type { BinRun } from './tarball';

export const PAGES_DIR = 'docs/src/resources';
export const COMPILER_OPTIONS = { strict: true, target: 'es2022', module: 'nodenext' };
const USER_DATA = '#cloud-config\npassword: pages-s3cr3t\n';

export type Run = BinRun;

/** What the suite holds while the pages run. */
export interface Context {
  t: TestEmulator;
  client: HarvesterClient;
  /** The installed bin in a page's folder. */
  run(page: string, args: string[], stdin?: string): Promise<Run>;
  ok(page: string, args: string[], stdin?: string): Promise<Run>;
}

/** One page's run: what its reader provides, and what its program makes. */
export interface PagePlan {
  /** What the page says its reader has or gives (the setup below provides exactly that). */
  provides: string;
  /** Resources the program declares (preview's "to create", up's "created", destroy's "deleted"). */
  resources: number;
  /** Stack config of the program, set with `config set --secret KEY` from standard input. */
  secrets?: (ctx: Context) => Promise<Record<string, string>>;
  /** Runs while this page's stack is up (the page needs what it made). */
  within?: string;
  /** What the page's outputs say after up (`stack output --json`; secrets show as "[secret]"). */
  outputs?: (outputs: Record<string, any>) => void;
  setup?: (ctx: Context) => Promise<void>;
  teardown?: (ctx: Context) => Promise<void>;
}

/** The GuestCluster page's admin kubeconfig, as its reader gets it. */
const guestKubeconfig = async (ctx: Context) => ({ guestKubeconfig: (await ctx.ok('guest-cluster', ['stack', 'output', 'kubeconfig', '--show-secrets'])).stdout });

let seededOpsKey: Awaited<ReturnType<HarvesterClient['keyPairs']['get']>>;

export const PLANS: Record<string, PagePlan> = {
  'harvester-ip-pool': {
    provides: 'the VM network default/vm-net (seeded)',
    resources: 1,
    outputs: (o) => assert.deepEqual(o, { poolName: 'lb-pool', free: 21, allocations: {} }),
  },
  'harvester-network': {
    provides: 'a ClusterNetwork "data" whose VlanConfig attaches the hosts (the page: "a cluster network with its own uplink")',
    resources: 3,
    outputs: (o) => assert.equal(o.appsRoute.mode, 'auto'),
    async setup({ client }) {
      await client.clusterNetworks.create({ apiVersion: 'network.harvesterhci.io/v1beta1', kind: 'ClusterNetwork', metadata: { name: 'data' } } as never);
      await client.vlanConfigs.create({ apiVersion: 'network.harvesterhci.io/v1beta1', kind: 'VlanConfig', metadata: { name: 'data-all' }, spec: { clusterNetwork: 'data', uplink: { nics: ['eth1'] } } } as never);
      await eventually(async () => (await client.nodes.list()).items.every((n) => n.metadata.labels?.['network.harvesterhci.io/data'] === 'true'), 'every host attached to cluster network data');
    },
    async teardown({ client }) {
      await client.vlanConfigs.delete('data-all');
      await client.clusterNetworks.delete('data');
    },
  },
  'harvester-image': {
    provides: 'the VM network default/vm-net (seeded); the image is downloaded by the program',
    resources: 2,
    outputs: (o) => {
      assert.equal(o.imageId, 'default/ubuntu-jammy');
      assert.equal(o.readyWorkers, 3);
    },
  },
  'harvester-key-pair': {
    provides: '~/.ssh/id_ed25519.pub; no KeyPair default/ops-key yet (the program makes it: the seeded one is set aside)',
    resources: 2,
    outputs: (o) => assert.match(o.fingerprint, /^([0-9a-f]{2}:){15}[0-9a-f]{2}$/),
    async setup({ client }) {
      seededOpsKey = await client.keyPairs.get('ops-key', 'default');
      await client.keyPairs.delete('ops-key', { namespace: 'default' });
    },
    async teardown({ client }) {
      assert.ok(seededOpsKey, 'the seeded key pair was set aside');
      const { metadata, spec } = seededOpsKey;
      await client.keyPairs.create({ apiVersion: seededOpsKey.apiVersion, kind: seededOpsKey.kind, metadata: { name: metadata.name, namespace: metadata.namespace }, spec });
    },
  },
  'harvester-machine-pool': {
    provides: 'the image, VM network and key pair default/ops-key, hosts in zones us-east-1a…c (seeded); stack config userData',
    resources: 1,
    secrets: async () => ({ userData: USER_DATA }),
    outputs: (o) => {
      assert.equal(o.ready, 3);
      assert.deepEqual(o.addresses.map((a: string) => a.split(' ').slice(0, 2).join(' ')), ['workers-0 us-east-1a', 'workers-1 us-east-1b', 'workers-2 us-east-1c']);
    },
  },
  'harvester-load-balancer': {
    provides: 'the VM network default/vm-net (seeded)',
    resources: 3,
    outputs: (o) => {
      assert.equal(o.address, '172.16.100.200');
      assert.equal(o.backends.length, 3);
    },
  },
  'guest-cluster-identity': {
    provides: 'namespace default',
    resources: 1,
    outputs: (o) => assert.deepEqual([o.kubeconfig, typeof o.caHash], ['[secret]', 'string']),
  },
  'guest-cluster-credentials': {
    provides: 'the image and VM network (seeded)',
    resources: 2,
    outputs: (o) => assert.deepEqual(o, { kubeconfig: '[secret]', nodeNames: ['prod-apps-nodes-0', 'prod-apps-nodes-1', 'prod-apps-nodes-2'] }),
  },
  'guest-cluster': {
    provides: 'nothing: an RKE2 cluster from zero (the image and VLAN network are made by the program)',
    resources: 9,
    outputs: (o) => {
      assert.equal(o.endpoint, '10.0.20.10', 'the address the GuestClusterReady page names');
      assert.deepEqual(o.nodes.map((n: { name: string; ready: boolean }) => `${n.name} ${n.ready}`).sort(), ['prod-1-server-0', 'prod-1-server-1', 'prod-1-server-2', 'prod-1-workers-0', 'prod-1-workers-1'].map((n) => `${n} true`));
    },
  },
  'guest-cluster-ready': {
    provides: "the GuestCluster page's cluster, up; its kubeconfig output as stack config guestKubeconfig",
    resources: 1,
    within: 'guest-cluster',
    secrets: guestKubeconfig,
    outputs: (o) => {
      assert.equal(o.readyCount, 5);
      assert.ok(o.nodes.every((n: { initialised: boolean; providerId?: string }) => n.initialised && n.providerId?.startsWith('harvester://')), JSON.stringify(o.nodes));
    },
  },
  'topology-labels': {
    provides: "hosts harvester-node-0…2 (seeded, already in zones us-east-1a…c); the GuestCluster page's kubeconfig as stack config guestKubeconfig",
    resources: 2,
    within: 'guest-cluster',
    secrets: guestKubeconfig,
    outputs: (o) => {
      assert.deepEqual(o.zones, ['us-east-1a', 'us-east-1b', 'us-east-1c']);
      assert.deepEqual([o.warnings, o.outOfSync, o.workerCount], [[], [], 3]);
    },
  },
};

/** The one ```ts block under "## Example" of a page source. */
export function exampleOf(page: string): string {
  const text = readText(repoRoot(), `${PAGES_DIR}/${page}.md`);
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l === '## Example');
  const end = lines.findIndex((l, i) => i > at && l.startsWith('## '));
  const blocks = codeBlocks(text).filter((b) => b.line > at && b.line < end && /^ts\b/.test(b.info));
  assert.equal(blocks.length, 1, `${page}.md has one \`\`\`ts block under "## Example"`);
  return blocks[0].code;
}

export type ClusterSnapshot = ReturnType<typeof clusterSnapshot>;

/** Every object of the cluster by kind/namespace/name (events left out), and the hosts' labels and annotations. */
export function clusterSnapshot(t: TestEmulator): { objects: string[]; hosts: Record<string, unknown> } {
  const store = t.emulator.store;
  const objects: string[] = [];
  const hosts: Record<string, unknown> = {};
  for (const kind of store.registry.all()) {
    if (kind.kind === 'Event') continue;
    for (const o of store.listShared(kind).items) {
      objects.push(`${kind.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`);
      if (kind.kind === 'Node') hosts[String(o.metadata.name)] = { labels: o.metadata.labels, annotations: o.metadata.annotations };
    }
  }
  return { objects: objects.sort(), hosts };
}

/** Key material that no output may hold. */
export const PRIVATE = /-----BEGIN [A-Z ]*PRIVATE KEY-----|client-key-data|\bK10[0-9a-f]{64}::/;

/**
 * What of a secret must never be printed, even cut short: of each line holding a key, token or password, its value
 * (a long value by a stretch from its middle, which no other value shares: base64 PEM begins alike).
 */
export function needlesOf(secret: string): string[] {
  const values = secret.split('\n').map((l) => /(?:data|token|password|key)\S*:\s*(\S{8,})/i.exec(l)?.[1]).filter((v): v is string => !!v);
  return values.map((v) => (v.length >= 96 ? v.slice(48, 96) : v));
}
