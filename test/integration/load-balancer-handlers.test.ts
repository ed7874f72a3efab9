/**
 * HarvesterLoadBalancer (workloadType "vm") handler paths on the emulator: check naming each missing dependency
 * and an unowned load balancer with the way out; create refusing what it does not own and taking over its own
 * leftover; progress up to "serves on"; import and delete by a bare name (namespace "default", whatever the
 * kubeconfig's); timeouts naming what held the address back and the option to raise. Emulator only.
 */
import assert from 'node:assert/strict';
import { parse, stringify } from 'yaml';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { createLoadBalancerProvider } from '../../provider/resources/load-balancer/handlers';
import type { LoadBalancerOutputs } from '../../provider/resources/load-balancer/model';
import { desiredLoadBalancer } from '../../provider/resources/load-balancer/plan';
import { validateInputs } from '../../provider/resources/load-balancer/validate';
import { createMachinePoolProvider } from '../../provider/resources/machine-pool/handlers';
import type { MachinePoolOutputs } from '../../provider/resources/machine-pool/outputs';
import { startTestEmulator, type TestEmulator } from '../support/emulator-harness';
import { acceptanceMode } from '../support/target';
import { fastConnect } from '../support/fast-connect';
import { checkedBy, rejectsWith } from './load-balancer-support';

type Raw = Record<string, unknown>;
const FAST = { create: '1s', update: '1s', delete: '10s' };

