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
import { KINDS } from '../../emulator/kinds';
import { createHash } from 'node:crypto';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { joinProblem } from '../../provider/resources/guest-cluster-ready/supervisor';
import { runOperation, type OperationKind } from '../../runner/operations';
import { repoRoot } from '../../scripts/resource-docs';
import { eventually, startTestEmulator, type TestEmulator } from '../support/emulator-harness';
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
  let endpoint = '';

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
    endpoint = String(up.outputs.endpoint);
    // Agents hold the agent token only; the initialising server alone brings the CA keys.
    for (const secret of (await client.secrets.list({ namespace: 'default', labelSelector: 'app.kubernetes.io/managed-by=harvester-iac' })).items) {
      const userdata = Buffer.from(secret.data?.userdata ?? '', 'base64').toString('utf8');
      if (!userdata) continue;
      const name = String(secret.metadata.name);
      if (name.startsWith('demo-workers')) assert.ok(/::node:/.test(userdata) && !/::server:/.test(userdata), `${name} holds the server token`);
      assert.equal(userdata.includes('/var/lib/rancher/rke2/server/tls/server-ca.key'), name === 'demo-server-0-cloudinit', `${name}: only the initialising server carries the CA keys`);
    }
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

  it('the supervisor, probed as a joining node meets it: the cluster\'s tokens pass, another password is a 401, another CA a hash mismatch', async () => {
    const secret = (await client.secrets.get('demo-rke2-identity', 'default'))!;
    const text = (key: string) => Buffer.from(secret.data![key], 'base64').toString('utf8');
    const hash = createHash('sha256').update(text('server-ca.crt')).digest('hex');
    const url = `https://${endpoint}:9345`;
    assert.equal(await joinProblem(url, 'agent', `K10${hash}::node:${text('agent-password')}`), undefined);
    assert.equal(await joinProblem(url, 'server', `K10${hash}::server:${text('server-password')}`), undefined);
    assert.match(String(await joinProblem(url, 'agent', `K10${hash}::node:not-the-password`)), /^\[wrong token\] the supervisor refuses its password as user "node" \(401 Unauthorized\)/);
    assert.match(String(await joinProblem(url, 'server', `K10${hash}::server:${text('agent-password')}`)), /as user "server" \(401/, 'the agent password is not the server\'s');
    assert.match(String(await joinProblem(url, 'agent', `K10${'0'.repeat(64)}::node:${text('agent-password')}`)), /^\[wrong token\] its CA hash 000000000000… is not the hash of the CA the supervisor serves/);
    assert.match(String(await joinProblem('https://127.37.0.99:9345', 'agent', 'x')), /^\[supervisor unreachable\] https:\/\/127\.37\.0\.99:9345 does not answer \(ECONNREFUSED\)/);
  });

  it('preview says what replaces the whole cluster (its networks) and what updates in place (a pool\'s count)', async () => {
    const replace = await run('preview', { 'guest-cluster:clusterCidr': '10.52.0.0/16' });
    assert.ok(replace.ok, replace.text);
    assert.match(replace.text, /\+- +harvester:GuestClusterIdentity +demo +replace\n +~ clusterCidr: "10\.42\.0\.0\/16" => "10\.52\.0\.0\/16"/);
    for (const pool of ['demo-server', 'demo-workers']) assert.match(replace.text, new RegExp(`\\+- +harvester:HarvesterMachinePool +${pool} +replace`));
    const scale = await run('preview', { 'guest-cluster:agents': '3' });
    assert.ok(scale.ok, scale.text);
    assert.match(scale.text, /~ +harvester:HarvesterMachinePool +demo-workers +update\n +~ count: 2 => 3/);
    assert.doesNotMatch(scale.text, /replace/);
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
    // The guest's Nodes as the roll goes: never fewer than three Ready servers (a replacement is Ready before its
    // predecessor's Node goes), never an agent replaced while a server still runs the old version.
    const guestStore = t.emulator.rke2!.clusters()[0].cluster.store;
    const readyServers = () => guestStore.list(KINDS.node).items.filter((n) => n.metadata.labels?.['node-role.kubernetes.io/etcd'] === 'true'
      && ((n.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True')).length;
    let fewestServers = readyServers();
    const agentsBeforeServers: string[] = [];
    const watch = guestStore.watch(KINDS.node, { resourceVersion: guestStore.resourceVersion() }, (event) => {
      fewestServers = Math.min(fewestServers, readyServers());
      const node = event.object as { metadata: { name?: string }; status?: { nodeInfo?: { kubeletVersion?: string } } };
      const oldServers = guestStore.list(KINDS.node).items.filter((n) => n.metadata.name?.startsWith('demo-server') && (n.status as { nodeInfo?: { kubeletVersion?: string } } | undefined)?.nodeInfo?.kubeletVersion === 'v1.32.5+rke2r1');
      if (event.type === 'ADDED' && node.metadata.name?.startsWith('demo-workers') && oldServers.length) agentsBeforeServers.push(node.metadata.name);
    });
    const up = await run('up', { 'guest-cluster:version': 'v1.33.1+rke2r1' });
    rolling = false;
    watch.stop();
    await poller;
    assert.equal(fewestServers, 3, 'a server left before its replacement was Ready');
    assert.deepEqual(agentsBeforeServers, [], 'an agent of the new version joined while a server still ran the old one');
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

describe('example: guest-cluster with an agent whose token was corrupted', function () {
  this.timeout(180_000);
  let t: TestEmulator;
  let stateDir: string;
  const CORRUPTED = 'bad-workers-0';

  const run = async (kind: OperationKind) => {
    const lines: string[] = [];
    const result = await runOperation(kind, {
      program: join(repoRoot(), 'dist/examples/guest-cluster/index.js'),
      pwd: repoRoot(),
      project: 'guest-cluster',
      stack: 'bad',
      stateDir,
      config: {
        'harvester:kubeconfig': t.emulator.kubeconfig, 'guest-cluster:name': 'bad', 'guest-cluster:servers': '1', 'guest-cluster:agents': '2',
        'guest-cluster:subnet': '127.38.0.0/24', 'guest-cluster:rangeStart': '127.38.0.10', 'guest-cluster:rangeEnd': '127.38.0.19',
        'guest-cluster:serviceSubnet': '127.38.1.0/24', 'guest-cluster:serviceRangeStart': '127.38.1.10', 'guest-cluster:serviceRangeEnd': '127.38.1.19',
        'guest-cluster:readyTimeout': '2m',
      },
      secretConfigKeys: ['harvester:kubeconfig'],
      sink: (line) => lines.push(line),
      progressEveryMs: 60_000,
    });
    return { ...result, text: lines.join('\n') };
  };

  before(async () => {
    t = await startTestEmulator({ rke2: { delays: FAST_RKE2 }, harvester: { delays: { vmiSchedule: 10, vmiBoot: 30, guestAgent: 30, imageImport: 20 } } });
    stateDir = mkdtempSync(join(tmpdir(), 'harvester-guest-cluster-bad-'));
    // As the pool writes the agent's cloud-init Secret, its token's password is changed (before the VM boots).
    const store = t.emulator.store;
    const kind = KINDS.secret;
    const handle = store.watch(kind, { namespace: 'default' }, (event) => {
      if (event.type !== 'ADDED' || (event.object as { metadata: { name?: string } }).metadata.name !== `${CORRUPTED}-cloudinit`) return;
      const secret = store.get(kind, 'default', `${CORRUPTED}-cloudinit`)!;
      const data = secret.data as Record<string, string>;
      const userdata = Buffer.from(data.userdata, 'base64').toString('utf8').replace(/(K10[0-9a-f]{64}::node:)[0-9a-f]+/, '$1corruptedpassword');
      store.update(kind, { ...secret, data: { ...data, userdata: Buffer.from(userdata).toString('base64') } });
      handle.stop();
    });
  });
  after(async () => {
    rmSync(stateDir, { recursive: true, force: true });
    await t?.stop();
  });

  it('up fails on that node with the reason, the supervisor confirming it; the wait is recorded as a partial failure', async () => {
    const up = await run('up');
    assert.equal(up.ok, false);
    const failure = up.errors.find((e) => e.startsWith('bad:')) ?? up.errors.join('\n');
    assert.match(failure, /GuestClusterReady default\/bad: 1 of 3 node\(s\) cannot come up/);
    assert.match(failure, new RegExp(`${CORRUPTED}: \\[wrong token\\] the agent token in its user data \\(Secret default/${CORRUPTED}-cloudinit\\) has another password than this cluster's agent token`));
    // Confirmed at the supervisor when it already answers (the first server may still be installing: the reason stands alone).
    assert.match(failure, /the supervisor confirms: the supervisor refuses its password as user "node" \(401 Unauthorized\)|the supervisor could not confirm it: \[supervisor unreachable\]/);
    // The emulated node agrees: its join is refused with a 401 (under load, up may report before the node's first
    // try, as the second alternative above allows; it tries as soon as the first server serves).
    await eventually(() => /401/.test(String(t.emulator.rke2!.node('default', CORRUPTED)?.reason)), `${CORRUPTED}'s join refused with a 401`, 30_000);
    const state = JSON.parse(readFileSync(join(stateDir, 'bad.json'), 'utf8')) as { resources: { type: string; outputs: { drift?: string[] } }[] };
    const ready = state.resources.find((r) => r.type.endsWith(':GuestClusterReady'));
    assert.ok(ready, 'the failed wait is recorded');
    assert.ok(ready.outputs.drift?.some((l) => l.includes('did not finish')), JSON.stringify(ready.outputs.drift));
  });

  it('destroy removes everything, the node that never joined included', async () => {
    const destroy = await run('destroy');
    assert.ok(destroy.ok, destroy.text);
    const client = await HarvesterClient.connect({ kubeconfig: t.emulator.kubeconfig });
    assert.deepEqual((await client.virtualMachines.list({ namespace: 'default' })).items.map((v) => v.metadata.name), []);
    assert.deepEqual((await client.secrets.list({ namespace: 'default', labelSelector: 'app.kubernetes.io/managed-by=harvester-iac' })).items.map((s) => s.metadata.name), []);
  });
});
