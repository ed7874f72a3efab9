/**
 * HarvesterNetwork's pure parts: the input rules (validate.ts) each on its property, the NAD written for the
 * inputs (plan.ts), reading it back as inputs, the drift lines and the update patch (what differs only; the
 * route kept unless its inputs change; Harvester's MTU kept in the config).
 */
import assert from 'node:assert/strict';
import type { NetworkAttachmentDefinition } from '../../../../provider/client/objects';
import { desiredNetwork, liveInputs, networkSettled, updatePatch } from '../../../../provider/resources/network/plan';
import { networkResource } from '../../../../provider/resources/network/handlers';
import { driftOf as driftOfResource } from '../../../../provider/core/reconciler/reconciler';

const driftOf = driftOfResource(networkResource);
import { validateInputs } from '../../../../provider/resources/network/validate';

const inputsOf = (raw: Record<string, unknown>) => {
  const v = validateInputs({ name: 'n', ...raw });
  assert.deepEqual(v.failures, []);
  return v.inputs!;
};
const refusals = (raw: Record<string, unknown>) => validateInputs({ name: 'n', ...raw }).failures.map((f) => f.property);
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

describe('HarvesterNetwork input rules', () => {
  it('refuses each bad input on its property, all at once', () => {
    assert.deepEqual(refusals({ vlan: 0 }), ['vlan']);
    assert.deepEqual(refusals({ vlan: 4095 }), ['vlan']);
    assert.deepEqual(refusals({ vlan: 10, clusterNetwork: 'thirteen-char' }), ['clusterNetwork']);
    assert.deepEqual(refusals({ vlan: 10, route: { mode: 'manual' } }), ['route.cidr', 'route.gateway']);
    assert.deepEqual(refusals({ vlan: 10, route: { mode: 'manual', cidr: '10.0.0.0/0', gateway: '10.0.0' } }), ['route.cidr', 'route.gateway']);
    assert.deepEqual(refusals({ vlan: 10, route: { mode: 'auto', cidr: '10.0.0.0/24' } }), ['route.cidr']);
    assert.deepEqual(refusals({ route: { mode: 'manual', cidr: '10.0.0.0/24', gateway: '10.0.0.1' } }), ['route.mode']);
    assert.deepEqual(refusals({ labels: { 'network.harvesterhci.io/type': 'x', 'bad key!': 'v', ok: 'not ok!' } }), [
      'labels["network.harvesterhci.io/type"]',
      'labels["bad key!"]',
      'labels.ok',
    ]);
  });
});

describe('HarvesterNetwork plan', () => {
  // Built inside each test, never in the describe body: Stryker credits code run while loading to no test.
  const inputs = () => inputsOf({ vlan: 20, description: 'd', labels: { tier: 'app' }, route: { mode: 'auto', dhcpServer: '10.20.0.2' } });
  const written = () => desiredNetwork(inputs());

  it('writes the NAD as the Harvester UI does, with our ownership labels', () => {
    assert.deepEqual(JSON.parse(written().spec!.config!), { cniVersion: '0.3.1', name: 'n', type: 'bridge', bridge: 'mgmt-br', promiscMode: true, vlan: 20, ipam: {} });
    assert.equal(written().metadata.labels!['network.harvesterhci.io/clusternetwork'], 'mgmt');
    assert.equal(written().metadata.labels!['network.harvesterhci.io/type'], 'L2VlanNetwork');
    assert.equal(written().metadata.labels!['network.harvesterhci.io/vlan-id'], '20');
    assert.equal(written().metadata.labels!['app.kubernetes.io/managed-by'], 'harvester-iac');
    assert.deepEqual(JSON.parse(written().metadata.annotations!['network.harvesterhci.io/route']), { mode: 'auto', serverIPAddr: '10.20.0.2', cidr: '', gateway: '' });
    const untagged = desiredNetwork(inputsOf({}));
    assert.equal(JSON.parse(untagged.spec!.config!).vlan, undefined);
    assert.equal(untagged.metadata.annotations!['network.harvesterhci.io/route'], undefined);
    assert.equal(untagged.metadata.labels!['network.harvesterhci.io/type'], 'UntaggedNetwork');
  });

  it('reads back what Harvester adds as no change: its labels, the learnt route, the MTU', () => {
    const live = clone(written()) as NetworkAttachmentDefinition;
    live.metadata.labels!['network.harvesterhci.io/ready'] = 'true';
    live.metadata.annotations!['network.harvesterhci.io/route'] = JSON.stringify({ mode: 'auto', serverIPAddr: '10.20.0.2', cidr: '10.20.0.0/24', gateway: '10.20.0.1', connectivity: 'true' });
    live.spec!.config = JSON.stringify({ ...JSON.parse(live.spec!.config!), mtu: 9000 });
    const { vlan, clusterNetwork, route, description, labels } = inputs();
    assert.deepEqual(liveInputs(live), { vlan, clusterNetwork, route, description, labels });
    assert.deepEqual(driftOf(inputs(), live), []);
    assert.equal(updatePatch(inputs(), live), undefined);
    assert.deepEqual(networkSettled('default/n', inputs(), live), { done: true, description: 'VM network default/n is labelled and its route learnt' });
    const outdated = clone(live);
    outdated.metadata.annotations!['network.harvesterhci.io/route'] = JSON.stringify({ mode: 'auto', outdated: true, connectivity: 'true' });
    assert.equal(networkSettled('default/n', inputs(), outdated).done, false);
  });

  it('patches only what an edit changed, keeping the MTU Harvester set; removes labels we no longer want', () => {
    const live = clone(written()) as NetworkAttachmentDefinition;
    live.metadata.labels!.extra = 'x';
    live.spec!.config = JSON.stringify({ ...JSON.parse(live.spec!.config!), vlan: 21, mtu: 9000 });
    assert.deepEqual(driftOf(inputs(), live), ['VM network default/n: vlan is 21, this resource set 20', 'VM network default/n: labels is {"extra":"x","tier":"app"}, this resource set {"tier":"app"}']);
    const patch = updatePatch(inputs(), live) as { metadata: { labels: Record<string, unknown>; annotations?: unknown }; spec: { config: string } };
    assert.equal(patch.metadata.labels.extra, null);
    assert.equal(patch.metadata.annotations, undefined, 'the route is not rewritten: its inputs did not change');
    assert.deepEqual(JSON.parse(patch.spec.config), { cniVersion: '0.3.1', name: 'n', type: 'bridge', bridge: 'mgmt-br', promiscMode: true, vlan: 20, ipam: {}, mtu: 9000 });
  });

  it('going untagged drops the vlan-id label and the route', () => {
    const patch = updatePatch(inputsOf({ description: 'd', labels: { tier: 'app' } }), clone(written())) as { metadata: { labels: Record<string, unknown>; annotations: Record<string, unknown> } };
    assert.equal(patch.metadata.labels['network.harvesterhci.io/vlan-id'], null);
    assert.equal(patch.metadata.labels['network.harvesterhci.io/type'], 'UntaggedNetwork');
    assert.equal(patch.metadata.annotations['network.harvesterhci.io/route'], null);
  });
});
