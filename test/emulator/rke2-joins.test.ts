/**
 * Joining an emulated RKE2 cluster the wrong way: a token pinning another CA, a wrong password (server and
 * agent), a critical value that differs, a supervisor that cannot be reached (no 9345 listener, a DNS name). None
 * of them registers a Node; each says why in its journal and `reason`; an agent retries and joins once the
 * supervisor is reachable. The supervisor answers the probes a provider can make (`/cacerts`, basic auth).
 */
import { strict as assert } from 'node:assert';
import https from 'node:https';
import { KINDS } from '../../emulator/kinds';
import { hashCa } from '../../emulator/guest/rke2/token';
import { clientKubeconfig, makePki, makeTokens, rke2UserData, Rke2World, startRke2World, TestPki, writeKubeconfig } from '../support/rke2';
import { runKubectl } from '../support/kubectl';

const CLUSTER = 'gc2';

function get(url: string, o: { ca?: string; auth?: string } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.get(url, { ...(o.ca ? { ca: o.ca } : { rejectUnauthorized: false }), ...(o.auth ? { auth: o.auth } : {}) }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d)).on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
  });
}

describe('guest RKE2 cluster: joins that fail, and why', function () {
  this.timeout(120_000);
  let w: Rke2World;
  let pki: TestPki;
  let tokens: ReturnType<typeof makeTokens>;
  let lb: string;
  let url: string;

  const node = (vm: string) => w.t.emulator.rke2!.node('default', vm);
  const guestNodes = () => w.t.emulator.rke2!.clusters().find((c) => c.initServer === `default/${CLUSTER}-server-0`)?.cluster.store.list(KINDS.node).items ?? [];

  before(async () => {
    w = await startRke2World();
    pki = await makePki();
    tokens = makeTokens(pki);
    lb = await w.controlPlaneLb(CLUSTER, '127.32.0.0/24');
    url = `https://${lb}:9345`;
    w.vm(`${CLUSTER}-server-0`, rke2UserData({ role: 'server', pki, token: tokens.serverToken, agentToken: tokens.agentPassword, tlsSan: [lb] }), { 'rke2-cp': CLUSTER });
    await w.runUntil(() => node(`${CLUSTER}-server-0`)?.phase === 'Running' && w.t.emulator.rke2!.endpoints().some((e) => e.address === `${lb}:9345`), 'the first server runs behind the LB');
  });
  after(async () => {
    const errors = w?.t.emulator.rke2?.errors() ?? [];
    await w?.t.stop();
    assert.deepEqual(errors, []);
  });

  it('the supervisor serves /cacerts as written and checks the node and server passwords', async () => {
    const cacerts = await get(`${url}/cacerts`);
    assert.equal(cacerts.status, 200);
    assert.equal(cacerts.body, pki.server.certPem);
    assert.equal(hashCa(cacerts.body), pki.caHash);
    assert.equal((await get(`${url}/ping`, { ca: pki.server.certPem })).body, 'pong');
    const config = await get(`${url}/v1-rke2/config`, { ca: pki.server.certPem, auth: `node:${tokens.agentPassword}` });
    assert.equal(config.status, 200);
    assert.equal(JSON.parse(config.body)['cluster-cidr'], '10.42.0.0/16');
    assert.ok(!config.body.includes(tokens.agentPassword), 'no token in the config answer');
    assert.equal((await get(`${url}/v1-rke2/config`, { ca: pki.server.certPem, auth: 'node:wrong' })).status, 401);
    assert.equal((await get(`${url}/v1-rke2/config`, { ca: pki.server.certPem, auth: `server:${tokens.serverPassword}` })).status, 403);
    assert.equal((await get(`${url}/v1-rke2/server-bootstrap`, { ca: pki.server.certPem, auth: `server:${tokens.serverPassword}` })).status, 200);
    assert.equal((await get(`${url}/v1-rke2/server-bootstrap`, { ca: pki.server.certPem, auth: `node:${tokens.agentPassword}` })).status, 403);
  });

  it('refuses a token pinning another CA (hash first), and a wrong password after it', async () => {
    const other = makeTokens(await makePki(), tokens.serverPassword, tokens.agentPassword);
    w.vm(`${CLUSTER}-bad-hash`, rke2UserData({ role: 'agent', server: url, token: other.agentToken }));
    w.vm(`${CLUSTER}-bad-server-pw`, rke2UserData({ role: 'server', server: url, token: `K10${pki.caHash}::server:wrong`, agentToken: tokens.agentPassword }), { 'rke2-cp': CLUSTER });
    w.vm(`${CLUSTER}-bad-agent-pw`, rke2UserData({ role: 'agent', server: url, token: `K10${pki.caHash}::node:wrong` }));
    await w.runUntil(() => [`${CLUSTER}-bad-hash`, `${CLUSTER}-bad-server-pw`, `${CLUSTER}-bad-agent-pw`].every((n) => node(n)?.reason), 'all three failed a join');
    assert.match(node(`${CLUSTER}-bad-hash`)!.reason!, new RegExp(`^Failed to validate connection to cluster at ${url}: token CA hash does not match the Cluster CA certificate hash: ${other.agentToken.slice(3, 67)} != ${pki.caHash}$`));
    assert.equal(node(`${CLUSTER}-bad-server-pw`)!.reason, `${url}/v1-rke2/server-bootstrap: 401 Unauthorized`);
    assert.match(node(`${CLUSTER}-bad-agent-pw`)!.reason!, /serving-kubelet\.crt: 401 Unauthorized$/);
    await w.run(2000);
    for (const n of ['bad-hash', 'bad-server-pw', 'bad-agent-pw']) {
      assert.equal(node(`${CLUSTER}-${n}`)!.phase, 'Joining', 'it keeps retrying');
      assert.ok(!guestNodes().some((g) => g.metadata.name === `${CLUSTER}-${n}`), `${n} must never register`);
    }
    assert.equal(w.t.emulator.rke2!.clusters()[0].members.length, 1, 'no etcd member added');
  });

  it('refuses a server whose critical values differ, naming them', async () => {
    w.vm(`${CLUSTER}-other-cidr`, rke2UserData({ role: 'server', server: url, token: tokens.serverToken, agentToken: tokens.agentPassword, config: { 'cluster-cidr': '10.52.0.0/16' } }), { 'rke2-cp': CLUSTER });
    await w.runUntil(() => node(`${CLUSTER}-other-cidr`)?.reason, 'the join failed');
    assert.equal(node(`${CLUSTER}-other-cidr`)!.reason, 'failed to validate server configuration: critical configuration value mismatch between servers');
    assert.ok(node(`${CLUSTER}-other-cidr`)!.journal.some((l) => l.level === 'warning' && l.message === 'critical configuration mismatched: cluster-cidr'));
  });

  it('an unreachable supervisor: no 9345 listener, then a DNS name; the agent joins once the listener exists', async () => {
    w.t.emulator.store.create(KINDS.loadBalancer, {
      apiVersion: 'loadbalancer.harvesterhci.io/v1beta1',
      kind: 'LoadBalancer',
      metadata: { name: `${CLUSTER}-api-only`, namespace: 'default' },
      spec: { workloadType: 'vm', ipam: 'pool', ipPool: `${CLUSTER}-pool`, listeners: [{ name: 'api', port: 6443, protocol: 'TCP', backendPort: 6443 }], backendServerSelector: { 'rke2-cp': [CLUSTER] } },
    });
    const apiOnly = await w.runUntil(() => (w.t.emulator.store.get(KINDS.loadBalancer, 'default', `${CLUSTER}-api-only`)?.status as any)?.address as string | undefined, 'second LB address');
    w.vm(`${CLUSTER}-late-agent`, rke2UserData({ role: 'agent', server: `https://${apiOnly}:9345`, token: tokens.agentToken }));
    w.vm(`${CLUSTER}-dns-agent`, rke2UserData({ role: 'agent', server: 'https://gc2.example.internal:9345', token: tokens.agentToken }));
    await w.runUntil(() => node(`${CLUSTER}-late-agent`)?.reason && node(`${CLUSTER}-dns-agent`)?.reason, 'both failed');
    assert.match(node(`${CLUSTER}-late-agent`)!.reason!, new RegExp(`dial tcp ${apiOnly.replace(/\./g, '\\.')}:9345: connect: connection refused$`));
    assert.match(node(`${CLUSTER}-dns-agent`)!.reason!, /lookup gc2\.example\.internal: no such host/);
    w.t.emulator.store.patch(KINDS.loadBalancer, 'default', `${CLUSTER}-api-only`, 'merge', {
      spec: { listeners: [{ name: 'api', port: 6443, protocol: 'TCP', backendPort: 6443 }, { name: 'supervisor', port: 9345, protocol: 'TCP', backendPort: 9345 }] },
    });
    await w.runUntil(() => guestNodes().some((g) => g.metadata.name === `${CLUSTER}-late-agent`), 'the agent registered after its retry');
    assert.equal(node(`${CLUSTER}-late-agent`)!.phase, 'Running');
  });
});

