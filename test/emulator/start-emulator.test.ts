/**
 * startEmulator's own contract: the kubeconfig it writes, faults and latency set at start, plain-HTTP
 * mode, the guest cluster endpoint, and a stop() that ends open watches and can be called twice.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig, Watch } from '@kubernetes/client-node';
import { parse as parseYaml } from 'yaml';
import { startEmulator } from '../../emulator';
import { eventually, startTestEmulator, TestEmulator } from '../support/emulator-harness';
import { runKubectl } from '../support/kubectl';

describe('startEmulator', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'harvester-emu-start-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('writes a 0600 kubeconfig with the CA, the token and `harvester` names, and serves faults/latency from the start', async () => {
    const path = join(dir, 'nested', 'kubeconfig');
    const emu = await startEmulator({
      kubeconfigPath: path,
      controllers: false,
      latencyMs: 50,
      faults: [{ name: 'first-list', match: { verb: 'list', resource: 'nodes' }, action: { type: 'error', code: 503 }, times: 1 }],
    });
    try {
      assert.equal(statSync(path).mode & 0o777, 0o600);
      const text = readFileSync(path, 'utf8');
      assert.equal(text, emu.kubeconfig);
      const doc = parseYaml(text) as Record<string, any>;
      assert.equal(doc['current-context'], 'harvester');
      assert.equal(doc.clusters[0].name, 'harvester');
      assert.equal(doc.clusters[0].cluster.server, emu.url);
      assert.match(emu.url, /^https:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(Buffer.from(doc.clusters[0].cluster['certificate-authority-data'], 'base64').toString(), emu.caCert);
      assert.equal(doc.users[0].user.token, emu.token);
      assert.equal(doc.contexts[0].context.namespace, 'default');

      const kc = new KubeConfig();
      kc.loadFromFile(path);
      const core = kc.makeApiClient(CoreV1Api);
      await assert.rejects(core.listNode(), (e: { code?: number }) => e.code === 503);
      const started = Date.now();
      const nodes = await core.listNode();
      assert.ok(Date.now() - started >= 45, 'latencyMs applies to every response');
      assert.equal(nodes.items.length, 3);
    } finally {
      await emu.stop();
      await emu.stop(); // idempotent
    }
  });

  it('serves plain HTTP when asked, with insecure-skip-tls-verify in the kubeconfig', async () => {
    const emu = await startEmulator({ tls: false, controllers: false });
    try {
      assert.match(emu.url, /^http:\/\//);
      assert.equal(emu.caCert, undefined);
      assert.match(emu.kubeconfig, /insecure-skip-tls-verify: true/);
      const kc = new KubeConfig();
      kc.loadFromString(emu.kubeconfig);
      const ns = await kc.makeApiClient(CoreV1Api).listNamespace();
      assert.deepEqual(ns.items.map((n) => n.metadata!.name).sort(), ['default', 'harvester-public', 'kube-system']);
    } finally {
      await emu.stop();
    }
  });

  it('stop() ends open watches so clients see the stream close', async () => {
    const emu = await startEmulator({ controllers: false });
    const kc = new KubeConfig();
    kc.loadFromString(emu.kubeconfig);
    let ended = false;
    await new Watch(kc).watch('/api/v1/nodes', {}, () => undefined, () => {
      ended = true;
    });
    await emu.stop();
    await eventually(() => ended, 'the watch to end when the emulator stops');
  });

  describe('with a guest cluster', () => {
    let t: TestEmulator;
    before(async () => {
      t = await startTestEmulator({ guest: { kubeconfigPath: join(dir, 'guest', 'kubeconfig'), clusterName: 'gc1', ccmVersion: 'v0.2.4', kubeletVersion: 'v1.32.4+rke2r1' } });
    });
    after(() => t?.stop());

    it('serves the guest API on its own endpoint, token and kubeconfig', async () => {
      const guest = t.emulator.guest!;
      assert.notEqual(guest.url, t.emulator.url);
      assert.notEqual(guest.token, t.emulator.token);
      assert.equal(guest.clusterName, 'gc1');
      assert.equal(guest.ccmVersion, 'v0.2.4');
      const doc = parseYaml(readFileSync(guest.kubeconfigPath!, 'utf8')) as Record<string, any>;
      assert.equal(doc['current-context'], 'gc1');
      const env = { kubeconfigPath: guest.kubeconfigPath!, cacheDir: join(t.dir, 'guest-cache'), home: join(t.dir, 'guest-home') };
      const ns = await runKubectl(env, ['get', 'namespaces', '-o', 'name']);
      assert.equal(ns.code, 0, ns.stderr);
      assert.match(ns.stdout, /namespace\/default/);
      const lb = await runKubectl(env, ['get', 'loadbalancers']);
      assert.equal(lb.code, 1);
      assert.match(lb.stderr, /the server doesn't have a resource type "loadbalancers"/);
      assert.ok(guest.journal.entries({ path: '/api/v1/namespaces' }).length > 0);
      assert.equal(t.emulator.journal.entries({ path: '/api/v1/namespaces' }).length, 0, 'each endpoint has its own journal');
    });
  });
});