describe('HarvesterLoadBalancer handlers: check, create, import, delete and timeouts', function () {
  this.timeout(60_000);
  let t: TestEmulator;
  let client: HarvesterClient;
  let kubeconfig: string;
  let web: MachinePoolOutputs;
  const progress: string[] = [];
  const lbs = createLoadBalancerProvider({ connect: fastConnect(), onProgress: (line) => progress.push(line) });
  const machines = createMachinePoolProvider({ connect: fastConnect() });

  // One DHCP address for the load balancer that has a backend, one for the one that has none: a third gets nothing.
  const lbArgs = (overrides: Raw = {}): Raw => ({
    kubeconfig, name: 'web', ipam: 'dhcp', network: 'default/vm-net', listeners: [{ name: 'http', port: 80, backendPort: 8080 }], backendServerSelector: web.backendSelector, ...overrides,
  });
  const checked = (args: Raw) => checkedBy(lbs, args);
  const failuresOf = async (args: Raw) => Object.fromEntries(((await lbs.check({}, args)).failures ?? []).map((f) => [f.property, f.reason]));
  /** The emulator's kubeconfig with another namespace in its context: a bare name must still mean "default". */
  const otherNamespaceKubeconfig = () => {
    const doc = parse(kubeconfig) as { contexts: { context: Record<string, unknown> }[] };
    for (const c of doc.contexts) c.context.namespace = 'harvester-public';
    return stringify(doc);
  };

  before(async function () {
    if (acceptanceMode()) this.skip();
    t = await startTestEmulator({
      harvester: { delays: { vmiSchedule: 10, vmiBoot: 30, guestAgent: 30, imageImport: 20 }, dhcpRange: { start: '192.168.100.100', end: '192.168.100.101' } },
    });
    kubeconfig = t.emulator.kubeconfig;
    client = await HarvesterClient.connect({ kubeconfig });
    const pool = await machines.check({}, { kubeconfig, name: 'web', count: 1, disks: [{ image: 'default/ubuntu-22.04-server-cloudimg', size: '10Gi' }], networks: [{ network: 'default/vm-net' }], timeouts: { create: '30s', update: '30s', delete: '30s' } });
    web = (await machines.create(pool.inputs!)).outs!;
    // A load balancer made by someone else (no ownership labels).
    const theirs = desiredLoadBalancer(validateInputs({ name: 'theirs', listeners: [{ name: 'http', port: 80, backendPort: 80 }], backendServerSelector: { app: ['theirs'] } }).inputs!);
    await client.loadBalancers.create({ ...theirs, metadata: { name: 'theirs', namespace: 'default' } });
  });
  after(async () => {
    if (web) await machines.delete('default/web', web as unknown as Raw);
    await t?.stop();
  });

  it('check names a missing network and namespace, and an unowned load balancer with how to adopt or remove it', async () => {
    const f = await failuresOf(lbArgs({ name: 'theirs', network: 'default/nope' }));
    assert.deepEqual(Object.keys(f).sort(), ['name', 'network']);
    assert.equal(f.network, 'VM network default/nope does not exist: name an existing NetworkAttachmentDefinition');
    assert.match(f.name, /^Refusing to manage LoadBalancer default\/theirs: it is not managed by harvester-iac .*`kubectl label -n default loadbalancer theirs --overwrite .*`\. Or import it \(id "default\/theirs"\), or delete it \(`kubectl delete loadbalancer -n default theirs`\) if nothing uses it\.$/);
    assert.deepEqual(await failuresOf(lbArgs({ namespace: 'nope' })), { namespace: 'namespace nope does not exist: create it, or choose an existing one' });
  });

  it('create refuses invalid inputs naming the resource, and a load balancer it does not own', async () => {
    await rejectsWith(lbs.create({ kubeconfig, name: 'web' }), /^The HarvesterLoadBalancer inputs are invalid:\n {2}- listeners: is required/);
    await rejectsWith(lbs.create(lbArgs({ name: 'theirs' })), /^Refusing to create LoadBalancer default\/theirs: it is not managed by harvester-iac/);
  });

  it('create takes over its own leftover (a retry after a partial create), bringing it to the inputs, and reports progress until it serves', async () => {
    const inputs = await checked(lbArgs());
    const leftover = desiredLoadBalancer(validateInputs({ ...inputs, listeners: [{ name: 'old', port: 81, backendPort: 8081 }] }).inputs!);
    await client.loadBalancers.create(leftover);
    const made = await lbs.create(inputs);
    assert.equal(made.id, 'default/web');
    assert.deepEqual((await client.loadBalancers.get('web', 'default'))!.spec!.listeners, [{ name: 'http', port: 80, protocol: 'TCP', backendPort: 8080 }]);
    assert.equal(made.outs!.ready, true);
    assert.equal(progress.at(-1), `LoadBalancer default/web serves on ${made.outs!.address}`);
  });

  it('an import by a bare name reads default/<name>: no drift, inputs without output-only or unset keys', async () => {
    const r = await lbs.read('web', { kubeconfig: otherNamespaceKubeconfig() });
    assert.equal(r.id, 'default/web');
    assert.deepEqual(r.props!.drift, []);
    const { timeouts: _notRecorded, ...expected } = { ...(await checked(lbArgs())), kubeconfig: otherNamespaceKubeconfig() } as Record<string, unknown>;
    assert.deepEqual(r.inputs, expected, 'everything the cluster records, and no timeouts (the program\'s are taken: core/imported.ts)');
    assert.deepEqual((await lbs.read('default/web', expected)).props!.drift, [], 'the imported inputs read back clean');
  });

  it('a timeout names what held the address back and the option to raise: no VM matching, DHCP giving nothing', async () => {
    const noVm = await checked(lbArgs({ name: 'no-vm', backendServerSelector: { app: ['none'] }, timeouts: FAST }));
    await rejectsWith(lbs.create(noVm), /no running backend servers: no running VM matches backendServerSelector \{"app":\["none"\]\} in namespace default/, /raise `timeouts\.create` \(now 1s\)/);
    const noLease = await checked(lbArgs({ name: 'no-lease', timeouts: FAST }));
    const dhcp = /DHCP gave no address yet: check the DHCP server of the VM network default\/vm-net \(wait external IP: the simulated DHCP range is exhausted\)/;
    await rejectsWith(lbs.create(noLease), dhcp, /raise `timeouts\.create`/);
    await rejectsWith(lbs.update('default/no-lease', noLease, noLease), dhcp, /raise `timeouts\.update`/);
    for (const name of ['no-vm', 'no-lease']) await lbs.delete(`default/${name}`, { kubeconfig, name, namespace: 'default', timeouts: FAST });
  });

  it('delete by a bare name removes <recorded namespace>/<name>, else default/<name>, and waits until it is gone', async () => {
    await lbs.delete('web', { kubeconfig, namespace: 'harvester-public' });
    assert.ok(await client.loadBalancers.get('web', 'default'), 'recorded in harvester-public: default/web is another object');
    await lbs.delete('web', { kubeconfig: otherNamespaceKubeconfig() });
    assert.equal(await client.loadBalancers.get('web', 'default'), undefined);
    await lbs.delete('theirs', { kubeconfig });
    assert.ok(await client.loadBalancers.get('theirs', 'default'), 'never deletes what it does not own');
  });
});
