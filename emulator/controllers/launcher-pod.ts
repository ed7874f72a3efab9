/**
 * The virt-launcher pod KubeVirt's virt-controller renders for a VMI (kubevirt pkg/virt-controller/services/
 * template.go, renderresources.go, serialconsolelog.go, nodeselectorrenderer.go at v1.5.0; design notes in
 * docs/design/capacity.md):
 * - generateName `virt-launcher-<vmi>-`, labels `kubevirt.io: virt-launcher`, `kubevirt.io/created-by: <vmi
 *   uid>`, `vm.kubevirt.io/name` plus the VMI's own, owned by the VMI (controller);
 * - container `compute`: the VMI's requests and limits, the memory ones raised by KubeVirt's overhead
 *   (kubevirt-overhead.ts; not the request when `overcommitGuestOverhead`), a CPU request of vCPUs / 10 when the
 *   VMI has none (cpuAllocationRatio), 50M ephemeral storage, one each of devices.kubevirt.io/kvm, tun, vhost-net;
 * - container `guest-console-log` (serial console logging is on unless the VMI turns the serial console or its
 *   log off): requests 5m / 35M, limits 15m / 60M, requests = limits with dedicated CPUs;
 * - node selector: the VMI's, `kubevirt.io/schedulable: "true"`, `kubernetes.io/arch`, and `cpumanager: "true"`
 *   with dedicated CPUs; the VMI's affinity and tolerations; its PVCs as pod volumes.
 */
import { KubeObject } from '../api/types';
import { field, specOf } from '../util/objects';
import { addAmounts, Amounts, amountOf, amountsOf, formatAmount, formatOf } from '../util/resources';
import { memoryOverhead, vcpusOf } from './kubevirt-overhead';

/** Label KubeVirt puts on every virt-launcher pod. */
export const LAUNCHER_LABEL = 'kubevirt.io';
/** Label naming the VMI (by uid) a launcher pod was created for. */
export const CREATED_BY_LABEL = 'kubevirt.io/created-by';
const LAUNCHER_IMAGE = 'registry.suse.com/suse/sles/15.6/virt-launcher:1.5.0';
const DEVICES = ['devices.kubevirt.io/kvm', 'devices.kubevirt.io/tun', 'devices.kubevirt.io/vhost-net'];
const CPU_ALLOCATION_RATIO = 10;

/** What rendering needs beyond the VMI: the live overhead ratio and the KubeVirt release. */
export interface LauncherContext {
  kubevirtMinor: number;
  overheadRatio: string | undefined;
}

function consoleLogOn(spec: Record<string, unknown>): boolean {
  const devices = field<Record<string, unknown>>(spec, 'domain', 'devices') ?? {};
  if (devices.autoattachSerialConsole === false) return false;
  return devices.logSerialConsole !== false;
}

function computeResources(spec: Record<string, unknown>, ctx: LauncherContext): Record<string, Record<string, string>> {
  const resources = field<Record<string, unknown>>(spec, 'domain', 'resources') ?? {};
  const vmiRequests = (resources.requests ?? {}) as Record<string, string>;
  const vmiLimits = (resources.limits ?? {}) as Record<string, string>;
  const requests: Record<string, string> = { ...vmiRequests };
  const limits: Record<string, string> = { ...vmiLimits };
  const dedicated = field(spec, 'domain', 'cpu', 'dedicatedCpuPlacement') === true;
  if (requests.cpu === undefined && !dedicated) requests.cpu = formatAmount('cpu', Math.round((vcpusOf(spec) * 1000) / CPU_ALLOCATION_RATIO));
  if (dedicated && limits.cpu === undefined) limits.cpu = String(vcpusOf(spec));
  const overhead = memoryOverhead(spec, ctx.kubevirtMinor, ctx.overheadRatio);
  const memoryRequest = amountOf('memory', requests.memory ?? field(spec, 'domain', 'memory', 'guest'));
  if (memoryRequest !== undefined) {
    const withOverhead = resources.overcommitGuestOverhead === true ? memoryRequest : memoryRequest + overhead;
    requests.memory = formatAmount('memory', withOverhead, formatOf(requests.memory ?? field(spec, 'domain', 'memory', 'guest')));
  }
  const memoryLimit = amountOf('memory', limits.memory);
  if (memoryLimit !== undefined) limits.memory = formatAmount('memory', memoryLimit + overhead, formatOf(limits.memory));
  requests['ephemeral-storage'] = '50M';
  for (const device of DEVICES) {
    requests[device] = '1';
    limits[device] = '1';
  }
  return { requests, limits };
}

function consoleResources(dedicated: boolean): Record<string, Record<string, string>> {
  const limits = { cpu: '15m', memory: '60M' };
  return { requests: dedicated ? { ...limits } : { cpu: '5m', memory: '35M' }, limits };
}

/** The PVC claim names a VMI mounts (persistentVolumeClaim and dataVolume volumes). */
export function claimNamesOf(spec: Record<string, unknown>): string[] {
  return ((spec.volumes as Record<string, unknown>[] | undefined) ?? [])
    .map((v) => field<string>(v, 'persistentVolumeClaim', 'claimName') ?? field<string>(v, 'dataVolume', 'name'))
    .filter((c): c is string => Boolean(c));
}

