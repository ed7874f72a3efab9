/**
 * HarvesterNetwork reading a live NetworkAttachmentDefinition (plan.ts), exactly: the CNI config and the route
 * annotation decoded (anything that is not a JSON object reads as nothing, never a crash), the NAD read back as
 * inputs from what Harvester and hand edits leave (a bridge without "-br", VLAN 0, a manual route missing its
 * fields), the outputs of a bare object, and the wait's verdict at each step Harvester's network controller takes
 * (not there; unlabelled or labelled for the other type; the route not learnt or outdated; done).
 */
import assert from 'node:assert/strict';
import type { NetworkAttachmentDefinition } from '../../../../provider/client/objects';
import { desiredNetwork, liveConfig, liveInputs, liveRoute, networkSettled, toOutputs } from '../../../../provider/resources/network/plan';
import { validateInputs } from '../../../../provider/resources/network/validate';

const ROUTE = 'network.harvesterhci.io/route';
const READY = 'network.harvesterhci.io/ready';
const TYPE = 'network.harvesterhci.io/type';

const inputsOf = (raw: Record<string, unknown>) => {
  const v = validateInputs({ name: 'n', ...raw });
  assert.deepEqual(v.failures, []);
  return v.inputs!;
};
/** A NAD as a hand edit or another tool may leave it. */
const nad = (config: string | undefined, labels?: Record<string, string>, annotations?: Record<string, string>): NetworkAttachmentDefinition => ({
  apiVersion: 'k8s.cni.cncf.io/v1',
  kind: 'NetworkAttachmentDefinition',
  metadata: { name: 'n', namespace: 'default', ...(labels ? { labels } : {}), ...(annotations ? { annotations } : {}) },
  ...(config === undefined ? {} : { spec: { config } }),
});

describe('HarvesterNetwork read back: the CNI config and the route annotation decoded', () => {
  it('a config that is JSON but not an object (null, a number, an array), or no config, reads as an empty config', () => {
    for (const config of ['null', '5', '"bridge"', '[{"vlan":20}]', 'not json', undefined]) assert.deepEqual(liveConfig(nad(config)), {}, String(config));
    assert.deepEqual(liveConfig(nad('{"bridge":"mgmt-br","vlan":20}')), { bridge: 'mgmt-br', vlan: 20 });
  });

  it('a route annotation that is not a JSON object (null, a number, a string, not JSON) reads as no route', () => {
    for (const raw of ['null', '5', '"auto"', 'not json']) assert.equal(liveRoute(nad('{}', undefined, { [ROUTE]: raw })), undefined, raw);
    assert.equal(liveRoute(nad('{}')), undefined);
    assert.deepEqual(liveRoute(nad('{}', undefined, { [ROUTE]: '{"mode":"auto"}' })), { mode: 'auto' });
  });

  it('a hand-edited config "null" reads as inputs with nothing set, without throwing', () => {
    assert.deepEqual(liveInputs(nad('null', undefined, { [ROUTE]: 'null' })), { vlan: undefined, clusterNetwork: '', route: { mode: 'auto' }, description: undefined, labels: {} });
  });
});

describe('HarvesterNetwork read back as inputs', () => {
  it('a config without a bridge reads as cluster network ""; a bridge not ending "-br" is kept whole', () => {
    assert.equal(liveInputs(nad('{"type":"bridge","vlan":20}')).clusterNetwork, '');
    assert.equal(liveInputs(nad('{"type":"bridge","bridge":"mgmt-br","vlan":20}')).clusterNetwork, 'mgmt');
    assert.equal(liveInputs(nad('{"type":"bridge","bridge":"br0","vlan":20}')).clusterNetwork, 'br0');
  });

  it('VLAN 0 (Harvester\'s untagged) and a VLAN that is not a number read as untagged', () => {
    assert.equal(liveInputs(nad('{"bridge":"mgmt-br","vlan":0}')).vlan, undefined);
    assert.equal(liveInputs(nad('{"bridge":"mgmt-br","vlan":"20"}')).vlan, undefined);
    assert.equal(liveInputs(nad('{"bridge":"mgmt-br","vlan":20}')).vlan, 20);
  });

  it('a manual route missing its cidr and gateway reads as a manual route with both ""', () => {
    const live = nad('{"bridge":"mgmt-br","vlan":20}', undefined, { [ROUTE]: '{"mode":"manual"}' });
    assert.deepEqual(liveInputs(live).route, { mode: 'manual', cidr: '', gateway: '' });
  });
});

