/**
 * TopologyLabels on the emulator with a guest RKE2 cluster: refused inputs write nothing, three hosts over three
 * zones, the guest nodes of a machine pool receive them, an out-of-band zone change is drift, a live migration
 * re-syncs the guest node with cloud provider v0.2.7 but not with v0.1.5, an unsupported RKE2 version is refused,
 * fewer than three zones warn, and delete restores what the hosts had. The scenarios of a suite run in order.
 * Emulator only: they need its guest cluster and journal, and they relabel every host.
 */
import assert from 'node:assert/strict';
import { ResourceInitError } from '../../provider/core/errors';
import type { TopologyLabelsOutputs } from '../../provider/resources/topology-labels/model';
import { OWNER_ANNOTATION, PREVIOUS_ANNOTATION } from '../../provider/resources/topology-labels/model';
import { eventually } from '../support/emulator-harness';
import { acceptanceMode } from '../support/target';
import { REGION, ZONE, startTopologyHarness, type TopologyHarness } from './topology-labels-support';

const zonesOf = (hosts: string[], zones: string[], region = 'lab') => Object.fromEntries(hosts.map((h, i) => [h, { region, zone: zones[i] }]));
const guestNode = (outs: TopologyLabelsOutputs, name: string) => outs.guestNodes.find((n) => n.name === name)!;

