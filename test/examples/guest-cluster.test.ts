/**
 * examples/guest-cluster end to end through the local runner (the real SDK and dynamic-provider host) against the
 * emulator, which simulates RKE2 from the VMs' user data: from an empty namespace to the real kubectl listing five
 * Ready nodes with providerIDs through the `kubeconfig` output; a LoadBalancer Service of the guest served by
 * Harvester; a version change previewed (what rolls), refused when it skips a minor version, then rolled with the
 * guest API answering throughout and every replaced server gone from etcd; secrets in no output, line or plain
 * state; destroy leaving nothing on Harvester.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { runOperation, type OperationKind } from '../../runner/operations';
import { repoRoot } from '../../scripts/resource-docs';
import { startTestEmulator, type TestEmulator } from '../support/emulator-harness';
import { runKubectl } from '../support/kubectl';
import { FAST_RKE2 } from '../support/guest-cluster';

const SUBNET = {
  'guest-cluster:subnet': '127.37.0.0/24', 'guest-cluster:rangeStart': '127.37.0.10', 'guest-cluster:rangeEnd': '127.37.0.19',
  'guest-cluster:serviceSubnet': '127.37.1.0/24', 'guest-cluster:serviceRangeStart': '127.37.1.10', 'guest-cluster:serviceRangeEnd': '127.37.1.19',
};

describe('example: guest-cluster (3 servers, 2 agents) through the local runner', function () {
  this.timeout(240_000);
  let t: TestEmulator;
  let client: HarvesterClient;
  let stateDir: string;
  const lines: string[] = [];
  let kubeconfigPath = '';

  const run = async (kind: OperationKind, config: Record<string, string> = {}) => {
    const mark = lines.length;
    const result = await runOperation(kind, {
      program: join(repoRoot(), 'dist/examples/guest-cluster/index.js'),
      pwd: repoRoot(),
      project: 'guest-cluster',
      stack: 'dev',
      stateDir,
      config: { 'harvester:kubeconfig': t.emulator.kubeconfig, ...SUBNET, 'guest-cluster:readyTimeout': '2m', ...config },
      secretConfigKeys: ['harvester:kubeconfig'],
      sink: (line) => lines.push(line),
      progressEveryMs: 60_000,
    });
    return { ...result, text: lines.slice(mark).join('\n') };
  };
  const kubectl = (args: string[]) => runKubectl({ kubeconfigPath, cacheDir: join(t.dir, 'kc-cache'), home: join(t.dir, 'kc-home') }, args);

  before(async () => {
    t = await startTestEmulator({ rke2: { delays: FAST_RKE2 }, harvester: { delays: { vmiSchedule: 10, vmiBoot: 30, guestAgent: 30, imageImport: 20 } } });
    client = await HarvesterClient.connect({ kubeconfig: t.emulator.kubeconfig });
    stateDir = mkdtempSync(join(tmpdir(), 'harvester-guest-cluster-state-'));
  });
  after(async () => {
    rmSync(stateDir, { recursive: true, force: true });
    await t?.stop();
  });

  it('up: from an empty namespace to five Ready nodes initialised by the cloud provider', async () => {
    const up = await run('up');
    assert.ok(up.ok, up.text);
    const nodes = up.outputs.nodes as { name: string; ready: boolean; initialised: boolean; providerId?: string; kubeletVersion?: string; role: string }[];
    assert.equal(nodes.length, 5);
    assert.ok(nodes.every((n) => n.ready && n.initialised && n.kubeletVersion === 'v1.32.5+rke2r1'), JSON.stringify(nodes));
    assert.deepEqual(nodes.map((n) => n.role).sort(), ['agent', 'agent', 'server', 'server', 'server']);
    assert.match(String(up.outputs.endpoint), /^127\.37\.0\.1\d$/);
    kubeconfigPath = join(t.dir, 'guest.kubeconfig');
    writeFileSync(kubeconfigPath, String(up.outputs.kubeconfig), { mode: 0o600 });
  });

  it('the real kubectl with the kubeconfig output lists five Ready nodes with harvester:// providerIDs of their VMs', async () => {
    const r = await kubectl(['get', 'nodes', '--no-headers', '-o', 'custom-columns=NAME:.metadata.name,READY:.status.conditions[?(@.type=="Ready")].status,PROVIDER:.spec.providerID']);
    assert.equal(r.code, 0, r.stderr);
    const rows = r.stdout.trim().split('\n').map((l) => l.trim().split(/\s+/));
    assert.equal(rows.length, 5, r.stdout);
    const vms = (await client.virtualMachines.list({ namespace: 'default' })).items;
    for (const [name, ready, provider] of rows) {
      assert.equal(ready, 'True', name);
      assert.equal(provider, `harvester://${vms.find((v) => v.metadata.name === name)?.metadata.uid}`, name);
    }
    assert.deepEqual(rows.map((r) => r[0]).sort(), ['demo-server-0', 'demo-server-1', 'demo-server-2', 'demo-workers-0', 'demo-workers-1']);
  });

  it('a LoadBalancer Service in the guest gets an address from Harvester', async () => {
    const svc = join(t.dir, 'svc.yaml');
    writeFileSync(svc, 'apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: default\nspec:\n  type: LoadBalancer\n  selector: { app: web }\n  ports: [{ name: http, port: 80, targetPort: 8080 }]\n');
    assert.equal((await kubectl(['apply', '-f', svc])).code, 0);
    let address = '';
    for (let i = 0; i < 100 && !address; i++) {
      const r = await kubectl(['get', 'service', 'web', '-o', 'jsonpath={.status.loadBalancer.ingress[0].ip}']);
      address = r.stdout.trim();
    }
    assert.match(address, /^127\.37\.1\.1\d$/, 'from the pool of the guest\'s Services');
    const lbs = (await client.loadBalancers.list({ namespace: 'default' })).items.filter((lb) => lb.metadata.labels?.['cloudprovider.harvesterhci.io/cluster'] === 'demo');
    assert.equal(lbs.length, 1, 'Harvester serves it with a load balancer of the guest cluster');
    assert.equal((await kubectl(['delete', '-f', svc])).code, 0);
  });

  it('preview of a version change names what rolls; a skipped minor version is refused at preview', async () => {
    const preview = await run('preview', { 'guest-cluster:version': 'v1.33.1+rke2r1' });
    assert.ok(preview.ok, preview.text);
    assert.match(preview.text, /kubernetesVersion v1\.32\.5\+rke2r1 → v1\.33\.1\+rke2r1: the servers roll one at a time/);
    assert.match(preview.text, /demo-server +update/);
    const skip = await run('preview', { 'guest-cluster:version': 'v1.34.1+rke2r1' });
    assert.equal(skip.ok, false);
    assert.match(skip.text, /kubernetesVersion: v1\.32\.5\+rke2r1 → v1\.34\.1\+rke2r1 skips 1 minor version/);
  });

  it('a version change rolls servers one at a time, then agents, the guest API answering throughout', async () => {
    // As client-go retries a GET whose connection was reset (an L4 load balancer resets the connections of the backend
    // that leaves), a request may be retried at once — never long enough to hide an outage.
    const guest = await HarvesterClient.connect({ kubeconfig: readFileSync(kubeconfigPath, 'utf8'), retry: { maxAttempts: 3, initialDelayMs: 10, maxDelayMs: 20, jitter: 0 } });
    const failures: string[] = [];
    let polls = 0;
    let rolling = true;
    const poller = (async () => {
      while (rolling) {
        try {
          await guest.nodes.list({});
          polls++;
        } catch (err) {
          failures.push((err as Error).message);
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const up = await run('up', { 'guest-cluster:version': 'v1.33.1+rke2r1' });
    rolling = false;
    await poller;
    assert.ok(up.ok, up.text);
    assert.deepEqual(failures, [], `the guest API failed ${failures.length} of ${polls + failures.length} requests during the roll`);
    assert.ok(polls > 20, `the API was polled throughout (${polls} answers)`);
    const nodes = up.outputs.nodes as { name: string; kubeletVersion?: string; ready: boolean }[];
    assert.equal(nodes.length, 5);
    assert.ok(nodes.every((n) => n.ready && n.kubeletVersion === 'v1.33.1+rke2r1'), JSON.stringify(nodes));
    const cluster = t.emulator.rke2!.clusters()[0];
    assert.equal(cluster.members.length, 3, 'each replaced server left etcd');
    // Servers first, one at a time (each replacement Ready before its predecessor left), then the agents.
    const order = up.text.split('\n').filter((l) => /roll demo-(server|workers)-\d \(|deleting guest Node/.test(l)).map((l) => /demo-(server|workers)-\d/.exec(l)?.[0]);
    const lastServer = order.lastIndexOf(order.filter((n) => n?.startsWith('demo-server')).at(-1));
    const firstAgent = order.findIndex((n) => n?.startsWith('demo-workers'));
    assert.ok(firstAgent > lastServer, `servers roll before agents: ${order.join(' ')}`);
  });

  it('keeps every secret out of the outputs shown, the lines printed and the plain state', () => {
    const all = lines.join('\n');
    assert.doesNotMatch(all, /BEGIN (EC )?PRIVATE KEY|client-key-data|client-certificate-data|K10[0-9a-f]{64}::/);
    for (const f of readdirSync(stateDir).filter((n) => n.endsWith('.json'))) {
      const state = readFileSync(join(stateDir, f), 'utf8');
      assert.doesNotMatch(state, /BEGIN (EC )?PRIVATE KEY|client-key-data|K10[0-9a-f]{64}::|server-password/, `${f} holds a secret in plain text`);
    }
  });

  it('destroy leaves nothing on Harvester', async () => {
    const destroy = await run('destroy');
    assert.ok(destroy.ok, destroy.text);
    const ns = { namespace: 'default', labelSelector: 'app.kubernetes.io/managed-by=harvester-iac' };
    const left = [
      ...(await client.virtualMachines.list({ namespace: 'default' })).items.map((o) => `VirtualMachine ${o.metadata.name}`),
      ...(await client.secrets.list(ns)).items.map((o) => `Secret ${o.metadata.name}`),
      ...(await client.loadBalancers.list({ namespace: 'default' })).items.map((o) => `LoadBalancer ${o.metadata.name}`),
      ...(await client.ipPools.list({})).items.filter((p) => p.metadata.name?.startsWith('demo')).map((o) => `IPPool ${o.metadata.name}`),
      ...(await client.persistentVolumeClaims.list(ns)).items.map((o) => `PVC ${o.metadata.name}`),
      ...(await client.serviceAccounts.list({ namespace: 'default' })).items.filter((s) => s.metadata.name === 'demo').map(() => 'ServiceAccount demo'),
    ];
    assert.deepEqual(left, []);
  });
});
