import assert from 'node:assert/strict';
import * as provider from '../../../provider';
import { machinePool, topologyLabels, topologyLabelSets } from '../../../provider';
import { RESOURCES } from '../../../sdk/registry';

describe('harvester-iac/provider', () => {
  it('exports machinePool in the shape of a Pulumi dynamic ResourceProvider', () => {
    for (const handler of ['check', 'diff', 'create', 'read', 'update', 'delete'] as const) {
      assert.equal(typeof machinePool[handler], 'function', handler);
    }
  });

  it('answers check without a cluster when the kubeconfig is unknown (preview)', async () => {
    const r = await machinePool.check({}, {
      __provider: 'serialized',
      kubeconfig: '04da6b54-80e4-46f7-96ec-b56ff0331ba9',
      name: 'pool-a',
      disks: [{ image: 'img', size: '10Gi' }],
      networks: [{ network: 'vm-net' }],
      count: 0,
      cpu: 0,
    });
    assert.deepEqual(r.failures?.map((f) => f.property), ['cpu']);
  });

  it('exports topologyLabels (a permanent name) and its namespace', async () => {
    for (const handler of ['check', 'diff', 'create', 'read', 'update', 'delete'] as const) {
      assert.equal(typeof topologyLabels[handler], 'function', handler);
    }
    assert.equal(typeof topologyLabelSets.createTopologyLabelsProvider, 'function');
    const r = await topologyLabels.check({}, { __provider: 'serialized', kubeconfig: '04da6b54-80e4-46f7-96ec-b56ff0331ba9', name: 'site', hosts: { h0: { zone: 'a', rack: 'r' } } });
    assert.deepEqual(r.failures?.map((f) => f.property), ['hosts.h0.rack']);
  });
});

describe('harvester-iac/provider: the permanent contract', () => {
  it('exports every resource the SDK registers under its permanent name, each a complete provider', () => {
    assert.deepEqual(RESOURCES.map((r) => r.exportName).sort(), ['guestClusterCredentials', 'guestClusterIdentity', 'guestClusterReady', 'image', 'ipPool', 'keyPair', 'loadBalancer', 'machinePool', 'network', 'topologyLabels']);
    for (const r of RESOURCES) {
      const handlers = (provider as unknown as Record<string, Record<string, unknown>>)[r.exportName];
      for (const m of ['configure', 'check', 'diff', 'create', 'read', 'update', 'delete']) assert.equal(typeof handlers?.[m], 'function', `${r.exportName}.${m}`);
    }
  });
});