describe('guest RKE2 cluster: user data that never starts, and the cloud controllers', function () {
  this.timeout(120_000);
  let w: Rke2World;
  const node = (vm: string) => w.t.emulator.rke2!.node('default', vm);
  const clusterOf = (vm: string) => w.t.emulator.rke2!.clusters().find((c) => c.initServer === `default/${vm}`);

  before(async () => {
    w = await startRke2World();
  });
  after(async () => {
    const errors = w?.t.emulator.rke2?.errors() ?? [];
    await w?.t.stop();
    assert.deepEqual(errors, []);
  });

  it('without a cloud provider, RKE2\'s own controller initialises Nodes as rke2://<name>', async () => {
    const pki = await makePki();
    w.vm('plain-0', rke2UserData({ role: 'server', pki, token: 'short-token' }));
    await w.runUntil(() => clusterOf('plain-0')?.cluster.store.get(KINDS.node, undefined, 'plain-0')?.spec, 'the Node');
    const n = await w.runUntil(() => {
      const o = clusterOf('plain-0')?.cluster.store.get(KINDS.node, undefined, 'plain-0');
      return (o?.spec as any)?.providerID ? o : undefined;
    }, 'initialised');
    assert.equal((n.spec as any).providerID, 'rke2://plain-0');
    assert.equal(clusterOf('plain-0')!.cloudProvider, 'rke2');
  });

  it('a new VM taking the name of a Node still there is refused as a duplicate hostname', async () => {
    const ip = node('plain-0')!.ip!;
    const agent = rke2UserData({ role: 'agent', server: `https://${ip}:9345`, token: 'short-token' });
    w.vm('plain-a', agent);
    const store = clusterOf('plain-0')!.cluster.store;
    await w.runUntil(() => store.get(KINDS.node, undefined, 'plain-a'), 'the agent registered');
    // RKE2's own cloud controller never deletes Nodes: the old one stays when its VM goes.
    w.t.emulator.store.delete(KINDS.virtualMachine, 'default', 'plain-a');
    await w.runUntil(() => !w.t.emulator.store.get(KINDS.virtualMachine, 'default', 'plain-a') && !node('plain-a'), 'the VM gone');
    w.t.emulator.store.delete(KINDS.secret, 'default', 'plain-a-cloudinit');
    w.vm('plain-a', agent);
    await w.runUntil(() => node('plain-a')?.reason, 'the new node refused');
    assert.match(node('plain-a')!.reason!, /Node password rejected, duplicate hostname/);
  });

  it('cloud-provider-name harvester without its cloud config: no controller, the taint stays, the note says why', async () => {
    const pki = await makePki();
    w.vm('nocfg-0', rke2UserData({ role: 'server', pki, token: 'short-token', config: { 'cloud-provider-name': 'harvester' } }));
    await w.runUntil(() => clusterOf('nocfg-0')?.cluster.store.get(KINDS.node, undefined, 'nocfg-0'), 'the Node');
    await w.run(500);
    const n = clusterOf('nocfg-0')!.cluster.store.get(KINDS.node, undefined, 'nocfg-0')!;
    assert.deepEqual(((n.spec as any).taints ?? []).map((t: any) => t.key), ['node.cloudprovider.kubernetes.io/uninitialized']);
    assert.equal(clusterOf('nocfg-0')!.cloudProvider, 'none');
    assert.match(clusterOf('nocfg-0')!.cloudProviderNote, /no cloud config at \/var\/lib\/rancher\/rke2\/etc\/config-files\/cloud-provider-config/);
  });

  it('a service started before RKE2 is installed, or never started, fails with the reason', async () => {
    const pki = await makePki();
    const unstarted = rke2UserData({ role: 'server', pki, token: 't' }).replace(/ {2}- systemctl start rke2-server.service\n/, '');
    w.vm('unstarted', unstarted);
    const noInstall = rke2UserData({ role: 'server', pki, token: 't' }).replace(/ {2}- curl -sfL https:\/\/get\.rke2\.io.*\n/, '');
    w.vm('no-install', noInstall);
    await w.runUntil(() => node('unstarted')?.phase === 'Failed' && node('no-install')?.phase === 'Failed', 'both failed');
    assert.equal(node('unstarted')!.reason, 'rke2-server.service is enabled but not started: it would start at the next boot (use systemctl enable --now)');
    assert.equal(node('no-install')!.reason, 'Failed to start rke2-server.service: Unit rke2-server.service not found.');
  });

  it('serves a non-loopback server address on 127.0.0.1, valid for that address; an LB address missing from tls-san is an x509 error', async () => {
    const pki = await makePki();
    const lb = await w.controlPlaneLb('nosan', '127.33.0.0/24');
    w.vm('nosan-0', rke2UserData({ role: 'server', pki, token: 't' }), { 'rke2-cp': 'nosan' });
    const cluster = await w.runUntil(() => {
      const c = clusterOf('nosan-0');
      return c && c.endpoints.some((e) => e.address === `${lb}:6443`) && c.cluster.store.get(KINDS.node, undefined, 'nosan-0') ? c : undefined;
    }, 'the API behind the LB, the Node registered');
    const kubectl = (path: string, args: string[]) => runKubectl({ kubeconfigPath: path, cacheDir: `${w.t.dir}/kc-cache`, home: `${w.t.dir}/kc-home` }, args);
    const viaLb = await kubectl(writeKubeconfig(w.t, 'nosan-lb', await clientKubeconfig(pki, `https://${lb}:6443`)), ['get', 'nodes']);
    assert.notEqual(viaLb.code, 0);
    assert.match(viaLb.stderr, new RegExp(`x509: certificate is valid for .*not ${lb.replace(/\./g, '\\.')}`));
    const ip = node('nosan-0')!.ip!;
    const own = cluster.endpoints.find((e) => e.address === `${ip}:6443`)!;
    assert.match(own.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.match(own.note!, /not a loopback address/);
    const direct = await kubectl(writeKubeconfig(w.t, 'nosan-direct', await clientKubeconfig(pki, own.url)), ['get', 'nodes', '--tls-server-name', ip, '--no-headers']);
    assert.equal(direct.code, 0, direct.stderr);
    assert.match(direct.stdout, /^nosan-0\s/);
    // A node may join through a server's own address too.
    w.vm('nosan-agent', rke2UserData({ role: 'agent', server: `https://${ip}:9345`, token: 't' }));
    await w.runUntil(() => cluster.cluster.store.get(KINDS.node, undefined, 'nosan-agent'), 'the agent joined through the server address');
  });

  it('a supplied CA whose key is another certificate\'s, or a service.key that is no key, fails the first start', async () => {
    const pki = await makePki();
    const mixed = { ...pki, server: { certPem: pki.server.certPem, keyPem: pki.client.keyPem } };
    w.vm('mixed-ca', rke2UserData({ role: 'server', pki: mixed, token: 't' }));
    w.vm('bad-sa-key', rke2UserData({ role: 'server', pki: { ...pki, serviceKeyPem: 'not a key' }, token: 't' }));
    await w.runUntil(() => node('mixed-ca')?.phase === 'Failed' && node('bad-sa-key')?.phase === 'Failed', 'both failed');
    assert.match(node('mixed-ca')!.reason!, /^starting kubernetes: preparing server: \/var\/lib\/rancher\/rke2\/server\/tls\/server-ca\.crt: the key does not belong to the certificate CN=rke2-server-ca@test$/);
    assert.match(node('bad-sa-key')!.reason!, /service\.key: not a PEM private key/);
    assert.equal(clusterOf('mixed-ca'), undefined);
  });

  it('an image marked as having RKE2 installed runs it without the install step, at the marked version', async () => {
    w.t.emulator.store.patch(KINDS.virtualMachineImage, 'default', 'ubuntu-22.04-server-cloudimg', 'merge', { metadata: { annotations: { 'emulator.harvester-iac.io/rke2-version': 'v1.31.9+rke2r1' } } });
    const pki = await makePki();
    w.vm('baked', rke2UserData({ role: 'server', pki, token: 't' }).replace(/ {2}- curl -sfL https:\/\/get\.rke2\.io.*\n/, ''));
    const n = await w.runUntil(() => clusterOf('baked')?.cluster.store.get(KINDS.node, undefined, 'baked'), 'the Node');
    assert.equal((n.status as any).nodeInfo.kubeletVersion, 'v1.31.9+rke2r1');
  });
});