describe('HarvesterNetwork outputs of a bare NAD', () => {
  it('no labels, no route, no config: every reported field empty, not ready, no drift unless given', () => {
    const inputs = inputsOf({ vlan: 20 });
    assert.deepEqual(toOutputs(inputs, nad(undefined)), {
      ...inputs,
      networkType: '',
      ready: false,
      config: '',
      routeStatus: { mode: '', cidr: '', gateway: '', connectivity: '', outdated: false },
      drift: [],
    });
  });

  it('reports Harvester\'s labels and route as they are: ready only for "true", outdated only for true', () => {
    const inputs = inputsOf({ vlan: 20 });
    const route = JSON.stringify({ mode: 'auto', cidr: '10.20.0.0/24', gateway: '10.20.0.1', connectivity: 'false', outdated: true });
    const outs = toOutputs(inputs, nad('{"vlan":20}', { [READY]: 'false', [TYPE]: 'L2VlanNetwork' }, { [ROUTE]: route }), ['a drift line']);
    assert.equal(outs.ready, false);
    assert.equal(outs.networkType, 'L2VlanNetwork');
    assert.equal(outs.config, '{"vlan":20}');
    assert.deepEqual(outs.routeStatus, { mode: 'auto', cidr: '10.20.0.0/24', gateway: '10.20.0.1', connectivity: 'false', outdated: true });
    assert.deepEqual(outs.drift, ['a drift line']);
    assert.equal(toOutputs(inputs, nad('{}', { [READY]: 'true' })).ready, true);
  });
});

describe('HarvesterNetwork wait verdict, step by step', () => {
  const labelled = (n: NetworkAttachmentDefinition, type: string, ready = 'true'): NetworkAttachmentDefinition => ({ ...n, metadata: { ...n.metadata, labels: { ...n.metadata.labels, [READY]: ready, [TYPE]: type } } });
  const withRoute = (n: NetworkAttachmentDefinition, route: Record<string, unknown>): NetworkAttachmentDefinition => ({ ...n, metadata: { ...n.metadata, annotations: { ...n.metadata.annotations, [ROUTE]: JSON.stringify(route) } } });
  const unlabelled = { done: false, description: "VM network default/n: waiting for Harvester's network controller to label it", pending: ['label network.harvesterhci.io/ready'] };

  it('not there yet', () => {
    assert.deepEqual(networkSettled('default/n', inputsOf({ vlan: 20 }), undefined), { done: false, description: 'VM network default/n is not there yet', pending: ['the network'] });
  });

  it('waits for the ready label, and for the type label of the inputs (a VLAN added, the type not yet relabelled)', () => {
    const inputs = inputsOf({ vlan: 20, route: { mode: 'manual', cidr: '10.20.0.0/24', gateway: '10.20.0.1' } });
    const written = desiredNetwork(inputs);
    assert.deepEqual(networkSettled('default/n', inputs, written), unlabelled, 'the UI writes the type label but not ready');
    assert.deepEqual(networkSettled('default/n', inputs, { ...written, metadata: { ...written.metadata, labels: undefined } }), unlabelled);
    assert.deepEqual(networkSettled('default/n', inputs, labelled(written, 'UntaggedNetwork')), unlabelled, 'ready, but labelled for the untagged network it was');
    assert.deepEqual(networkSettled('default/n', inputs, labelled(written, 'L2VlanNetwork', 'false')), { done: true, description: 'VM network default/n is labelled' });
  });

  it('a VLAN network with an auto route waits for the route learnt (connectivity reported, not outdated)', () => {
    const inputs = inputsOf({ vlan: 20 });
    const live = labelled(desiredNetwork(inputs), 'L2VlanNetwork');
    const learning = { done: false, description: 'VM network default/n: waiting for Harvester to learn the route by DHCP on VLAN 20', pending: ['route (DHCP)'] };
    assert.deepEqual(networkSettled('default/n', inputs, live), learning);
    assert.deepEqual(networkSettled('default/n', inputs, withRoute(live, { mode: 'auto', cidr: '10.20.0.0/24', gateway: '10.20.0.1', connectivity: 'true', outdated: true })), learning);
    assert.deepEqual(networkSettled('default/n', inputs, withRoute(live, { mode: 'auto', cidr: '10.20.0.0/24', gateway: '10.20.0.1', connectivity: 'true' })), {
      done: true,
      description: 'VM network default/n is labelled and its route learnt',
    });
  });

  it('a manual route and an untagged network are done once labelled: no route to learn', () => {
    const manual = inputsOf({ vlan: 20, route: { mode: 'manual', cidr: '10.20.0.0/24', gateway: '10.20.0.1' } });
    assert.deepEqual(networkSettled('default/n', manual, labelled(desiredNetwork(manual), 'L2VlanNetwork')), { done: true, description: 'VM network default/n is labelled' });
    const untagged = inputsOf({});
    assert.deepEqual(networkSettled('default/n', untagged, labelled(desiredNetwork(untagged), 'UntaggedNetwork')), { done: true, description: 'VM network default/n is labelled' });
  });
});
