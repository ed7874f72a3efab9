/**
 * GuestCluster on a real Harvester (acceptance mode only: HARVESTER_IAC_ACCEPTANCE_KUBECONFIG set, plus
 * HARVESTER_IAC_ACCEPTANCE_GUEST_SUBNET; docs/guides/acceptance-tests.md). examples/guest-cluster runs through the
 * local runner: RKE2 really installs from get.rke2.io, so the VMs need Internet access (or RKE2 in the image).
 * On the emulator every test here is pending: test/examples/guest-cluster.test.ts covers the same story there.
 *
 * The points the emulator could not settle (research on guest RKE2 clusters, §8; docs/design/guest-rke2.md "Open
 * points"), for whoever runs this:
 * 1. a DHCP-mode control-plane load balancer before any backend exists — GuestCluster uses pool mode only (an
 *    address before any VM): pending here, to check by hand;
 * 2. which value the RKE2-bundled harvester-cloud-provider chart takes for --cluster-name (`global.cattle.clusterName`,
 *    which GuestCluster writes, or `clusterName`) — checked: a guest LoadBalancer Service's Harvester load balancer
 *    must carry the cluster's name, not "kubernetes";
 * 3. whether the bundled CSI chart reads the same cloud-config path — checked: a PersistentVolumeClaim of the
 *    guest's `harvester` StorageClass must be bound;
 * 4. boot-to-Ready times per image, with and without air-gap artifacts — measured: the time of `up` is printed;
 *    run again with another HARVESTER_IAC_ACCEPTANCE_CLOUD_IMAGE (the emulator's delays are not measured ones).
 * Optional: HARVESTER_IAC_ACCEPTANCE_RKE2_VERSION (default v1.32.5+rke2r1) and …_RKE2_UPGRADE_VERSION (the next
 * minor: the roll is then run with the guest API polled throughout).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { runOperation, type OperationKind } from '../../runner/operations';
import { repoRoot } from '../../scripts/resource-docs';
import { runKubectl } from '../support/kubectl';
import { ACCEPTANCE_ENV, acceptanceMode, suiteTimeout } from '../support/target';

const env = (name: string) => process.env[`HARVESTER_IAC_ACCEPTANCE_${name}`]?.trim() || undefined;

describe('acceptance: GuestCluster on a real Harvester (3 servers, 1 agent)', function () {
  this.timeout(suiteTimeout(10_000, 90 * 60_000));
  const cluster = `gc-acc-${Math.random().toString(36).slice(2, 7)}`;
  let stateDir = '';
  let kubeconfigPath = '';
  let harvester: HarvesterClient;

  const subnet = env('GUEST_SUBNET');
  const base = (): Record<string, string> => {
    const [network, prefix] = (subnet ?? '0.0.0.0/0').split('/');
    const octets = network.split('.').map(Number);
    const at = (n: number) => [...octets.slice(0, 3), octets[3] + n].join('.');
    return {
      'harvester:kubeconfig': readFileSync(process.env[ACCEPTANCE_ENV] as string, 'utf8'),
      'guest-cluster:name': cluster,
      'guest-cluster:namespace': env('NAMESPACE') ?? 'default',
      'guest-cluster:image': env('CLOUD_IMAGE') ?? '',
      'guest-cluster:network': env('NETWORK') ?? '',
      'guest-cluster:servers': '3',
      'guest-cluster:agents': '1',
      'guest-cluster:version': env('RKE2_VERSION') ?? 'v1.32.5+rke2r1',
      'guest-cluster:subnet': `${network}/${prefix}`, 'guest-cluster:rangeStart': at(10), 'guest-cluster:rangeEnd': at(19),
      'guest-cluster:serviceSubnet': `${network}/${prefix}`, 'guest-cluster:serviceRangeStart': at(20), 'guest-cluster:serviceRangeEnd': at(29),
      'guest-cluster:readyTimeout': '40m',
    };
  };
  const run = async (kind: OperationKind, config: Record<string, string> = {}) => {
    const lines: string[] = [];
    const result = await runOperation(kind, {
      program: join(repoRoot(), 'dist/examples/guest-cluster/index.js'),
      pwd: repoRoot(),
      project: 'guest-cluster-acceptance',
      stack: cluster,
      stateDir,
      config: { ...base(), ...config },
      secretConfigKeys: ['harvester:kubeconfig'],
      sink: (line) => lines.push(line),
    });
    return { ...result, text: lines.join('\n') };
  };
  const kubectl = (args: string[]) => runKubectl({ kubeconfigPath, cacheDir: join(stateDir, 'kc-cache'), home: join(stateDir, 'kc-home') }, args);

  before(async function () {
    if (!acceptanceMode()) this.skip();
    if (!subnet || !env('CLOUD_IMAGE') || !env('NETWORK')) {
      throw new Error('acceptance: GuestCluster needs HARVESTER_IAC_ACCEPTANCE_GUEST_SUBNET (addresses network+10…+29 free), …_CLOUD_IMAGE and …_NETWORK (docs/guides/acceptance-tests.md)');
    }
    stateDir = mkdtempSync(join(tmpdir(), 'harvester-guest-acceptance-'));
    harvester = await HarvesterClient.connect({ kubeconfig: process.env[ACCEPTANCE_ENV] });
  });
  after(async () => {
    if (!stateDir) return;
    await run('destroy').catch(() => undefined);
    rmSync(stateDir, { recursive: true, force: true });
  });

  it('up: four nodes Ready, initialised by the cloud provider (the time is printed: open point 4)', async () => {
    const started = Date.now();
    const up = await run('up');
    assert.ok(up.ok, up.text);
    console.log(`    open point 4: ${cluster} from up to Ready in ${((Date.now() - started) / 60_000).toFixed(1)} min with ${env('CLOUD_IMAGE')}`);
    const nodes = up.outputs.nodes as { name: string; ready: boolean; initialised: boolean }[];
    assert.equal(nodes.length, 4);
    assert.ok(nodes.every((n) => n.ready && n.initialised), JSON.stringify(nodes));
    kubeconfigPath = join(stateDir, 'kubeconfig');
    writeFileSync(kubeconfigPath, String(up.outputs.kubeconfig), { mode: 0o600 });
    const r = await kubectl(['get', 'nodes', '-o', 'wide']);
    assert.equal(r.code, 0, r.stderr);
  });

  it('open point 2: a LoadBalancer Service gets an address, its Harvester load balancer named for this cluster (not "kubernetes")', async () => {
    const svc = join(stateDir, 'svc.yaml');
    writeFileSync(svc, 'apiVersion: v1\nkind: Service\nmetadata: { name: acceptance-web, namespace: default }\nspec:\n  type: LoadBalancer\n  selector: { app: web }\n  ports: [{ name: http, port: 80, targetPort: 8080 }]\n');
    assert.equal((await kubectl(['apply', '-f', svc])).code, 0);
    const r = await kubectl(['wait', '--for=jsonpath={.status.loadBalancer.ingress[0].ip}', 'service/acceptance-web', '--timeout=5m']);
    assert.equal(r.code, 0, r.stderr);
    const lbs = (await harvester.loadBalancers.list({ namespace: env('NAMESPACE') ?? 'default' })).items.filter((lb) => lb.metadata.labels?.['cloudprovider.harvesterhci.io/serviceName'] === 'acceptance-web');
    assert.deepEqual(lbs.map((lb) => lb.metadata.labels?.['cloudprovider.harvesterhci.io/cluster']), [cluster]);
    await kubectl(['delete', '-f', svc]);
  });

  it('open point 3: the bundled CSI driver binds a volume of the guest\'s harvester StorageClass', async () => {
    const pvc = join(stateDir, 'pvc.yaml');
    writeFileSync(pvc, 'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: { name: acceptance-vol, namespace: default }\nspec:\n  accessModes: [ReadWriteOnce]\n  storageClassName: harvester\n  resources: { requests: { storage: 1Gi } }\n');
    assert.equal((await kubectl(['apply', '-f', pvc])).code, 0);
    const r = await kubectl(['wait', '--for=jsonpath={.status.phase}=Bound', 'pvc/acceptance-vol', '--timeout=10m']);
    assert.equal(r.code, 0, r.stderr);
    await kubectl(['delete', '-f', pvc]);
  });

  it('a version change rolls with the guest API answering throughout (set …_RKE2_UPGRADE_VERSION)', async function () {
    const next = env('RKE2_UPGRADE_VERSION');
    if (!next) this.skip();
    const guest = await HarvesterClient.connect({ kubeconfig: readFileSync(kubeconfigPath, 'utf8'), retry: { maxAttempts: 3, initialDelayMs: 100, maxDelayMs: 200 } });
    const failures: string[] = [];
    let rolling = true;
    const poller = (async () => {
      while (rolling) {
        await guest.nodes.list({}).catch((err: Error) => failures.push(err.message));
        await new Promise((r) => setTimeout(r, 500));
      }
    })();
    const up = await run('up', { 'guest-cluster:version': next as string });
    rolling = false;
    await poller;
    assert.ok(up.ok, up.text);
    assert.deepEqual(failures, []);
    assert.ok((up.outputs.nodes as { kubeletVersion?: string }[]).every((n) => n.kubeletVersion === next));
  });

  it('open point 1: a DHCP-mode control-plane load balancer before any backend exists (GuestCluster uses pool mode: check by hand)', function () {
    this.skip();
  });

  it('destroy leaves nothing of the cluster on Harvester', async () => {
    const destroy = await run('destroy');
    assert.ok(destroy.ok, destroy.text);
    const ns = env('NAMESPACE') ?? 'default';
    const vms = (await harvester.virtualMachines.list({ namespace: ns })).items.filter((v) => v.metadata.name?.startsWith(`${cluster}-`));
    const lbs = (await harvester.loadBalancers.list({ namespace: ns })).items.filter((l) => l.metadata.name?.startsWith(cluster) || l.metadata.labels?.['cloudprovider.harvesterhci.io/cluster'] === cluster);
    assert.deepEqual([...vms, ...lbs].map((o) => o.metadata.name), []);
  });
});
