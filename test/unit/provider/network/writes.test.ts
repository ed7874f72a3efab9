/**
 * HarvesterNetwork's writes, exactly (plan.ts): the ownership labels naming `namespace/name`, the route annotation
 * the Harvester UI writes for each mode, and the update patch — nothing for a network already as the inputs
 * (untagged included), the description removed when the inputs drop it, the route rewritten when its inputs
 * change or the annotation was removed by hand, never a key that needs no change. Also the id of inputs without a
 * namespace (handlers.ts) and the hosts a cluster network's VlanConfigs attach (cluster-rules.ts).
 */
import assert from 'node:assert/strict';
import type { NetworkAttachmentDefinition, VlanConfig } from '../../../../provider/client/objects';
import { attachedHosts } from '../../../../provider/resources/network/cluster-rules';
import { networkResource } from '../../../../provider/resources/network/handlers';
import { desiredNetwork, routeAnnotation, updatePatch } from '../../../../provider/resources/network/plan';
import { validateInputs } from '../../../../provider/resources/network/validate';

const ROUTE = 'network.harvesterhci.io/route';
const DESCRIPTION = 'field.cattle.io/description';

const inputsOf = (raw: Record<string, unknown>) => {
  const v = validateInputs({ name: 'n', ...raw });
  assert.deepEqual(v.failures, []);
  return v.inputs!;
};
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
/** The NAD as written, then labelled by Harvester's network controller. */
function labelled(raw: Record<string, unknown>): NetworkAttachmentDefinition {
  const live = clone(desiredNetwork(inputsOf(raw)));
  live.metadata.labels!['network.harvesterhci.io/ready'] = 'true';
  return live;
}

describe('HarvesterNetwork writes: ownership and the route annotation', () => {
  it('the NAD carries the ownership labels naming the resource namespace/name', () => {
    const { labels, annotations } = desiredNetwork(inputsOf({ namespace: 'team-a', vlan: 20 })).metadata;
    assert.equal(labels!['app.kubernetes.io/managed-by'], 'harvester-iac');
    assert.equal(labels!['harvester-iac.io/resource-type'], 'network');
    // "/" is not allowed in a label value: the label holds a safe form, the annotation the exact name.
    assert.equal(labels!['harvester-iac.io/resource-name'], 'team-a-n-63ff2adb2e');
    assert.equal(annotations!['harvester-iac.io/resource-name'], 'team-a/n');
  });

  it('writes the route as the UI does: manual with an empty serverIPAddr; auto with empty cidr and gateway, and the DHCP server if set', () => {
    assert.equal(routeAnnotation({ mode: 'manual', cidr: '10.20.0.0/24', gateway: '10.20.0.1' }), '{"mode":"manual","serverIPAddr":"","cidr":"10.20.0.0/24","gateway":"10.20.0.1"}');
    assert.equal(routeAnnotation({ mode: 'auto' }), '{"mode":"auto","serverIPAddr":"","cidr":"","gateway":""}');
    assert.equal(routeAnnotation({ mode: 'auto', dhcpServer: '10.20.0.2' }), '{"mode":"auto","serverIPAddr":"10.20.0.2","cidr":"","gateway":""}');
  });

  it('inputs without a namespace name the network in "default"', () => {
    assert.deepEqual(networkResource.ref({ name: 'n' }), { namespace: 'default', name: 'n' });
    assert.deepEqual(networkResource.ref({ name: 'n', namespace: 'team-a' }), { namespace: 'team-a', name: 'n' });
  });
});

describe('HarvesterNetwork update patch', () => {
  it('an untagged network as written and labelled needs no patch (its absent vlan-id label is not removed again)', () => {
    assert.equal(updatePatch(inputsOf({ labels: { tier: 'app' } }), labelled({ labels: { tier: 'app' } })), undefined);
  });

  it('a label change alone patches the labels only', () => {
    const live = labelled({ vlan: 20, labels: { tier: 'app' } });
    const patch = updatePatch(inputsOf({ vlan: 20, labels: { tier: 'db' } }), live) as { metadata: Record<string, unknown>; spec?: unknown };
    assert.deepEqual(Object.keys(patch), ['metadata']);
    assert.deepEqual(Object.keys(patch.metadata), ['labels']);
    assert.equal((patch.metadata.labels as Record<string, string>).tier, 'db');
  });

  it('dropping the description removes its annotation; a network that never had one gets no description key', () => {
    const live = labelled({ vlan: 20, description: 'app tier' });
    assert.deepEqual(updatePatch(inputsOf({ vlan: 20 }), live), { metadata: { annotations: { [DESCRIPTION]: null } } });
    const manual = { vlan: 20, route: { mode: 'manual', cidr: '10.20.0.0/24', gateway: '10.20.0.1' } };
    assert.deepEqual(updatePatch(inputsOf(manual), labelled({ vlan: 20 })), {
      metadata: { annotations: { [ROUTE]: '{"mode":"manual","serverIPAddr":"","cidr":"10.20.0.0/24","gateway":"10.20.0.1"}' } },
    });
  });

  it('a route change rewrites the route annotation; an unchanged route is left as Harvester learnt it', () => {
    const live = labelled({ vlan: 20 });
    live.metadata.annotations![ROUTE] = JSON.stringify({ mode: 'auto', serverIPAddr: '', cidr: '10.20.0.0/24', gateway: '10.20.0.1', connectivity: 'true' });
    assert.equal(updatePatch(inputsOf({ vlan: 20 }), live), undefined);
    assert.deepEqual(updatePatch(inputsOf({ vlan: 20, route: { dhcpServer: '10.20.0.2' } }), live), {
      metadata: { annotations: { [ROUTE]: '{"mode":"auto","serverIPAddr":"10.20.0.2","cidr":"","gateway":""}' } },
    });
  });

  it('a route annotation removed by hand is written again, though the route read back equals the default', () => {
    const live = labelled({ vlan: 20 });
    delete live.metadata.annotations![ROUTE];
    assert.deepEqual(updatePatch(inputsOf({ vlan: 20 }), live), { metadata: { annotations: { [ROUTE]: '{"mode":"auto","serverIPAddr":"","cidr":"","gateway":""}' } } });
  });
});

describe('HarvesterNetwork: the hosts a cluster network attaches', () => {
  const vc = (name: string, cn: string, nodes: string[], deleting = false): VlanConfig =>
    ({
      apiVersion: 'network.harvesterhci.io/v1beta1',
      kind: 'VlanConfig',
      metadata: { name, annotations: { 'network.harvesterhci.io/matched-nodes': JSON.stringify(nodes) }, ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
      spec: { clusterNetwork: cn, uplink: { nics: ['eth1'] } },
    }) as VlanConfig;

  it("counts the matched nodes of that cluster network's VlanConfigs, sorted, once each; not another's, nor one being deleted", () => {
    const configs = [vc('data-b', 'data', ['node-3', 'node-1']), vc('data-a', 'data', ['node-2', 'node-1']), vc('other', 'storage', ['node-4']), vc('leaving', 'data', ['node-5'], true)];
    assert.deepEqual(attachedHosts(configs, 'data'), ['node-1', 'node-2', 'node-3']);
    assert.deepEqual(attachedHosts(configs, 'storage'), ['node-4']);
    assert.deepEqual(attachedHosts([vc('leaving', 'data', ['node-5'], true)], 'data'), []);
    assert.deepEqual(attachedHosts([vc('other', 'storage', ['node-4'])], 'data'), []);
  });
});
