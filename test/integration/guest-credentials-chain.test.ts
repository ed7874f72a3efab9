/**
 * The whole chain on the emulator, driven by the local runner (the real SDK and dynamic-provider host): a program
 * makes a guest cluster's credentials and a machine pool wired to them; each node's cloud-init writes the
 * kubeconfig at both paths the guest reads (0600); the guest's cloud provider, using exactly that kubeconfig as
 * a node reads it, makes its load balancers in the VMs' namespace, and the same token is refused (403) outside
 * the namespace and for kinds the cloud-provider role does not grant; a rotation rolls the pool onto a new token
 * (the old one 401); after destroy the token is refused (401). The token never reaches the state file in plain
 * text, nor any line the runner or the host printed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { isHarvesterError } from '../../provider/client/errors';
import { runOperation, type OperationKind } from '../../runner/operations';
import { repoRoot } from '../../scripts/resource-docs';
import { KINDS } from '../../emulator/kinds';
import { eventually, startTestEmulator, type TestEmulator } from '../support/emulator-harness';
import { acceptanceMode } from '../support/target';

const PATHS = ['/etc/kubernetes/cloud-config', '/var/lib/rancher/rke2/etc/config-files/cloud-provider-config'];

describe('chain: credentials → machine pool → the guest\'s cloud provider (local runner, emulator)', function () {
  this.timeout(180_000);
  let t: TestEmulator;
  let admin: HarvesterClient;
  let stateDir: string;
  const lines: string[] = [];
  const status = (call: Promise<unknown>) => call.then(() => 200, (e: unknown) => (isHarvesterError(e) ? e.httpStatus : -1));

  const run = (kind: OperationKind, rotation = '1') =>
    runOperation(kind, {
      program: join(repoRoot(), 'dist/test/integration/fixtures/guest-credentials-chain.js'),
      pwd: repoRoot(),
      project: 'chain',
      stack: 'dev',
      stateDir,
      config: { 'harvester:kubeconfig': t.emulator.kubeconfig, 'chain:rotation': rotation },
      secretConfigKeys: ['harvester:kubeconfig'],
      sink: (line) => lines.push(line),
      hostEnv: { KUBECONFIG: join(stateDir, 'no-such-kubeconfig') },
    });

  /** The kubeconfig a node reads: the VM's cloud-init user data, its write_files at both paths. */
  async function nodeKubeconfigs(): Promise<{ permissions: string; text: string }[]> {
    // The pool rolls on a rotation (a new VM index): take the cloud-init Secret of whichever VM runs now.
    const vms = (await admin.virtualMachines.list({ namespace: 'default', labelSelector: 'harvester-iac.io/resource-name=chain-nodes' })).items.filter((vm) => !vm.metadata.deletionTimestamp);
    assert.equal(vms.length, 1);
    const secret = await admin.secrets.get(`${vms[0].metadata.name}-cloudinit`, 'default');
    const userData = parse(Buffer.from(secret!.data!.userdata, 'base64').toString('utf8')) as { write_files: { path: string; content: string; permissions: string }[] };
    return PATHS.map((path) => {
      const file = userData.write_files.find((f) => f.path === path)!;
      return { permissions: file.permissions, text: Buffer.from(file.content, 'base64').toString('utf8') };
    });
  }
  const tokenOf = (kubeconfig: string) => (parse(kubeconfig) as { users: { user: { token: string } }[] }).users[0].user.token;

  before(async function () {
    if (acceptanceMode()) this.skip();
    t = await startTestEmulator({ harvester: { delays: { vmiSchedule: 10, vmiBoot: 30, guestAgent: 30, imageImport: 20 } }, guest: { clusterName: 'chain' } });
    admin = await HarvesterClient.connect({ kubeconfig: t.emulator.kubeconfig });
    await admin.namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'elsewhere' } });
    stateDir = mkdtempSync(join(tmpdir(), 'harvester-chain-'));
  });
  after(async () => {
    await t?.stop();
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  });

  let firstToken = '';

  /** A guest Service of type LoadBalancer, as a guest workload declares it. */
  const guestService = (name: string) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'default', annotations: { 'cloudprovider.harvesterhci.io/ipam': 'dhcp' } },
    spec: { type: 'LoadBalancer', selector: { app: name }, ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }] },
  });
  const ingress = (name: string) => ((t.emulator.guest!.store.get(KINDS.service, 'default', name)?.status as { loadBalancer?: { ingress?: { ip: string }[] } } | undefined)?.loadBalancer?.ingress ?? []);

  it('up: every node gets the kubeconfig at both paths, 0600; the guest\'s cloud provider using it gives a LoadBalancer Service an address', async () => {
    const up = await run('up');
    assert.ok(up.ok, lines.join('\n'));
    const [legacy, rke2] = await nodeKubeconfigs();
    assert.deepEqual([legacy.permissions, rke2.permissions], ['0600', '0600']);
    assert.equal(legacy.text, rke2.text);
    firstToken = tokenOf(legacy.text);
    // The guest's cloud provider reads /etc/kubernetes/cloud-config, as the node's cloud-init wrote it.
    t.emulator.guest!.setCloudConfig(legacy.text);
    t.emulator.guest!.store.create(KINDS.service, guestService('web'));
    const [address] = await eventually(() => (ingress('web').length ? ingress('web') : undefined), 'the guest Service gets an address', 20_000);
    assert.match(address.ip, /^\d+\.\d+\.\d+\.\d+$/);
    const lbs = (await admin.loadBalancers.list({ namespace: 'default' })).items.filter((l) => l.metadata.name!.startsWith('chain-default-web-'));
    assert.equal(lbs.length, 1, 'the cloud provider made its Harvester load balancer in the VMs\' namespace');
  });

  it('the same token is refused (403) outside the VMs\' namespace and for kinds the cloud-provider role does not grant', async () => {
    const [legacy] = await nodeKubeconfigs();
    const ccm = await HarvesterClient.connect({ kubeconfig: legacy.text, retry: { maxAttempts: 1 } });
    assert.equal(ccm.defaultNamespace, 'default');
    const lb = (namespace: string) => ({ apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'LoadBalancer', metadata: { name: 'chain-default-web-1a2b3c4d', namespace }, spec: { workloadType: 'cluster', ipam: 'dhcp', listeners: [{ name: 'http', port: 80, protocol: 'TCP', backendPort: 30080 }] } }) as never;
    assert.equal(await status(ccm.loadBalancers.create(lb('default'))), 200, 'the cloud provider makes its load balancer in the VMs\' namespace');
    assert.equal(await status(ccm.virtualMachineInstances.list({ namespace: 'default' })), 200);
    assert.equal(await status(ccm.loadBalancers.create(lb('elsewhere'))), 403, 'outside the namespace');
    assert.equal(await status(ccm.virtualMachines.list({ namespace: 'elsewhere' })), 403);
    assert.equal(await status(ccm.secrets.get('chain-token', 'default')), 403, 'a kind the role does not grant');
    assert.equal(await status(ccm.keyPairs.list({ namespace: 'default' })), 403);
    await admin.loadBalancers.delete('chain-default-web-1a2b3c4d', { namespace: 'default' });
  });

  it('the token is sealed in the state file and in no line the runner or the host printed', () => {
    const states = readdirSync(stateDir).filter((f) => f.endsWith('.json')).map((f) => readFileSync(join(stateDir, f), 'utf8'));
    assert.ok(states.length > 0);
    for (const text of states) {
      assert.equal(text.includes(firstToken), false, 'the token is in the state file in plain text');
      assert.equal(text.includes(Buffer.from(firstToken).toString('base64')), false);
    }
    assert.equal(lines.some((l) => l.includes(firstToken)), false, 'a printed line holds the token');
  });

  it('a rotation rolls the pool onto a new token; the old one is refused (401)', async () => {
    const up = await run('up', '2');
    assert.ok(up.ok, lines.join('\n'));
    const [legacy] = await nodeKubeconfigs();
    const token = tokenOf(legacy.text);
    assert.notEqual(token, firstToken);
    const old = await HarvesterClient.connect({ kubeconfig: legacy.text.replace(token, firstToken), retry: { maxAttempts: 1 } });
    assert.equal(await status(old.virtualMachines.list({ namespace: 'default' })), 401);
    const ccm = await HarvesterClient.connect({ kubeconfig: legacy.text, retry: { maxAttempts: 1 } });
    assert.equal(await status(ccm.virtualMachines.list({ namespace: 'default' })), 200);
    firstToken = token;
  });

  it('destroy removes everything; the token is refused (401)', async () => {
    const [legacy] = await nodeKubeconfigs();
    const destroy = await run('destroy', '2');
    assert.ok(destroy.ok, lines.join('\n'));
    assert.equal(await admin.serviceAccounts.get('chain', 'default'), undefined);
    assert.equal(await admin.clusterRoleBindings.get('default-chain'), undefined);
    const ccm = await HarvesterClient.connect({ kubeconfig: legacy.text, retry: { maxAttempts: 1 } });
    assert.equal(await status(ccm.virtualMachines.list({ namespace: 'default' })), 401);
  });
});
