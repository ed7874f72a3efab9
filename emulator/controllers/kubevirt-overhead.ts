/**
 * KubeVirt's memory overhead of a VMI's virt-launcher pod, as virt-controller adds it to the compute container's
 * memory request and limit (kubevirt pkg/virt-controller/services/renderresources.go GetMemoryOverhead in
 * v1.5.0–v1.7.0, pkg/hypervisor/kvm in v1.8; docs/design/capacity.md §overhead), for the KVM backend:
 *   page tables: ⌈VMI memory request / 1000⌉ × 1000 / 512 bytes (integer division)
 *   + 220Mi fixed (virt-launcher-monitor 25, virt-launcher 100, virtlogd 25, virtqemud 40, qemu 30)
 *   + 8Mi per vCPU (sockets × cores × threads; else the CPU limit; at least 1) + 8Mi IO thread
 *   + video RAM when a graphics device is attached (the default): 16Mi in KubeVirt 1.5, 32Mi from 1.6
 *   + 128Mi on arm64, 1Gi with host devices or GPUs (VFIO), 53Mi with a TPM
 *   × additionalGuestMemoryOverheadRatio: ⌈overhead / 1000⌉ × (ratio − 1), truncated, × 1000 bytes added
 *   + 100Mi with dedicated CPUs (Guaranteed QoS): after the ratio in 1.5, before it from 1.6 on.
 * Harvester sets the ratio from its `additional-guest-memory-overhead-ratio` setting (1.5 by default).
 */
import { field } from '../util/objects';
import { amountOf } from '../util/resources';

const MI = 1048576;

/** vCPUs of a VMI spec as GetMemoryOverhead counts them. */
export function vcpusOf(spec: Record<string, unknown>): number {
  const cpu = field<Record<string, number>>(spec, 'domain', 'cpu');
  let vcpus = 0;
  if (cpu) {
    for (const key of ['cores', 'sockets', 'threads']) {
      const n = Number(cpu[key] ?? 0);
      if (n) vcpus = vcpus === 0 ? n : vcpus * n;
    }
  } else {
    const limit = field(spec, 'domain', 'resources', 'limits', 'cpu');
    const request = field(spec, 'domain', 'resources', 'requests', 'cpu');
    const cores = amountOf('cpu', limit ?? request);
    if (cores !== undefined) vcpus = Math.ceil(cores / 1000);
  }
  return Math.max(1, vcpus);
}

function multiply(overhead: number, ratio: number): number {
  return overhead + Math.trunc(Math.ceil(overhead / 1000) * (ratio - 1)) * 1000;
}

/** The overhead in bytes for a VMI spec, KubeVirt minor release (5 = v1.5) and ratio text (undefined = none). */
export function memoryOverhead(spec: Record<string, unknown>, kubevirtMinor: number, ratio: string | undefined): number {
  const request = amountOf('memory', field(spec, 'domain', 'resources', 'requests', 'memory')) ?? 0;
  let overhead = Math.floor((Math.ceil(request / 1000) * 1000) / 512);
  overhead += 220 * MI;
  overhead += 8 * MI * vcpusOf(spec) + 8 * MI;
  const devices = field<Record<string, unknown>>(spec, 'domain', 'devices') ?? {};
  if (devices.autoattachGraphicsDevice !== false) overhead += (kubevirtMinor >= 6 ? 32 : 16) * MI;
  if (spec.architecture === 'arm64') overhead += 128 * MI;
  if (((devices.hostDevices as unknown[] | undefined) ?? []).length + ((devices.gpus as unknown[] | undefined) ?? []).length > 0) overhead += 1024 * MI;
  if (devices.tpm) overhead += 53 * MI;
  const dedicated = field(spec, 'domain', 'cpu', 'dedicatedCpuPlacement') === true;
  if (dedicated && kubevirtMinor >= 6) overhead += 100 * MI;
  if (ratio !== undefined && Number.isFinite(Number(ratio))) overhead = multiply(overhead, Number(ratio));
  if (dedicated && kubevirtMinor < 6) overhead += 100 * MI;
  return overhead;
}
