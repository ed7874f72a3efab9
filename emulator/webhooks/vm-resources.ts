/**
 * The resource part of Harvester's VirtualMachine mutator (harvester pkg/webhook/resources/virtualmachine/
 * mutator.go: needUpdateResourceOvercommit, patchResourceOvercommit, generateMemoryPatch; design notes in
 * docs/design/capacity.md):
 * - on create always, on update only when limits.cpu or limits.memory changed (or appeared), the
 *   `harvesterhci.io/reservedMemory` annotation changed, dedicated CPU placement was toggled, or the number of
 *   host devices/GPUs changed;
 * - `requests.cpu` = limits.cpu in millicores × 100 / overcommit cpu% (integer division); with dedicated CPU
 *   the limit itself (Guaranteed QoS);
 * - `requests.memory` = limits.memory × 100 / overcommit memory%, truncated to whole MiB; with dedicated CPU the
 *   limit, with host devices or GPUs the guest memory;
 * - guest memory (`domain.memory.guest`) = the limit, minus 100Mi (or the reservedMemory annotation) unless the
 *   annotation is absent and `additional-guest-memory-overhead-ratio` is set (it is by default);
 * - a VM without requests gets the whole map, otherwise requests.cpu/memory are replaced; `domain.cpu.maxSockets`
 *   = sockets (amd64, no hotplug).
 * Quantities keep the limit's format (`8Gi` → `5461Mi`, `4` → `400m`), as apimachinery does.
 */
import { KubeObject, StoreReader } from '../api/types';
import { HarvesterKinds } from '../controllers/kinds';
import { liveOverheadRatio, liveOvercommit } from '../controllers/overcommit';
import { ANN_RESERVED_MEMORY } from '../util/names';
import { field } from '../util/objects';
import { amountOf, formatAmount, formatOf } from '../util/resources';
import { denyHarvesterInternal, HARVESTER_MUTATOR } from './admission';

const MIB = 1048576;
const DEFAULT_RESERVED = 100 * MIB;

function limitsOf(vm: KubeObject | undefined): Record<string, string> {
  return field<Record<string, string>>(vm, 'spec', 'template', 'spec', 'domain', 'resources', 'limits') ?? {};
}

/** `domain.cpu.dedicatedCpuPlacement` of the VM template. */
export function isDedicatedCpu(vm: KubeObject | undefined): boolean {
  return field(vm, 'spec', 'template', 'spec', 'domain', 'cpu', 'dedicatedCpuPlacement') === true;
}

function deviceCount(vm: KubeObject | undefined, key: 'hostDevices' | 'gpus'): number {
  return (field<unknown[]>(vm, 'spec', 'template', 'spec', 'domain', 'devices', key) ?? []).length;
}

function hostDevicesPresent(vm: KubeObject): boolean {
  return deviceCount(vm, 'hostDevices') + deviceCount(vm, 'gpus') > 0;
}

function changed(resource: string, next: unknown, prev: unknown): boolean {
  const n = amountOf(resource, next) ?? 0;
  const p = amountOf(resource, prev) ?? 0;
  return n !== 0 && (p === 0 || n !== p);
}

/** needUpdateResourceOvercommit: does an update recompute the requests? */
export function needsResourceUpdate(oldVm: KubeObject, newVm: KubeObject): boolean {
  const [next, prev] = [limitsOf(newVm), limitsOf(oldVm)];
  if (changed('cpu', next.cpu, prev.cpu) || changed('memory', next.memory, prev.memory)) return true;
  if ((newVm.metadata.annotations?.[ANN_RESERVED_MEMORY] ?? '') !== (oldVm.metadata.annotations?.[ANN_RESERVED_MEMORY] ?? '')) return true;
  if (isDedicatedCpu(oldVm) !== isDedicatedCpu(newVm)) return true;
  return deviceCount(newVm, 'hostDevices') !== deviceCount(oldVm, 'hostDevices') || deviceCount(newVm, 'gpus') !== deviceCount(oldVm, 'gpus');
}

function child(parent: Record<string, unknown>, key: string): Record<string, unknown> {
  if (!parent[key] || typeof parent[key] !== 'object') parent[key] = {};
  return parent[key] as Record<string, unknown>;
}

/** patchResourceOvercommit on the VM template's pod spec (in place). Throws the mutator's refusals. */
export function patchVmResources(podSpec: Record<string, unknown>, vm: KubeObject, store: StoreReader, kinds: HarvesterKinds): void {
  const domain = child(podSpec, 'domain');
  const limits = field<Record<string, string>>(domain, 'resources', 'limits') ?? {};
  let overcommit;
  try {
    overcommit = liveOvercommit(store, kinds);
  } catch (err) {
    throw denyHarvesterInternal(HARVESTER_MUTATOR, `invalid character in setting overcommit-config: ${(err as Error).message}`);
  }
  if (!overcommit) return;
  const resources = child(domain, 'resources');
  const existing = resources.requests as Record<string, unknown> | undefined;
  const requestsMissing = !existing || Object.keys(existing).length === 0;
  const mutated: Record<string, string> = {};
  const dedicated = field(domain, 'cpu', 'dedicatedCpuPlacement') === true;

  const cpu = amountOf('cpu', limits.cpu) ?? 0;
  if (cpu !== 0) mutated.cpu = formatAmount('cpu', dedicated ? cpu : Math.floor((cpu * 100) / overcommit.cpu));

  const memory = amountOf('memory', limits.memory) ?? 0;
  if (memory !== 0) {
    const format = formatOf(limits.memory);
    let request = Math.floor(Math.floor((memory * 100) / overcommit.memory) / MIB) * MIB;
    const annotation = vm.metadata.annotations?.[ANN_RESERVED_MEMORY] ?? '';
    let reserved = DEFAULT_RESERVED;
    let useReserved = true;
    if (annotation !== '') {
      const parsed = amountOf('memory', annotation);
      if (parsed === undefined) throw denyHarvesterInternal(HARVESTER_MUTATOR, `annotation ${annotation} can't be converted to memory unit`);
      if (parsed >= memory) throw denyHarvesterInternal(HARVESTER_MUTATOR, `reservedMemory can't be equal or greater than limits.memory  ${parsed} ${memory}`);
      reserved = parsed;
    } else if (liveOverheadRatio(store, kinds) !== undefined) {
      useReserved = false;
    }
    const guest = useReserved ? memory - reserved : memory;
    if (guest < 10 * MIB) throw denyHarvesterInternal(HARVESTER_MUTATOR, `guest memory is under the minimum requirement (10 Mi), original: ${memory}, final: ${guest}`);
    if (dedicated) request = memory;
    else if (hostDevicesPresent(vm)) request = guest;
    mutated.memory = formatAmount('memory', request, format);
    child(domain, 'memory').guest = formatAmount('memory', guest, format);
    const cpuSpec = domain.cpu as Record<string, unknown> | undefined;
    if (cpuSpec) cpuSpec.maxSockets = Number(cpuSpec.sockets ?? 0) || 1;
  }
  if (Object.keys(mutated).length === 0) return;
  resources.requests = requestsMissing ? mutated : { ...existing, ...mutated };
}
