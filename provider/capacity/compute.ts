/**
 * Pure: the capacity snapshot from the reads (docs/design/capacity.md §computation). Per host: allocatable, what
 * its pods request (Σ over pods not finished: containers summed, init containers maxed, plus pod overhead, as
 * kube-scheduler counts), free = allocatable − requested, free vCPUs at the live CPU overcommit; per zone the
 * sums over its hosts; the settings used; the namespace's quotas; Longhorn disks where readable.
 */
import type { Node, Pod, ResourceQuota } from '../client/objects';
import { Amounts, amountOf, amountsOf, minus, sum } from './amounts';
import { CapacitySettings, freeVcpus, kubevirtMinorOf, overcommitDefault, parseOvercommit } from './formulas';
import { CapacityReads, settingText } from './reads';

/** CPU in millicores, memory in bytes, pods as a count. */
export interface Resources {
  cpuMillis: number;
  memoryBytes: number;
  pods: number;
}

/** One Longhorn disk: what it holds and what it can still take under over-provisioning. */
export interface DiskCapacity {
  host: string;
  disk: string;
  path?: string;
  schedulable: boolean;
  maximumBytes: number;
  reservedBytes: number;
  scheduledBytes: number;
  availableBytes: number;
  /** (maximum − reserved) × over-provisioning % − scheduled: what new replicas may still be given. */
  provisionableBytes: number;
}

/** One host. */
export interface HostCapacity {
  name: string;
  zone?: string;
  region?: string;
  ready: boolean;
  /** False when cordoned (spec.unschedulable). */
  schedulable: boolean;
  /** NoSchedule/NoExecute taints as `key=value:Effect`. */
  taints: string[];
  labels: Record<string, string>;
  allocatable: Resources;
  requested: Resources;
  free: Resources;
  /** Free CPU request as vCPUs at the live CPU overcommit. */
  freeVcpus: number;
  /** Where `requested` came from: the pods, Harvester's node annotation, or nothing (unreadable: 0). */
  requestsFrom: 'pods' | 'annotation' | 'unknown';
  storage?: DiskCapacity[];
}

/** The hosts of one zone (hosts without a zone label are in no zone). */
export interface ZoneCapacity {
  zone: string;
  hosts: string[];
  allocatable: Resources;
  requested: Resources;
  free: Resources;
  freeVcpus: number;
}

/** One ResourceQuota of the namespace. */
export interface QuotaCapacity {
  name: string;
  /** Hard limits and usage per resource (cpu resources in millicores, memory in bytes). */
  hard: Record<string, number>;
  used: Record<string, number>;
}

/** A VM's launcher pod in the namespace asked about: where it runs and what it counts. */
export interface LauncherPod {
  vm: string;
  host?: string;
  requests: Resources;
  /** Quota usage of the pod (requests.*, limits.*, pods), cpu in millicores, memory in bytes. */
  quotaUsage: Record<string, number>;
}

/** The snapshot getCapacity() returns and the machine pool check reads. */
export interface Capacity {
  hosts: HostCapacity[];
  zones: ZoneCapacity[];
  settings: CapacitySettings;
  namespace?: string;
  quotas?: QuotaCapacity[];
  /** The namespace's virt-launcher pods (label vm.kubevirt.io/name), when pods could be listed. */
  launchers?: LauncherPod[];
  /** Every read the host verdict needs succeeded (hosts, pods or their annotation, overcommit-config). */
  certain: boolean;
  warnings: string[];
  readAt: string;
}

const ZONE = 'topology.kubernetes.io/zone';
const REGION = 'topology.kubernetes.io/region';
/** Harvester publishes each host's summed pod requests here (pkg/controller/master/rancher/pod_resources.go). */
export const POD_REQUESTS_ANNOTATION = 'management.cattle.io/pod-requests';

function resources(a: Amounts): Resources {
  return { cpuMillis: a.cpu ?? 0, memoryBytes: a.memory ?? 0, pods: a.pods ?? 0 };
}

