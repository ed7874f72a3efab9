/**
 * Guest RKE2 clusters from VM user data, end to end through the real kubectl: three servers and two agents
 * behind a control-plane load balancer on a loopback address become five Ready Nodes initialised by the Harvester
 * cloud provider; the API serves the supplied CA and takes client certificates of the supplied client CA; a
 * LoadBalancer Service gets a Harvester LoadBalancer; deleting a server removes its etcd member; losing quorum
 * answers 503.
 */
import { strict as assert } from 'node:assert';
import { KINDS } from '../../emulator/kinds';
import { clientKubeconfig, makePki, makeTokens, rke2UserData, Rke2World, startRke2World, TestPki, writeKubeconfig } from '../support/rke2';
import { runKubectl } from '../support/kubectl';

const CLUSTER = 'gc1';

describe('guest RKE2 cluster: 3 servers + 2 agents through the real kubectl', function () {
  this.timeout(120_000);
  let w: Rke2World;
  let pki: TestPki;
  let lb: string;
  let adminKubeconfig: string;

  const kubectl = (kubeconfig: string, args: string[]) => runKubectl({ kubeconfigPath: kubeconfig, cacheDir: `${w.t.dir}/kc-cache`, home: `${w.t.dir}/kc-home` }, args);
  const nodes = () => w.t.emulator.rke2!.clusters()[0]?.cluster.store.list(KINDS.node).items ?? [];
  const readyNodes = () => nodes().filter((n) => ((n.status as any)?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True'));

  before(async () => {
    w = await startRke2World();
    pki = await makePki();
    const tokens = makeTokens(pki);
    lb = await w.controlPlaneLb(CLUSTER, '127.31.0.0/24');
    const cloudConfig = w.t.emulator.kubeconfig;
    const common = { token: tokens.serverToken, agentToken: tokens.agentPassword, tlsSan: [lb], cloudConfig, clusterName: CLUSTER };
    w.vm(`${CLUSTER}-server-0`, rke2UserData({ role: 'server', pki, ...common }), { 'rke2-cp': CLUSTER });
    for (const i of [1, 2]) w.vm(`${CLUSTER}-server-${i}`, rke2UserData({ role: 'server', server: `https://${lb}:9345`, ...common }), { 'rke2-cp': CLUSTER });
    const pool = { 'node-label': ['pool=workers'], 'node-taint': ['dedicated=gpu:NoSchedule'] };
    for (const i of [0, 1]) w.vm(`${CLUSTER}-agent-${i}`, rke2UserData({ role: 'agent', server: `https://${lb}:9345`, token: tokens.agentToken, cloudConfig, clusterName: CLUSTER, config: i === 1 ? pool : {} }));
    adminKubeconfig = writeKubeconfig(w.t, 'admin', await clientKubeconfig(pki, `https://${lb}:6443`));
  });
  after(async () => {
    const errors = w?.t.emulator.rke2?.errors() ?? [];
    await w?.t.stop();
    assert.deepEqual(errors, [], 'RKE2 controllers reported errors');
  });

  it('brings up five Ready nodes with roles, the RKE2 version and harvester:// provider IDs', async () => {
    await w.runUntil(() => readyNodes().length === 5 && nodes().every((n) => (n.spec as any)?.providerID), 'five Ready, initialised nodes', 30_000);
    const vms = w.t.emulator.store.list(KINDS.virtualMachine, { namespace: 'default' }).items;
    for (const n of nodes()) {
      const vm = vms.find((v) => v.metadata.name === n.metadata.name)!;
      assert.equal((n.spec as any).providerID, `harvester://${vm.metadata.uid}`);
      assert.equal((n.status as any).nodeInfo.kubeletVersion, 'v1.32.5+rke2r1');
      assert.ok(!((n.spec as any).taints ?? []).some((t: any) => t.key === 'node.cloudprovider.kubernetes.io/uninitialized'), `${n.metadata.name} still tainted`);
    }
    const agent = nodes().find((n) => n.metadata.name === `${CLUSTER}-agent-1`)!;
    assert.equal(agent.metadata.labels!.pool, 'workers');
    assert.deepEqual((agent.spec as any).taints, [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }]);
    const server = nodes().find((n) => n.metadata.name === `${CLUSTER}-server-1`)!;
    assert.match(server.metadata.annotations!['etcd.rke2.cattle.io/node-name'], new RegExp(`^${CLUSTER}-server-1-[0-9a-f]{8}$`));
    const cluster = w.t.emulator.rke2!.clusters()[0];
    assert.equal(cluster.members.length, 3);
    assert.equal(cluster.cloudProvider, 'harvester');
    assert.ok(cluster.endpoints.some((e) => e.address === `${lb}:6443` && e.url === `https://${lb}:6443`), JSON.stringify(cluster.endpoints));
  });

  it('kubectl with a client certificate of the supplied client CA lists them through the LB address', async () => {
    const r = await kubectl(adminKubeconfig, ['get', 'nodes', '-o', 'wide']);
    assert.equal(r.code, 0, r.stderr);
    const rows = r.stdout.trim().split('\n').slice(1);
    assert.equal(rows.length, 5, r.stdout);
    assert.match(r.stdout, new RegExp(`^${CLUSTER}-server-0\\s+Ready\\s+control-plane,etcd,master\\s+\\S+\\s+v1\\.32\\.5\\+rke2r1`, 'm'));
    assert.match(r.stdout, new RegExp(`^${CLUSTER}-agent-0\\s+Ready\\s+<none>\\s+`, 'm'));
    // The emulator's own bearer-token kubeconfig for the local endpoint works as well.
    const token = await kubectl(writeKubeconfig(w.t, 'token', w.t.emulator.rke2!.clusters()[0].kubeconfig!), ['get', 'nodes', '--no-headers']);
    assert.equal(token.code, 0, token.stderr);
  });

  it('refuses a client certificate of another CA, and authorizes one without system:masters by RBAC', async () => {
    const stranger = await makePki();
    const foreign = writeKubeconfig(w.t, 'foreign', (await clientKubeconfig(stranger, `https://${lb}:6443`)).replace(Buffer.from(stranger.server.certPem).toString('base64'), Buffer.from(pki.server.certPem).toString('base64')));
    const refused = await kubectl(foreign, ['get', 'nodes']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /Unauthorized|must be logged in/i);
    const viewer = writeKubeconfig(w.t, 'viewer', await clientKubeconfig(pki, `https://${lb}:6443`, 'jane', ['dev']));
    const forbidden = await kubectl(viewer, ['get', 'nodes']);
    assert.notEqual(forbidden.code, 0);
    assert.match(forbidden.stderr, /forbidden: User "jane" cannot list resource "nodes"/);
  });

  it('the serving certificate is the supplied CA\'s: a kubeconfig trusting another CA fails verification', async () => {
    const stranger = await makePki();
    const text = (await clientKubeconfig(pki, `https://${lb}:6443`)).replace(Buffer.from(pki.server.certPem).toString('base64'), Buffer.from(stranger.server.certPem).toString('base64'));
    const r = await kubectl(writeKubeconfig(w.t, 'wrong-ca', text), ['get', 'nodes']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /x509: certificate signed by unknown authority/);
  });

  it('a LoadBalancer Service in the guest becomes a Harvester LoadBalancer named for the cluster', async () => {
    const guest = w.t.emulator.rke2!.clusters()[0].cluster.store;
    guest.create(KINDS.service, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { type: 'LoadBalancer', selector: { app: 'web' }, ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }] } });
    const hlb = await w.runUntil(
      () => w.t.emulator.store.list(KINDS.loadBalancer, { namespace: 'default' }).items.find((l) => l.metadata.labels?.['cloudprovider.harvesterhci.io/cluster'] === CLUSTER),
      'a Harvester LB for the guest Service',
    );
    assert.match(String(hlb.metadata.name), new RegExp(`^${CLUSTER}-default-web-[0-9a-f]{8}$`));
  });

  it('deleting a server VM removes its Node and its etcd member; the API stays up', async () => {
    w.t.emulator.store.delete(KINDS.virtualMachine, 'default', `${CLUSTER}-server-2`);
    await w.runUntil(() => w.t.emulator.rke2!.clusters()[0].members.length === 2, 'two etcd members left');
    await w.runUntil(() => !nodes().some((n) => n.metadata.name === `${CLUSTER}-server-2`), 'the server Node deleted');
    const cluster = w.t.emulator.rke2!.clusters()[0];
    assert.ok(cluster.hasQuorum);
    assert.ok(cluster.journal.some((l) => l.message.includes(`Removing etcd member ${CLUSTER}-server-2`)), JSON.stringify(cluster.journal));
    const r = await kubectl(adminKubeconfig, ['get', 'nodes', '--no-headers']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim().split('\n').length, 4);
  });

  it('losing quorum answers 503 through the LB; it comes back with the server', async () => {
    // Two members left: stopping one leaves one of two alive, no majority.
    w.t.emulator.store.patch(KINDS.virtualMachine, 'default', `${CLUSTER}-server-1`, 'merge', { spec: { runStrategy: 'Halted' } });
    await w.runUntil(() => !w.t.emulator.rke2!.clusters()[0].hasQuorum, 'quorum lost');
    const ip = w.t.emulator.rke2!.node('default', `${CLUSTER}-server-1`)!.ip;
    await w.runUntil(() => !w.t.emulator.rke2!.endpoints().some((e) => e.address.startsWith(`${ip}:`)), 'the stopped server\'s own listeners closed');
    const down = await kubectl(adminKubeconfig, ['get', 'nodes', '--request-timeout=5s']);
    assert.notEqual(down.code, 0);
    assert.match(down.stderr, /etcdserver: no leader|ServiceUnavailable|unable to handle the request/, down.stderr);
    w.t.emulator.store.patch(KINDS.virtualMachine, 'default', `${CLUSTER}-server-1`, 'merge', { spec: { runStrategy: 'RerunOnFailure' } });
    await w.runUntil(() => w.t.emulator.rke2!.clusters()[0].hasQuorum, 'quorum back');
    const up = await kubectl(adminKubeconfig, ['get', 'nodes', '--no-headers']);
    assert.equal(up.code, 0, up.stderr);
  });
});
