/**
 * Readiness of the pool's VMs, judged on their VirtualMachineInstances. A VM is ready when, in order:
 * 1. its VMI exists (KubeVirt creates it from the VM's run strategy);
 * 2. the VMI is scheduled on a host (phase Scheduled or later);
 * 3. the VMI is Running;
 * 4. its first NIC (nic-0) reports an IPv4 address (harvester.go GetIP strips any /prefix and requires IPv4).
 *    For bridged Multus NICs only qemu-guest-agent reports it (docs/design/harvester-vms.md §"Readiness").
 * The first check not met is the VM's progress line (pulumi-kubernetes checker style). A Failed VMI is
 * not final: with RerunOnFailure KubeVirt starts a new one, so it is reported and awaited.
 */
import type { VirtualMachine, VirtualMachineInstance } from '../../client/objects';
import { ZONE_KEY } from './affinity';
import type { MachineStatus } from './outputs';
import { indexOf, zoneOfVm } from './plan';

const IPV4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;

/**
 * firstIPv4 returns the first IPv4 address of the pool's first NIC (`nic-0`; else the VMI's first interface, as
 * the node driver reads it), without prefix length. The guest agent may also report interfaces of its own
 * (a guest cluster's cni0, docker0), which carry no `name`.
 */
export function firstIPv4(vmi: VirtualMachineInstance | undefined): string | undefined {
  const interfaces = vmi?.status?.interfaces ?? [];
  const nic = interfaces.find((i) => i.name === 'nic-0') ?? interfaces[0];
  if (!nic) return undefined;
  const candidates = [nic.ipAddress, ...(nic.ipAddresses ?? [])].filter((a): a is string => typeof a === 'string');
  return candidates.map((a) => a.split('/')[0]).find((a) => IPV4.test(a));
}

/** One VM's readiness: done, or the first unmet check. */
export interface MachineReadiness {
  ready: boolean;
  /** The first unmet check, e.g. "Running, waiting for an IPv4 address from qemu-guest-agent". */
  waitingFor: string;
  phase: string;
  /** Running without an IPv4 address (the qemu-guest-agent symptom). */
  runningWithoutIp: boolean;
}

/** readinessOf judges one VM from its VMI (undefined when none exists yet). */
export function readinessOf(vmi: VirtualMachineInstance | undefined): MachineReadiness {
  if (!vmi) return { ready: false, waitingFor: 'waiting for KubeVirt to start a VirtualMachineInstance', phase: 'Stopped', runningWithoutIp: false };
  const phase = vmi.status?.phase ?? 'Pending';
  if (vmi.metadata.deletionTimestamp) return { ready: false, waitingFor: 'its VirtualMachineInstance is being deleted', phase: 'Terminating', runningWithoutIp: false };
  if (phase === 'Failed') return { ready: false, waitingFor: 'its VirtualMachineInstance failed; KubeVirt restarts it (RerunOnFailure)', phase, runningWithoutIp: false };
  if (phase === 'Pending' || phase === 'Scheduling') {
    const unschedulable = vmi.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False');
    const why = unschedulable?.message ? ` (${unschedulable.message})` : '';
    return { ready: false, waitingFor: `waiting to be scheduled on a host${why}`, phase, runningWithoutIp: false };
  }
  if (phase !== 'Running') return { ready: false, waitingFor: `waiting for it to run (phase ${phase})`, phase, runningWithoutIp: false };
  const ip = firstIPv4(vmi);
  if (!ip) return { ready: false, waitingFor: 'Running, waiting for an IPv4 address from qemu-guest-agent', phase, runningWithoutIp: true };
  return { ready: true, waitingFor: 'ready', phase, runningWithoutIp: false };
}

/** machineStatus is the output record of one VM. */
export function machineStatus(vm: VirtualMachine, vmi: VirtualMachineInstance | undefined, poolName: string): MachineStatus {
  const r = readinessOf(vmi);
  const status: MachineStatus = {
    name: vm.metadata.name ?? '',
    index: indexOf(vm, poolName),
    phase: vm.metadata.deletionTimestamp ? 'Terminating' : r.phase,
    ready: r.ready && !vm.metadata.deletionTimestamp,
  };
  const zone = zoneOfVm(vm) ?? vmi?.metadata.annotations?.[ZONE_KEY];
  if (zone) status.zone = zone;
  const host = vmi?.status?.nodeName;
  if (host) status.host = host;
  const ip = firstIPv4(vmi);
  if (ip) status.ip = ip;
  return status;
}

/** The verdict on a set of VMs, for waitFor. */
export interface PoolReadiness {
  done: boolean;
  description: string;
  pending: string[];
}

/** poolReadiness judges the named VMs from the VMIs seen (by name). */
export function poolReadiness(names: string[], vmis: VirtualMachineInstance[]): PoolReadiness {
  const byName = new Map(vmis.map((v) => [v.metadata.name ?? '', v]));
  const pending: string[] = [];
  for (const name of names) {
    const r = readinessOf(byName.get(name));
    if (!r.ready) pending.push(`${name}: ${r.waitingFor}`);
  }
  const ready = names.length - pending.length;
  const description = pending.length === 0
    ? `${ready}/${names.length} VMs ready`
    : `${ready}/${names.length} VMs ready; ${pending[0]}${pending.length > 1 ? ` (and ${pending.length - 1} more)` : ''}`;
  return { done: pending.length === 0, description, pending };
}
