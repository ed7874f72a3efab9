/**
 * TopologyLabels edges on the emulator: check when the Harvester or the guest cluster cannot be reached (a
 * failure on that kubeconfig, nothing thrown); import rebuilding what was applied and what the hosts had from
 * the hosts' own annotations; read when the guest cannot be read (a warning, not an error). Emulator only.
 */
import assert from 'node:assert/strict';
import type { TopologyLabelsOutputs } from '../../provider/resources/topology-labels/model';
import { acceptanceMode } from '../support/target';
import { startTopologyHarness, type TopologyHarness } from './topology-labels-support';

describe('TopologyLabels edges: unreachable clusters, import, an unreadable guest', function () {
  this.timeout(60_000);
  let h: TopologyHarness;
  let outs: TopologyLabelsOutputs;
  /** The emulator's kubeconfig (its text) with a server nothing listens on (port 1 of loopback). */
  const deadKubeconfig = (kubeconfig: string) => kubeconfig.replace(/server: .*/g, 'server: https://127.0.0.1:1');
  const byProperty = (failures: { property: string; reason: string }[] = []) => Object.fromEntries(failures.map((f) => [f.property, f.reason]));

  before(async function () {
    if (acceptanceMode()) this.skip();
    h = await startTopologyHarness({ ccmVersion: 'v0.2.7' });
    const [h0, h1] = h.hosts;
    outs = await h.createTopology({ name: 'site', hosts: { [h0]: { region: 'lab', zone: 'zone-a' }, [h1]: { zone: 'zone-b' } } });
  });
  after(async () => h?.stop());

  it('check reports an unreachable Harvester cluster, and an unreachable guest, each as one failure on no property naming the connection', async () => {
    const dead = deadKubeconfig(h.target.kubeconfig);
    assert.notEqual(dead, h.target.kubeconfig, 'the server line was replaced');
    const harvesterDown = byProperty((await h.topology.check({}, { kubeconfig: dead, name: 'x', hosts: { [h.hosts[0]]: { zone: 'z' } } })).failures);
    assert.deepEqual(Object.keys(harvesterDown), ['']);
    assert.match(harvesterDown[''], /^cannot check the inputs against the Harvester cluster at https:\/\/\S+ \(kubeconfig from the resource's kubeconfig input\): /);
    const guestDown = byProperty((await h.topology.check({}, { kubeconfig: h.target.kubeconfig, name: 'x', hosts: { [h.hosts[2]]: { zone: 'z' } }, guestKubeconfig: dead, waitForGuestSync: true })).failures);
    assert.deepEqual(Object.keys(guestDown), ['']);
    assert.match(guestDown[''], /^cannot check the inputs against the guest cluster \(guestKubeconfig\): /);
  });

  it('import rebuilds what it applied and what the hosts had from the hosts alone, with no drift', async () => {
    const r = await h.topology.read('site', { kubeconfig: h.target.kubeconfig });
    assert.equal(r.id, 'site');
    assert.deepEqual(r.props!.applied, outs.applied);
    assert.deepEqual(r.props!.previous, outs.previous);
    assert.deepEqual(r.props!.drift, []);
    assert.deepEqual(r.inputs!.hosts, outs.hosts);
    assert.deepEqual([r.props!.guestNodes, r.props!.guestVersions], [[], null], 'no guest cluster is named, so none is reported');
    assert.deepEqual(await h.topology.read('nobody', { kubeconfig: h.target.kubeconfig }), {}, 'a name owning no host imports nothing');
  });

  it('read warns, and keeps what it recorded, when the guest cluster cannot be read', async () => {
    const recorded = { ...outs, guestKubeconfig: deadKubeconfig(h.target.kubeconfig) };
    const r = await h.topology.read('site', recorded as unknown as Record<string, unknown>);
    assert.ok(r.props!.warnings.some((w) => w.startsWith('the guest cluster could not be read: ')), r.props!.warnings.join('\n'));
    assert.deepEqual(r.props!.guestNodes, outs.guestNodes);
    assert.deepEqual(r.props!.guestVersions, outs.guestVersions);
  });
});
