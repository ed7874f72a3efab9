/**
 * HarvesterNetwork through Pulumi's real dynamic-provider host: check → create on a cluster network a VlanConfig
 * attaches → a machine pool takes its id ("namespace/name") as networks[].network and its VM runs there → refresh
 * without drift → a kubectl-style edit shows as drift on the edited input → update heals → delete is refused while
 * the pool's VM uses the network, naming it → after the pool goes, delete leaves nothing. Credentials from stack
 * config only.
 */
import assert from 'node:assert/strict';
import { DynamicHostError } from '../../runner/dynamic-host';
import { startEngineHarness, type EngineHarness } from './engine-support';

describe('engine contract: VM network lifecycle through the real dynamic-provider host', function () {
  this.timeout(120_000);
  let h: EngineHarness;
  before(async () => {
    h = await startEngineHarness();
  });
  after(async () => h?.stop());

  it('creates a VLAN network a machine pool uses by id; refresh, drift, heal; delete refused while in use, then clean', async () => {
    await h.client.clusterNetworks.create({ apiVersion: 'network.harvesterhci.io/v1beta1', kind: 'ClusterNetwork', metadata: { name: 'data' } } as never);
    await h.client.vlanConfigs.create({
      apiVersion: 'network.harvesterhci.io/v1beta1',
      kind: 'VlanConfig',
      metadata: { name: 'data-all' },
      spec: { clusterNetwork: 'data', uplink: { nics: ['eth1'] } },
    } as never);
    const netText = await h.providerText('network');
    const netUrn = h.urn('HarvesterNetwork', 'engine-net');
    const checked = await h.host.check(netUrn, {}, { __provider: netText, name: 'engine-net', vlan: 30, clusterNetwork: 'data', description: 'engine' });
    assert.deepEqual(checked.failures, []);
    const created = await h.host.create(netUrn, checked.inputs);
    assert.equal(created.id, 'default/engine-net');
    assert.equal(created.properties.ready, true);
    assert.equal((created.properties.routeStatus as { connectivity: string }).connectivity, 'true');
    assert.equal('kubeconfig' in created.properties, false, 'credentials from stack config never reach state');

    const poolText = await h.providerText('machinePool');
    const poolUrn = h.urn('HarvesterMachinePool', 'engine-net-pool');
    const poolChecked = await h.host.check(poolUrn, {}, h.poolInputs('engine-net-pool', poolText, { networks: [{ network: created.id }] }));
    assert.deepEqual(poolChecked.failures, [], 'a machine pool takes the network id as networks[].network');
    const pool = await h.host.create(poolUrn, poolChecked.inputs);
    const vm = await h.client.virtualMachines.get('engine-net-pool-0', 'default');
    const nets = (vm?.spec as { template: { spec: { networks: { multus?: { networkName: string } }[] } } }).template.spec.networks;
    assert.deepEqual(nets.map((n) => n.multus?.networkName), ['default/engine-net']);

    const refreshed = await h.host.read(netUrn, created.id, created.properties);
    assert.deepEqual(refreshed.properties.drift, []);
    assert.equal((await h.host.diff(netUrn, created.id, refreshed.properties, checked.inputs)).changes, 'none');
    await h.client.networks.mergePatch('engine-net', { metadata: { annotations: { 'field.cattle.io/description': 'by hand' } } }, { namespace: 'default' });
    const drifted = await h.host.read(netUrn, created.id, refreshed.properties);
    assert.deepEqual(drifted.properties.drift, ['VM network default/engine-net: description is "by hand", this resource set "engine"']);
    assert.equal((await h.host.diff(netUrn, created.id, drifted.properties, checked.inputs)).changes, 'some');
    const healed = await h.host.update(netUrn, created.id, drifted.properties, checked.inputs);
    assert.deepEqual(healed.properties.drift, []);

    const refused = await h.host.delete(netUrn, created.id, healed.properties).then(() => undefined, (e: unknown) => e);
    assert.ok(refused instanceof DynamicHostError);
    assert.match(refused.message, /VM network default\/engine-net cannot be deleted: it is still used by running VM\(s\) default\/engine-net-pool-0/);
    assert.ok(await h.client.networks.get('engine-net', 'default'), 'the refused delete wrote nothing');

    await h.host.delete(poolUrn, pool.id, pool.properties);
    await h.host.delete(netUrn, created.id, healed.properties);
    assert.equal(await h.client.networks.get('engine-net', 'default'), undefined);
  });
});