/** A pod's requests as kube-scheduler counts them (with `pods: 1`). */
export function podRequests(pod: Pod): Amounts {
  const containers = sum(...(pod.spec?.containers ?? []).map((c) => amountsOf(c.resources?.requests ?? c.resources?.limits)));
  for (const c of pod.spec?.initContainers ?? []) {
    for (const [k, v] of Object.entries(amountsOf(c.resources?.requests ?? c.resources?.limits))) containers[k] = Math.max(containers[k] ?? 0, v);
  }
  return { ...sum(containers, amountsOf(pod.spec?.overhead)), pods: 1 };
}

function podLimits(pod: Pod): Amounts {
  return sum(...(pod.spec?.containers ?? []).map((c) => amountsOf(c.resources?.limits)));
}

/** What a pod counts against a ResourceQuota (pkg/quota/v1/evaluator/core/pods.go, for cpu, memory and pods). */
export function podQuotaUsage(pod: Pod): Record<string, number> {
  const { pods: _one, ...requests } = podRequests(pod);
  const limits = podLimits(pod);
  const usage: Record<string, number> = { pods: 1, 'count/pods': 1 };
  for (const r of ['cpu', 'memory']) {
    if (requests[r] !== undefined) usage[r] = usage[`requests.${r}`] = requests[r];
    if (limits[r] !== undefined) usage[`limits.${r}`] = limits[r];
  }
  return usage;
}

/** The settings the formulas use, from the reads (warnings added for what had to be assumed). */
export function settingsFrom(reads: CapacityReads, warnings: string[]): CapacitySettings {
  const version = settingText(reads.settings.serverVersion);
  const text = settingText(reads.settings.overcommit);
  const parsed = text === undefined ? undefined : parseOvercommit(text);
  const overcommit = parsed ?? overcommitDefault(version);
  if (!parsed) {
    const why = reads.settingsRead.overcommit ? 'is missing or empty' : 'could not be read';
    warnings.push(`capacity: overcommit-config ${why}; assumed cpu ${overcommit.cpu}% / memory ${overcommit.memory}% (the ${version ?? 'unknown-version'} default)`);
  }
  let ratioText: string | undefined = settingText(reads.settings.overheadRatio);
  if (!reads.settingsRead.overheadRatio) {
    ratioText = '1.5';
    warnings.push('capacity: additional-guest-memory-overhead-ratio could not be read; assumed 1.5 (the default)');
  }
  const ratio = ratioText === undefined ? undefined : Number(ratioText);
  return {
    overcommit,
    overcommitSource: !parsed ? 'assumed' : typeof reads.settings.overcommit?.value === 'string' && reads.settings.overcommit.value !== '' ? 'value' : 'default',
    overheadRatio: ratio !== undefined && Number.isFinite(ratio) && ratio !== 0 ? ratio : undefined,
    harvesterVersion: version,
    kubevirtMinor: kubevirtMinorOf(version),
  };
}

function requestsOf(node: Node, pods: Pod[] | undefined, byNode: Map<string, Amounts>): { requested: Amounts; from: HostCapacity['requestsFrom'] } {
  const name = String(node.metadata.name);
  if (pods) return { requested: byNode.get(name) ?? {}, from: 'pods' };
  const annotation = node.metadata.annotations?.[POD_REQUESTS_ANNOTATION];
  if (annotation) {
    try {
      return { requested: amountsOf(JSON.parse(annotation) as Record<string, unknown>), from: 'annotation' };
    } catch {
      // fall through: unknown
    }
  }
  return { requested: {}, from: 'unknown' };
}

function disksOf(reads: CapacityReads, host: string): DiskCapacity[] | undefined {
  const lh = reads.longhorn;
  const node = lh?.nodes.find((n) => n.metadata.name === host);
  if (!lh || !node) return undefined;
  const over = lh.overProvisioning ?? 100;
  return Object.entries(node.spec?.disks ?? {}).map(([disk, spec]) => {
    const st = node.status?.diskStatus?.[disk] ?? {};
    const maximum = st.storageMaximum ?? 0;
    const reserved = spec.storageReserved ?? 0;
    const scheduled = st.storageScheduled ?? 0;
    const ready = (st.conditions ?? []).every((c) => c.type !== 'Schedulable' || c.status === 'True');
    return {
      host,
      disk,
      path: spec.path,
      schedulable: spec.allowScheduling !== false && node.spec?.allowScheduling !== false && ready,
      maximumBytes: maximum,
      reservedBytes: reserved,
      scheduledBytes: scheduled,
      availableBytes: st.storageAvailable ?? 0,
      provisionableBytes: Math.max(0, Math.floor(((maximum - reserved) * over) / 100) - scheduled),
    };
  });
}