function qosClass(containers: Record<string, unknown>[]): string {
  const all = containers.map((c) => field<Record<string, Record<string, string>>>(c, 'resources') ?? {});
  if (all.every((r) => Object.keys(r.requests ?? {}).length === 0 && Object.keys(r.limits ?? {}).length === 0)) return 'BestEffort';
  const guaranteed = all.every((r) =>
    ['cpu', 'memory'].every((k) => r.limits?.[k] !== undefined && amountOf(k, r.limits[k]) === amountOf(k, r.requests?.[k] ?? r.limits[k])),
  );
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/** A pod's QoS class, as the apiserver computes it on create (Guaranteed, Burstable, BestEffort). */
export function qosClassOf(pod: KubeObject): string {
  return qosClass(field<Record<string, unknown>[]>(pod, 'spec', 'containers') ?? []);
}

/** The launcher pod for a VMI (without a name: the apiserver generates it). */
export function renderLauncherPod(vmi: KubeObject, ctx: LauncherContext): KubeObject {
  const spec = specOf(vmi);
  const name = String(vmi.metadata.name);
  const dedicated = field(spec, 'domain', 'cpu', 'dedicatedCpuPlacement') === true;
  const containers: Record<string, unknown>[] = [
    { name: 'compute', image: LAUNCHER_IMAGE, command: ['/usr/bin/virt-launcher-monitor'], resources: computeResources(spec, ctx) },
  ];
  if (consoleLogOn(spec)) containers.push({ name: 'guest-console-log', image: LAUNCHER_IMAGE, command: ['/usr/bin/virt-tail'], resources: consoleResources(dedicated) });
  const nodeSelector: Record<string, string> = { ...((spec.nodeSelector as Record<string, string> | undefined) ?? {}), 'kubevirt.io/schedulable': 'true' };
  nodeSelector['kubernetes.io/arch'] = typeof spec.architecture === 'string' && spec.architecture ? spec.architecture : 'amd64';
  if (dedicated) nodeSelector.cpumanager = 'true';
  const podSpec: Record<string, unknown> = {
    containers,
    nodeSelector,
    schedulerName: 'default-scheduler',
    priority: 0,
    restartPolicy: 'Never',
    automountServiceAccountToken: false,
    hostname: name,
    terminationGracePeriodSeconds: Number(spec.terminationGracePeriodSeconds ?? 30) + 15,
    tolerations: [
      ...((spec.tolerations as unknown[] | undefined) ?? []),
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ],
    volumes: claimNamesOf(spec).map((claimName) => ({ name: claimName, persistentVolumeClaim: { claimName } })),
  };
  if (spec.affinity) podSpec.affinity = spec.affinity;
  if (spec.topologySpreadConstraints) podSpec.topologySpreadConstraints = spec.topologySpreadConstraints;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `virt-launcher-${name}-`,
      namespace: vmi.metadata.namespace,
      labels: { ...(vmi.metadata.labels ?? {}), [LAUNCHER_LABEL]: 'virt-launcher', [CREATED_BY_LABEL]: String(vmi.metadata.uid), 'vm.kubevirt.io/name': name },
      annotations: { 'kubevirt.io/domain': name, 'kubectl.kubernetes.io/default-container': 'compute' },
      ownerReferences: [{ apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachineInstance', name, uid: String(vmi.metadata.uid), controller: true, blockOwnerDeletion: true }],
    },
    spec: podSpec,
    status: { phase: 'Pending', qosClass: qosClass(containers) },
  };
}

/** Is the pod still holding its host's resources (not Succeeded or Failed)? */
export function podActive(pod: KubeObject): boolean {
  const phase = field<string>(pod, 'status', 'phase');
  return phase !== 'Succeeded' && phase !== 'Failed';
}

function containerSum(pod: KubeObject, which: 'requests' | 'limits'): Amounts {
  const containers = field<Record<string, unknown>[]>(pod, 'spec', 'containers') ?? [];
  const init = field<Record<string, unknown>[]>(pod, 'spec', 'initContainers') ?? [];
  const sum = addAmounts(...containers.map((c) => amountsOf(field(c, 'resources', which))));
  for (const c of init) {
    for (const [k, v] of Object.entries(amountsOf(field(c, 'resources', which)))) sum[k] = Math.max(sum[k] ?? 0, v);
  }
  return addAmounts(sum, amountsOf(field(pod, 'spec', 'overhead')));
}

// Stored objects are frozen and replaced on every write, so a pod's requests can be kept per object: the
// scheduler sums every pod of the cluster on each attempt.
const requestsCache = new WeakMap<KubeObject, Amounts>();

/** A pod's effective requests as the scheduler counts them (containers summed, init containers maxed, overhead), plus `pods: 1`. */
export function podRequests(pod: KubeObject): Amounts {
  const cached = requestsCache.get(pod);
  if (cached) return { ...cached };
  const requests = { ...containerSum(pod, 'requests'), pods: 1 };
  if (Object.isFrozen(pod)) requestsCache.set(pod, requests);
  return { ...requests };
}

/** A pod's limits summed the same way. */
export function podLimits(pod: KubeObject): Amounts {
  return containerSum(pod, 'limits');
}
