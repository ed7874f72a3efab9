/**
 * What one VM asks of a host and of its namespace's quota, predicted from its limits and the live settings,
 * as Harvester's VM mutator, KubeVirt's launcher pod renderer and the kubelet count it. The rules and their
 * upstream sources are in docs/design/capacity.md (§settings, §mutator, §overhead, §launcher pod):
 *
 *   request.cpu    = vCPUs × 1000 × 100 / overcommit.cpu (millicores, integer division); dedicated CPUs: the limit
 *   request.memory = ⌊limit × 100 / overcommit.memory / 1MiB⌋ × 1MiB; dedicated CPUs: the limit
 *   pod requests   = request + KubeVirt overhead (memory) + the guest-console-log container (5m / 35M)
 *   pod limits     = limit + overhead (memory) + the console container (15m / 60M)
 *
 * KubeVirt's overhead follows the release the Harvester version vendors (video RAM 16Mi in 1.5, 32Mi from 1.6;
 * the dedicated-CPU 100Mi after or before the ratio), times `additional-guest-memory-overhead-ratio`.
 */
import { Amounts } from './amounts';

/** Whole percentages of Harvester's overcommit-config setting. */
export interface Overcommit {
  cpu: number;
  memory: number;
  storage: number;
}

/** The settings the formulas use, and where each came from. */
export interface CapacitySettings {
  overcommit: Overcommit;
  /** `value` (set by an administrator or pinned by an upgrade), `default` (the version's code default), or `assumed` (unreadable). */
  overcommitSource: 'value' | 'default' | 'assumed';
  /** additional-guest-memory-overhead-ratio, undefined when turned off. */
  overheadRatio?: number;
  /** The Harvester version (setting server-version), when readable. */
  harvesterVersion?: string;
  /** The KubeVirt minor release that version vendors (5 for v1.5 …). */
  kubevirtMinor: number;
}

/** The defaults: before v1.8 and from v1.8 (harvester pkg/settings/settings.go at v1.7.0 and v1.8.0). */
export const OVERCOMMIT_DEFAULTS = { legacy: { cpu: 1600, memory: 150, storage: 200 }, v18: { cpu: 1000, memory: 150, storage: 100 } } as const;

function minor(version: string | undefined): [number, number] | undefined {
  const m = /^v?(\d+)\.(\d+)/.exec(version ?? '');
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

/** overcommit-config's code default for a Harvester version (unknown: the v1.8 one, the smaller overcommit). */
export function overcommitDefault(version: string | undefined): Overcommit {
  const v = minor(version);
  return v && v[0] === 1 && v[1] < 8 ? { ...OVERCOMMIT_DEFAULTS.legacy } : { ...OVERCOMMIT_DEFAULTS.v18 };
}

/** The KubeVirt minor release of a Harvester version (v1.6 → 5, v1.7 → 6, v1.8 → 7; unknown → the newest rule). */
export function kubevirtMinorOf(version: string | undefined): number {
  const v = minor(version);
  return v && v[0] === 1 ? Math.max(5, v[1] - 1) : 7;
}

/**
 * Decodes overcommit-config as Go's json.Unmarshal into whole numbers would (missing keys 0); undefined when it
 * does not decode (Harvester's validator refuses such a value, so it cannot be live).
 */
export function parseOvercommit(text: string): Overcommit | undefined {
  try {
    const raw = JSON.parse(text) as Record<string, unknown>;
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
    const out: Overcommit = { cpu: 0, memory: 0, storage: 0 };
    for (const key of ['cpu', 'memory', 'storage'] as const) {
      const v = raw[key];
      if (v === undefined || v === null) continue;
      if (typeof v !== 'number' || !Number.isInteger(v)) return undefined;
      out[key] = v;
    }
    return out;
  } catch {
    return undefined;
  }
}

/** A VM's shape as the check sees it. */
export interface VmShape {
  /** vCPUs (the CPU limit, in cores). */
  cpu: number;
  /** Memory limit in bytes. */
  memoryBytes: number;
  /** `domain.cpu.dedicatedCpuPlacement`: requests equal limits, a `cpumanager=true` host is needed. */
  dedicatedCpu?: boolean;
  /** A graphics device is attached (KubeVirt's default). @default true */
  graphics?: boolean;
  /** Serial console logging (KubeVirt's default unless the VM turns it off). @default true */
  consoleLog?: boolean;
}

/** What one VM's launcher pod asks: of its host (requests) and of a quota (requests and limits). */
export interface VmFootprint {
  /** The requests Harvester's mutator writes on the VM (cpu millicores, memory bytes). */
  vmRequests: { cpu: number; memory: number };
  /** KubeVirt's memory overhead, bytes. */
  overhead: number;
  /** The launcher pod's requests: cpu, memory, pods. */
  requests: Amounts;
  /** The launcher pod's limits: cpu, memory. */
  limits: Amounts;
}

const MI = 2 ** 20;

function overheadOf(memoryRequest: number, vcpus: number, shape: VmShape, s: CapacitySettings): number {
  let overhead = Math.floor((Math.ceil(memoryRequest / 1000) * 1000) / 512);
  overhead += 220 * MI + 8 * MI * Math.max(1, vcpus) + 8 * MI;
  if (shape.graphics !== false) overhead += (s.kubevirtMinor >= 6 ? 32 : 16) * MI;
  if (shape.dedicatedCpu && s.kubevirtMinor >= 6) overhead += 100 * MI;
  if (s.overheadRatio !== undefined) overhead += Math.trunc(Math.ceil(overhead / 1000) * (s.overheadRatio - 1)) * 1000;
  if (shape.dedicatedCpu && s.kubevirtMinor < 6) overhead += 100 * MI;
  return overhead;
}

/** The footprint of one VM of `shape` under `settings`. */
export function footprint(shape: VmShape, settings: CapacitySettings): VmFootprint {
  const cpuLimit = shape.cpu * 1000;
  const oc = settings.overcommit;
  const cpu = shape.dedicatedCpu ? cpuLimit : Math.floor((cpuLimit * 100) / oc.cpu);
  const memory = shape.dedicatedCpu ? shape.memoryBytes : Math.floor(Math.floor((shape.memoryBytes * 100) / oc.memory) / MI) * MI;
  const overhead = overheadOf(memory, shape.cpu, shape, settings);
  const console = shape.consoleLog !== false;
  const consoleRequests = shape.dedicatedCpu ? { cpu: 15, memory: 60_000_000 } : { cpu: 5, memory: 35_000_000 };
  return {
    vmRequests: { cpu, memory },
    overhead,
    requests: { cpu: cpu + (console ? consoleRequests.cpu : 0), memory: memory + overhead + (console ? consoleRequests.memory : 0), pods: 1 },
    limits: { cpu: cpuLimit + (console ? 15 : 0), memory: shape.memoryBytes + overhead + (console ? 60_000_000 : 0) },
  };
}

/** Free vCPUs at the live CPU overcommit for `freeMillis` of free CPU request. */
export function freeVcpus(freeMillis: number, overcommit: Overcommit): number {
  return Math.max(0, Math.floor((freeMillis * overcommit.cpu) / 100 / 1000));
}