describe('TopologyLabels with cloud provider v0.2.7: labels, guest sync, drift, migration, restore', function () {
  this.timeout(60_000);
  let h: TopologyHarness;
  let outs: TopologyLabelsOutputs;
  let args: Record<string, unknown>;
  let vms: string[];
  let seeded: Map<string, Record<string, string>>;

  before(async function () {
    if (acceptanceMode()) this.skip();
    h = await startTopologyHarness({ ccmVersion: 'v0.2.7' });
    seeded = new Map((await h.client.nodes.list()).items.map((n) => [n.metadata.name!, { ...n.metadata.labels! }]));
    args = { name: 'site', hosts: zonesOf(h.hosts, ['zone-a', 'zone-b', 'zone-c']) };
  });
  after(async () => {
    await h?.stop();
  });

  it('refuses bad inputs at check, each failure naming its field, and writes nothing', async () => {
    const mark = h.target.emulator.emulator.journal.mark();
    const [h0, h1] = h.hosts;
    const checked = await h.topology.check({}, { kubeconfig: h.target.kubeconfig, name: 'site', hosts: { [h0]: { zone: 'us east' }, [h1]: { zone: 'z', rack: 'r1' }, 'no-such-host': { zone: 'z' } } });
    const byProperty = Object.fromEntries((checked.failures ?? []).map((f) => [f.property, f.reason]));
    // The cluster is asked only about inputs that pass the pure rules: the missing host is reported once they do.
    assert.deepEqual(Object.keys(byProperty).sort(), [`hosts["${h0}"].zone`, `hosts["${h1}"].rack`].sort());
    assert.match(byProperty[`hosts["${h0}"].zone`], /valid label value/);
    assert.match(byProperty[`hosts["${h1}"].rack`], /only "region" and "zone" can be set/);
    const missing = await h.topology.check({}, { kubeconfig: h.target.kubeconfig, name: 'site', hosts: { [h0]: { zone: 'z' }, 'no-such-host': { zone: 'z' } } });
    assert.deepEqual((missing.failures ?? []).map((f) => f.property), ['hosts["no-such-host"]']);
    assert.match(missing.failures![0].reason, /^no Harvester host is named "no-such-host" \(hosts: harvester-node-0/);
    await assert.rejects(h.topology.create({ kubeconfig: h.target.kubeconfig, name: 'site', hosts: { [h0]: { zone: 'us east' } } }), /hosts\["harvester-node-0"\]\.zone: must be a valid label value/);
    assert.deepEqual(h.writesSince(mark), [], 'the emulator journal records no write');
  });

  it('labels three hosts over three zones, touching only region and zone, and remembers what they had', async () => {
    const mark = h.target.emulator.emulator.journal.mark();
    outs = await h.createTopology(args);
    assert.equal(h.writesSince(mark).length, 3, 'one PATCH per host');
    for (const [i, name] of h.hosts.entries()) {
      const labels = (await h.host(name)).metadata.labels!;
      const before = seeded.get(name)!;
      assert.equal(labels[ZONE], ['zone-a', 'zone-b', 'zone-c'][i]);
      assert.equal(labels[REGION], 'lab');
      for (const [k, v] of Object.entries(before)) if (k !== ZONE && k !== REGION) assert.equal(labels[k], v, `${name}: ${k} untouched`);
      assert.deepEqual(outs.previous[name], { region: before[REGION] ?? null, zone: before[ZONE] ?? null });
    }
    assert.deepEqual(outs.zones, ['zone-a', 'zone-b', 'zone-c']);
    assert.deepEqual(outs.warnings, []);
    const second = await h.topology.read('site', outs as unknown as Record<string, unknown>);
    assert.deepEqual(second.props!.drift, []);
  });

  it('refuses a second TopologyLabels resource claiming a host, writing nothing', async () => {
    const mark = h.target.emulator.emulator.journal.mark();
    const checked = await h.topology.check({}, { kubeconfig: h.target.kubeconfig, name: 'other', hosts: { [h.hosts[0]]: { zone: 'x' } } });
    assert.deepEqual(checked.failures?.map((f) => f.property), [`hosts["${h.hosts[0]}"]`]);
    assert.match(checked.failures![0].reason, /managed by TopologyLabels "site".*never claim the same host/);
    await assert.rejects(h.topology.create(checked.inputs!), /Refusing to change host harvester-node-0: its topology labels are managed by TopologyLabels "site"/);
    assert.deepEqual(h.writesSince(mark), []);
  });

  it('sees the guest nodes of a machine pool receive their hosts\' region and zone (node = VM, VMI nodeName = host)', async () => {
    vms = await h.createGuestPool('gp', 3);
    args = { ...args, guestKubeconfig: h.guestKubeconfig, waitForGuestSync: true };
    outs = await h.updateTopology(outs, args);
    assert.deepEqual(outs.guestVersions, { rke2: 'v1.28.10+rke2r1', cloudProvider: 'v0.2.7' });
    assert.deepEqual(outs.guestNodes.map((n) => n.name), vms);
    for (const n of outs.guestNodes) {
      const host = (await h.client.virtualMachineInstances.get(n.name, 'default'))!.status as { nodeName: string };
      assert.equal(n.host, host.nodeName);
      assert.equal(n.vm, `default/${n.name}`);
      assert.equal(n.expectedZone, (await h.host(n.host!)).metadata.labels![ZONE]);
      assert.deepEqual([n.actualRegion, n.actualZone, n.inSync, n.reason], [n.expectedRegion, n.expectedZone, true, '']);
    }
  });

  it('shows a zone changed out of band (the Harvester UI) as drift, and the next update sets it back', async () => {
    const h1 = h.hosts[1];
    await h.client.nodes.mergePatch(h1, { metadata: { labels: { [ZONE]: 'ui-zone' } } });
    const r = await h.topology.read('site', outs as unknown as Record<string, unknown>);
    assert.deepEqual((r.inputs!.hosts as Record<string, unknown>)[h1], { region: 'lab', zone: 'ui-zone' });
    assert.deepEqual(r.props!.drift, [`host ${h1}: ${ZONE} is "ui-zone", this resource set "zone-b"`]);
    const d = await h.topology.diff('site', r.props as unknown as Record<string, unknown>, { kubeconfig: h.target.kubeconfig, ...args });
    assert.equal(d.changes, true);
    outs = await h.updateTopology(r.props!, { ...args, waitForGuestSync: false });
    assert.equal((await h.host(h1)).metadata.labels![ZONE], 'zone-b');
  });

  it('re-syncs a guest node after its VM migrates to a host of another zone', async () => {
    const vm = vms[0];
    const before = guestNode(outs, vm).actualZone;
    const target = await h.migrate(vm);
    const zone = (await h.host(target)).metadata.labels![ZONE];
    assert.notEqual(zone, before);
    await eventually(async () => (await h.guest.nodes.get(vm))?.metadata.labels?.[ZONE] === zone, `guest node ${vm} in zone ${zone}`, 10_000);
    const r = await h.topology.read('site', outs as unknown as Record<string, unknown>);
    const n = guestNode(r.props!, vm);
    assert.deepEqual([n.host, n.expectedZone, n.actualZone, n.inSync], [target, zone, zone, true]);
  });

  it('warns, without failing, when fewer than three distinct zones remain (harvester#6546)', async () => {
    h.warnings.length = 0;
    const hosts = zonesOf(h.hosts, ['zone-a', 'zone-b', 'zone-a']);
    outs = await h.updateTopology(outs, { ...args, hosts, waitForGuestSync: false });
    assert.match(outs.warnings.join('\n'), /only 2 distinct zones \(zone-a, zone-b\) over 3 Harvester hosts.*harvester\/harvester#6546/);
    assert.ok(h.warnings.some((w) => w.includes('#6546')), 'the warning is also emitted');
  });

  it('restores every host\'s previous labels on delete, and drops its annotations', async () => {
    await h.deleteTopology(outs);
    for (const name of h.hosts) {
      const node = await h.host(name);
      const before = seeded.get(name)!;
      assert.equal(node.metadata.labels![ZONE], before[ZONE]);
      assert.equal(node.metadata.labels![REGION], before[REGION]);
      assert.equal(node.metadata.annotations?.[OWNER_ANNOTATION], undefined);
      assert.equal(node.metadata.annotations?.[PREVIOUS_ANNOTATION], undefined);
    }
  });
});

describe('TopologyLabels with cloud provider v0.1.5: labels only at node initialisation', function () {
  this.timeout(60_000);
  let h: TopologyHarness;
  let outs: TopologyLabelsOutputs;
  let args: Record<string, unknown>;
  let vms: string[];

  before(async function () {
    if (acceptanceMode()) this.skip();
    h = await startTopologyHarness({ ccmVersion: 'v0.1.5', kubeletVersion: 'v1.23.9+rke2r1' });
    // A host without a region label: delete must remove the region it was given, not invent one.
    await h.client.nodes.mergePatch(h.hosts[2], { metadata: { labels: { [REGION]: null } } });
    args = { name: 'site-old', hosts: zonesOf(h.hosts, ['zone-a', 'zone-b', 'zone-c']) };
    outs = await h.createTopology(args);
    vms = await h.createGuestPool('gp-old', 2);
  });
  after(async () => {
    await h?.stop();
  });

  it('reports the guest in sync after initialisation, with a note that labels will not follow', async () => {
    args = { ...args, guestKubeconfig: h.guestKubeconfig };
    outs = await h.updateTopology(outs, args);
    assert.deepEqual(outs.guestVersions, { rke2: 'v1.23.9+rke2r1', cloudProvider: 'v0.1.5' });
    assert.ok(outs.guestNodes.every((n) => n.inSync), JSON.stringify(outs.guestNodes));
    assert.match(outs.warnings.join('\n'), /cloud provider v0\.1\.5 \(below v0\.2\.0\): labels are copied to a guest node only when it is initialised.*zone node affinity/);
  });

  it('does not re-sync a guest node after a migration, says why, and refuses to wait for it', async () => {
    const vm = vms[0];
    const before = guestNode(outs, vm).actualZone;
    const target = await h.migrate(vm);
    const zone = (await h.host(target)).metadata.labels![ZONE];
    await eventually(async () => (await h.client.virtualMachineInstances.get(vm, 'default'))?.metadata.annotations?.[ZONE] === zone, 'Harvester copied the new host\'s zone to the VMI');
    const r = await h.topology.read('site-old', outs as unknown as Record<string, unknown>);
    const n = guestNode(r.props!, vm);
    assert.deepEqual([n.host, n.expectedZone, n.actualZone, n.inSync], [target, zone, before, false]);
    assert.match(n.reason, /copies labels only when the node is initialised/);
    const err = await h.updateTopology(r.props!, { ...args, waitForGuestSync: true }).then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof ResourceInitError, String(err));
    assert.match(err.message, new RegExp(`Guest nodes ${vm} are out of sync and will stay so: .*only when it is initialised`));
    assert.equal(err.properties.name, 'site-old', 'what was written stays recorded');
    outs = err.properties as unknown as TopologyLabelsOutputs;
  });

  it('removes on delete a label the host did not have before', async () => {
    assert.deepEqual(outs.previous[h.hosts[2]], { region: null, zone: 'us-east-1c' });
    await h.deleteTopology(outs);
    const labels = (await h.host(h.hosts[2])).metadata.labels!;
    assert.equal(labels[REGION], undefined);
    assert.equal(labels[ZONE], 'us-east-1c');
  });
});

describe('TopologyLabels with an RKE2 version that cannot sync', function () {
  this.timeout(60_000);
  let h: TopologyHarness;

  before(async function () {
    if (acceptanceMode()) this.skip();
    h = await startTopologyHarness({ ccmVersion: 'v0.2.7', kubeletVersion: 'v1.24.2+rke2r1' });
    await h.createGuestPool('gp-rke2', 1);
  });
  after(async () => {
    await h?.stop();
  });

  it('refuses to wait for the guest at check, naming waitForGuestSync and the minimum, and writes nothing', async () => {
    const mark = h.target.emulator.emulator.journal.mark();
    const checked = await h.topology.check({}, {
      kubeconfig: h.target.kubeconfig, name: 'site-rke2', hosts: zonesOf(h.hosts, ['zone-a', 'zone-b', 'zone-c']), guestKubeconfig: h.guestKubeconfig, waitForGuestSync: true,
    });
    assert.deepEqual(checked.failures?.map((f) => f.property), ['waitForGuestSync']);
    assert.match(checked.failures![0].reason, /RKE2 v1\.24\.2\+rke2r1, which cannot sync topology labels .*at least v1\.24\.3\+rke2r1 on the v1\.24 line, or v1\.25 or later/);
    assert.deepEqual(h.writesSince(mark), []);
  });
});
