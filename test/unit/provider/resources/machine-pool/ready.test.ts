import assert from 'node:assert/strict';
import type { VirtualMachineInstance } from '../../../../../provider/client/objects';
import { readyTimeout } from '../../../../../provider/resources/machine-pool/errors';
import { desiredVirtualMachines } from '../../../../../provider/resources/machine-pool/desired';
import { toOutputs } from '../../../../../provider/resources/machine-pool/outputs';
import { firstIPv4, machineStatus, poolReadiness, readinessOf } from '../../../../../provider/resources/machine-pool/ready';
import { asHarvesterServes, context, inputs } from './fixtures';

function vmi(name: string, status: VirtualMachineInstance['status']): VirtualMachineInstance {
  return { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachineInstance', metadata: { name, namespace: 'default' }, status };
}

describe('machine-pool readiness', () => {
  const cases: Record<string, { given: VirtualMachineInstance | undefined; ready: boolean; want: RegExp }> = {
    'no VMI yet': { given: undefined, ready: false, want: /KubeVirt to start/ },
    'unschedulable': { given: vmi('a', { phase: 'Scheduling', conditions: [{ type: 'PodScheduled', status: 'False', message: 'no host in zone mars-1a' }] }), ready: false, want: /scheduled on a host \(no host in zone mars-1a\)/ },
    'booting': { given: vmi('a', { phase: 'Scheduled' }), ready: false, want: /phase Scheduled/ },
    'running without agent': { given: vmi('a', { phase: 'Running', interfaces: [{ name: 'nic-0', mac: '3a:06' }] }), ready: false, want: /qemu-guest-agent/ },
    'running with IPv6 only': { given: vmi('a', { phase: 'Running', interfaces: [{ name: 'nic-0', ipAddress: 'fe80::1', ipAddresses: ['fe80::1'] }] }), ready: false, want: /IPv4/ },
    'failed, restarted by KubeVirt': { given: vmi('a', { phase: 'Failed' }), ready: false, want: /RerunOnFailure/ },
    'ready': { given: vmi('a', { phase: 'Running', interfaces: [{ name: 'nic-0', ipAddress: '172.16.100.20/24' }] }), ready: true, want: /ready/ },
  };
  for (const [name, c] of Object.entries(cases)) {
    it(`judges a VM ${name}`, () => {
      const r = readinessOf(c.given);
      assert.equal(r.ready, c.ready);
      assert.match(r.waitingFor, c.want);
    });
  }

  it('gives the whole verdict: phase, the exact wait, and the no-IP flag only for a running VM without an address', () => {
    const deleting = vmi('a', { phase: 'Running', interfaces: [{ name: 'nic-0', ipAddress: '10.0.0.5' }] });
    deleting.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    const table: [string, VirtualMachineInstance | undefined, ReturnType<typeof readinessOf>][] = [
      ['no VMI', undefined, { ready: false, waitingFor: 'waiting for KubeVirt to start a VirtualMachineInstance', phase: 'Stopped', runningWithoutIp: false }],
      ['deleting', deleting, { ready: false, waitingFor: 'its VirtualMachineInstance is being deleted', phase: 'Terminating', runningWithoutIp: false }],
      ['failed', vmi('a', { phase: 'Failed' }), { ready: false, waitingFor: 'its VirtualMachineInstance failed; KubeVirt restarts it (RerunOnFailure)', phase: 'Failed', runningWithoutIp: false }],
      ['no status yet', vmi('a', undefined), { ready: false, waitingFor: 'waiting to be scheduled on a host', phase: 'Pending', runningWithoutIp: false }],
      // Only a PodScheduled=False condition explains the wait; other False conditions, or PodScheduled=True, do not.
      ['scheduling, other conditions', vmi('a', { phase: 'Scheduling', conditions: [{ type: 'Ready', status: 'False', message: 'not ready' }, { type: 'PodScheduled', status: 'True', message: 'fine' }] }),
        { ready: false, waitingFor: 'waiting to be scheduled on a host', phase: 'Scheduling', runningWithoutIp: false }],
      ['running without IP', vmi('a', { phase: 'Running' }), { ready: false, waitingFor: 'Running, waiting for an IPv4 address from qemu-guest-agent', phase: 'Running', runningWithoutIp: true }],
      ['ready', vmi('a', { phase: 'Running', interfaces: [{ name: 'nic-0', ipAddress: '10.0.0.5' }] }), { ready: true, waitingFor: 'ready', phase: 'Running', runningWithoutIp: false }],
    ];
    for (const [label, given, want] of table) assert.deepEqual(readinessOf(given), want, label);
  });

  it('counts a VM being deleted as not ready in machines[].ready and readyCount, even while its VMI still runs with an IP', () => {
    const i = inputs({ count: 2 });
    const vms = desiredVirtualMachines(i, context()).machines.map((m) => asHarvesterServes(m.vm));
    const running = (name: string) => vmi(name, { phase: 'Running', nodeName: 'harvester-node-0', interfaces: [{ name: 'nic-0', ipAddress: '172.16.100.20' }] });
    vms[1].metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    const machines = vms.map((vm) => machineStatus(vm, running(vm.metadata.name!), 'pool-a'));
    assert.deepEqual(machines.map((m) => [m.name, m.ready, m.phase]), [['pool-a-0', true, 'Running'], ['pool-a-1', false, 'Terminating']]);
    assert.equal(toOutputs(i, machines).readyCount, 1);

    const terminatingVmi = running('pool-a-0');
    terminatingVmi.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    const r = readinessOf(terminatingVmi);
    assert.deepEqual([r.ready, r.phase], [false, 'Terminating']);
    assert.match(r.waitingFor, /being deleted/);
    assert.equal(machineStatus(vms[0], terminatingVmi, 'pool-a').ready, false);
    assert.equal(poolReadiness(['pool-a-0'], [terminatingVmi]).done, false);
  });

  it('takes the address of the pool\'s first NIC (nic-0) even when the guest agent lists another interface first', () => {
    const status = { phase: 'Running', interfaces: [{ interfaceName: 'cni0', ipAddress: '10.42.0.1', ipAddresses: ['10.42.0.1'] }, { name: 'nic-0', ipAddress: '172.16.100.20' }] };
    assert.equal(firstIPv4(vmi('a', status)), '172.16.100.20');
  });

  it('takes the first IPv4 of the first interface, without prefix length', () => {
    assert.equal(firstIPv4(vmi('a', { interfaces: [{ ipAddress: 'fe80::1', ipAddresses: ['fe80::1', '10.0.0.5/24'] }] })), '10.0.0.5');
    assert.equal(firstIPv4(vmi('a', { interfaces: [{ ipAddress: '999.1.1.1' }] })), undefined);
  });

  it('summarises a pool with the first pending VM as the progress line', () => {
    const r = poolReadiness(['p-0', 'p-1', 'p-2'], [vmi('p-0', { phase: 'Running', interfaces: [{ ipAddress: '10.0.0.1' }] }), vmi('p-1', { phase: 'Running' })]);
    assert.equal(r.done, false);
    assert.equal(r.description, '1/3 VMs ready; p-1: Running, waiting for an IPv4 address from qemu-guest-agent (and 1 more)');
    assert.equal(r.pending.length, 2);
  });

  it('explains a timeout of VMs running without an address by qemu-guest-agent, with the fix for each setting', () => {
    const m = [{ name: 'default/p-0', phase: 'Running', host: 'harvester-node-0', waitingFor: 'Running, waiting for an IPv4 address from qemu-guest-agent', runningWithoutIp: true }];
    const off = readyTimeout('default/p', '10m', 'create', m, 'none', 'no');
    assert.equal(off.code, 'WaitTimeout');
    assert.match(off.message, /guestAgent is "none"/);
    assert.match(off.message, /timeouts\.create/);
    const on = readyTimeout('default/p', '10m', 'create', m, 'install', 'yes');
    assert.match(on.message, /only from qemu-guest-agent.*package mirror/s);
    const pending = readyTimeout('default/p', '10m', 'update', [{ ...m[0], phase: 'Scheduling', runningWithoutIp: false, waitingFor: 'waiting to be scheduled on a host' }], 'install', 'yes');
    assert.doesNotMatch(pending.message, /qemu-guest-agent/);
  });
});