function quotasOf(list: ResourceQuota[] | undefined): QuotaCapacity[] | undefined {
  return list?.map((q) => ({
    name: String(q.metadata.name),
    hard: amountsOf(q.status?.hard ?? q.spec?.hard),
    used: amountsOf(q.status?.used),
  }));
}

/** The snapshot. */
export function computeCapacity(reads: CapacityReads): Capacity {
  const warnings = [...reads.warnings];
  const settings = settingsFrom(reads, warnings);
  const byNode = new Map<string, Amounts>();
  for (const pod of reads.pods ?? []) {
    const node = pod.spec?.nodeName;
    const phase = pod.status?.phase;
    if (!node || phase === 'Succeeded' || phase === 'Failed') continue;
    byNode.set(node, sum(byNode.get(node) ?? {}, podRequests(pod)));
  }
  const hosts: HostCapacity[] = (reads.nodes ?? []).map((node) => {
    const allocatable = amountsOf((node.status?.allocatable ?? node.status?.capacity) as Record<string, unknown> | undefined);
    const { requested, from } = requestsOf(node, reads.pods, byNode);
    const free = minus(allocatable, requested);
    const labels = node.metadata.labels ?? {};
    const taints = ((node.spec?.taints as { key: string; value?: string; effect: string }[] | undefined) ?? [])
      .filter((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute')
      .map((t) => `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`);
    return {
      name: String(node.metadata.name),
      zone: labels[ZONE],
      region: labels[REGION],
      ready: (node.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
      schedulable: node.spec?.unschedulable !== true,
      taints,
      labels: { ...labels },
      allocatable: resources(allocatable),
      requested: resources(requested),
      free: resources(free),
      freeVcpus: freeVcpus(free.cpu ?? 0, settings.overcommit),
      requestsFrom: from,
      storage: disksOf(reads, String(node.metadata.name)),
    };
  });
  if (reads.nodes && !reads.pods && hosts.some((h) => h.requestsFrom === 'unknown')) {
    warnings.push(`capacity: what the pods request is unknown on ${hosts.filter((h) => h.requestsFrom === 'unknown').map((h) => h.name).join(', ')}: free capacity shown as allocatable (an upper bound)`);
  }
  const zones = [...new Set(hosts.map((h) => h.zone).filter((z): z is string => Boolean(z)))].sort().map((zone) => {
    const members = hosts.filter((h) => h.zone === zone);
    const total = (pick: (h: HostCapacity) => Resources): Resources => ({
      cpuMillis: members.reduce((n, h) => n + pick(h).cpuMillis, 0),
      memoryBytes: members.reduce((n, h) => n + pick(h).memoryBytes, 0),
      pods: members.reduce((n, h) => n + pick(h).pods, 0),
    });
    const free = total((h) => h.free);
    return { zone, hosts: members.map((h) => h.name), allocatable: total((h) => h.allocatable), requested: total((h) => h.requested), free, freeVcpus: freeVcpus(free.cpuMillis, settings.overcommit) };
  });
  const launchers = reads.namespace === undefined || !reads.pods
    ? undefined
    : reads.pods
        .filter((p) => p.metadata.namespace === reads.namespace && p.metadata.labels?.['vm.kubevirt.io/name'])
        .map((p) => ({ vm: String(p.metadata.labels!['vm.kubevirt.io/name']), host: p.spec?.nodeName, requests: resources(podRequests(p)), quotaUsage: podQuotaUsage(p) }));
  const certain = reads.nodes !== undefined && hosts.every((h) => h.requestsFrom !== 'unknown') && settings.overcommitSource !== 'assumed';
  return { hosts, zones, settings, namespace: reads.namespace, quotas: quotasOf(reads.quotas), launchers, certain, warnings, readAt: reads.readAt };
}

/** A host's requested amounts keyed like the formulas' (cpu, memory, pods). */
export function amountsFromResources(r: Resources): Amounts {
  return { cpu: r.cpuMillis, memory: r.memoryBytes, pods: r.pods };
}

/** amountOf re-exported for callers that parse limits (memory strings) before calling fit. */
export { amountOf };
