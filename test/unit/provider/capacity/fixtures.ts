/** Hand-built capacity snapshots and hosts for the pure capacity tests. */
import type { Capacity, HostCapacity } from '../../../../provider/capacity';
import { CapacitySettings } from '../../../../provider/capacity';

export const GIB = 2 ** 30;

/** Harvester v1.8 defaults: overcommit 1000/150, ratio 1.5, KubeVirt 1.7. */
export const V18: CapacitySettings = { overcommit: { cpu: 1000, memory: 150, storage: 100 }, overcommitSource: 'default', overheadRatio: 1.5, harvesterVersion: 'v1.8.0', kubevirtMinor: 7 };
/** Harvester v1.6 defaults: 1600/150, KubeVirt 1.5. */
export const V16: CapacitySettings = { overcommit: { cpu: 1600, memory: 150, storage: 200 }, overcommitSource: 'default', overheadRatio: 1.5, harvesterVersion: 'v1.6.1', kubevirtMinor: 5 };

/** A Ready, schedulable KubeVirt host in `zone` with `free` CPU (millicores) and memory (GiB). */
export function host(name: string, zone: string | undefined, freeMillis: number, freeGib: number, extra: Partial<HostCapacity> = {}): HostCapacity {
  const labels: Record<string, string> = { 'kubevirt.io/schedulable': 'true', 'kubernetes.io/arch': 'amd64', 'network.harvesterhci.io/mgmt': 'true' };
  if (zone) labels['topology.kubernetes.io/zone'] = zone;
  const allocatable = { cpuMillis: 30_000, memoryBytes: 256 * GIB, pods: 200 };
  const free = { cpuMillis: freeMillis, memoryBytes: freeGib * GIB, pods: 150 };
  return {
    name,
    zone,
    ready: true,
    schedulable: true,
    taints: [],
    labels,
    allocatable,
    requested: { cpuMillis: allocatable.cpuMillis - free.cpuMillis, memoryBytes: allocatable.memoryBytes - free.memoryBytes, pods: 50 },
    free,
    freeVcpus: 0,
    requestsFrom: 'pods',
    ...extra,
  };
}

/** A snapshot of `hosts` under `settings`, reads complete. */
export function snapshot(hosts: HostCapacity[], settings: CapacitySettings = V18, extra: Partial<Capacity> = {}): Capacity {
  return { hosts, zones: [], settings, namespace: 'default', quotas: [], launchers: [], certain: true, warnings: [], readAt: '2026-11-27T00:00:00.000Z', ...extra };
}
