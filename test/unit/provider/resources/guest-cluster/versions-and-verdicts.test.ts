/**
 * The upgrade rules of RKE2 versions (provider/core/rke2/versions.ts) and GuestClusterReady's verdict on each node.
 */
import assert from 'node:assert/strict';
import { agentSkewProblem, upgradeProblem } from '../../../../../provider/core/rke2/versions';
import { allUp, nodeStatuses, progressLine } from '../../../../../provider/resources/guest-cluster-ready/verdict';
import type { Node, VirtualMachine } from '../../../../../provider/client/objects';

describe('RKE2 upgrade rules', () => {
  it('one minor forward, or any patch and revision; no skip, no minor downgrade, no major change', () => {
    assert.equal(upgradeProblem('v1.32.5+rke2r1', 'v1.33.1+rke2r1'), undefined);
    assert.equal(upgradeProblem('v1.32.5+rke2r1', 'v1.32.9+rke2r2'), undefined);
    assert.equal(upgradeProblem('v1.32.5+rke2r2', 'v1.32.5+rke2r1'), undefined, 'a revision back is left to RKE2');
    assert.match(String(upgradeProblem('v1.31.5+rke2r1', 'v1.33.1+rke2r1')), /skips 1 minor version\(s\).*latest v1\.32 release first/);
    assert.match(String(upgradeProblem('v1.33.1+rke2r1', 'v1.32.9+rke2r1')), /downgrade of the minor version/);
    assert.match(String(upgradeProblem('v1.33.1+rke2r1', 'v2.0.0+rke2r1')), /major version/);
  });

  it('agents: not newer than the servers; at most three minors older (two below 1.25)', () => {
    assert.match(String(agentSkewProblem('v1.32.5+rke2r1', 'v1.32.6+rke2r1')), /newer than the servers/);
    assert.equal(agentSkewProblem('v1.32.5+rke2r1', 'v1.29.1+rke2r1'), undefined);
    assert.match(String(agentSkewProblem('v1.32.5+rke2r1', 'v1.28.1+rke2r1')), /more than 3 minor versions older/);
    assert.match(String(agentSkewProblem('v1.26.1+rke2r1', 'v1.23.1+rke2r1')), /more than 2 minor versions older/);
  });
});

describe('GuestClusterReady verdicts', () => {
  const vm = (name: string): VirtualMachine => ({ metadata: { name, namespace: 'default', uid: `uid-${name}` } });
  const node = (name: string, o: { ready?: string; providerID?: string; tainted?: boolean; message?: string } = {}): Node => ({
    metadata: { name, labels: { 'topology.kubernetes.io/zone': 'zone-a' } },
    spec: { providerID: o.providerID ?? `harvester://uid-${name}`, taints: o.tainted ? [{ key: 'node.cloudprovider.kubernetes.io/uninitialized', value: 'true', effect: 'NoSchedule' }] : [] },
    status: { conditions: [{ type: 'Ready', status: o.ready ?? 'True', message: o.message }], nodeInfo: { kubeletVersion: 'v1.32.5+rke2r1' } },
  });
  const inputs = { namespace: 'default', nodes: ['a', 'b', 'c', 'd', 'e', 'f'].map((name) => ({ name, role: 'agent' as const })) };

  it('Ready and initialised by the cloud provider (providerID of its VM, no taint), else what it waits for', () => {
    const statuses = nodeStatuses(inputs, {
      vms: ['a', 'b', 'c', 'd', 'e'].map(vm),
      vmis: [{ metadata: { name: 'a' }, status: { nodeName: 'harvester-node-1' } }],
      nodes: [node('a'), node('b', { ready: 'False', message: 'cni plugin not initialized' }), node('c', { tainted: true, providerID: '' }), node('d', { providerID: 'harvester://uid-stale' })],
    });
    assert.deepEqual(statuses.map((s) => [s.name, s.ready && s.initialised]), [['a', true], ['b', false], ['c', false], ['d', false], ['e', false], ['f', false]]);
    assert.deepEqual(statuses[0], { name: 'a', role: 'agent', vm: 'default/a', ready: true, initialised: true, host: 'harvester-node-1', zone: 'zone-a', kubeletVersion: 'v1.32.5+rke2r1', providerId: 'harvester://uid-a' });
    assert.equal(statuses[1].waitingFor, 'NotReady: cni plugin not initialized');
    assert.match(String(statuses[2].waitingFor), /not initialised by the Harvester cloud provider/);
    assert.match(String(statuses[3].waitingFor), /providerID harvester:\/\/uid-stale is not this VM's/);
    assert.match(String(statuses[4].waitingFor), /not registered/);
    assert.equal(statuses[5].waitingFor, 'VM f does not exist');
    assert.equal(allUp(statuses), false);
    assert.match(progressLine(statuses), /^1\/6 nodes Ready and initialised; b: NotReady/);
  });
});
