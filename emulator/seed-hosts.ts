/**
 * The seeded Harvester hosts: Node objects with capacity and allocatable as a Harvester install reports them,
 * and one pod per host standing for Harvester's own system pods (design notes: docs/design/capacity.md §hosts).
 *
 * - capacity: the host's cores, memory, max pods (Harvester's installer sets 200: harvester-installer
 *   pkg/config/config.go MaxPods), ephemeral storage, and KubeVirt's device plugins (1k each of
 *   devices.kubevirt.io/kvm, tun, vhost-net);
 * - allocatable: cpu − the installer's reservation (calculateCPUReservedInMilliCPU: 6% of the first core, 1% of
 *   the second, 0.5% of the third and fourth, 0.25% of each further core, +400m when max pods > 110; the
 *   whole doubled and split 2:3 into system-reserved and kube-reserved), memory = capacity (RKE2's kubelet has no
 *   memory eviction threshold and Harvester reserves no memory), ephemeral storage − 5% (nodefs.available<5%);
 * - labels: the kubelet's, the control-plane roles, `kubevirt.io/schedulable: "true"` (virt-handler's),
 *   `network.harvesterhci.io/mgmt: "true"`, region and zone;
 * - the system pod (`kube-system/harvester-system-<host>`, Running, bound) requests what Harvester's pods
 *   (Longhorn, KubeVirt, monitoring, Rancher…) request together on a host, so free capacity is below
 *   allocatable as on a real cluster. It is an emulator stand-in; set `systemRequests: null` to leave it out.
 */
import { createHash } from 'node:crypto';
import { KubeObject } from './api/types';
import { LABEL_REGION, LABEL_ZONE } from './util/names';
import { healthyNodeConditions, kubeletNodeLabels } from './util/objects';
import { amountOf, formatAmount } from './util/resources';

/** A host to seed. */
export interface SeedNode {
  name: string;
  /** Extra labels; region/zone/hostname are set from the fields below. */
  labels?: Record<string, string>;
  region?: string;
  zone?: string;
  /** InternalIP. @default 10.0.0.1x */
  address?: string;
  /** Cores (capacity). @default "64" */
  cpu?: string;
  /** Memory (capacity). @default "1056561152Ki" (a 1 TiB host) */
  memory?: string;
  /** Max pods (kubelet --max-pods). @default 200 */
  pods?: number;
  /** Requests of the host's system pods, or null for none. @default { cpu: "1360m", memory: "2240Mi" } */
  systemRequests?: { cpu?: string; memory?: string } | null;
  /** Taints (e.g. a witness node's `node-role.kubernetes.io/etcd=true:NoExecute`). @default none */
  taints?: { key: string; value?: string; effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute' }[];
  /** Cordoned (spec.unschedulable). @default false */
  unschedulable?: boolean;
}

/** Defaults of a seeded host's size. */
export const DEFAULT_HOST = { cpu: '64', memory: '1056561152Ki', pods: 200, systemRequests: { cpu: '1360m', memory: '2240Mi' } } as const;

/** Harvester installer's CPU reservation (system + kube reserved) in millicores for `cores` and `maxPods`. */
export function reservedMilliCpu(cores: number, maxPods: number): number {
  if (cores <= 0 || maxPods <= 0) return 0;
  let reserved = 6 / 100;
  if (cores > 1) reserved += 1 / 100;
  if (cores > 2) reserved += (2 * 0.5) / 100;
  if (cores > 4) reserved += ((cores - 4) * 0.25) / 100;
  if (maxPods > 110) reserved += 0.4;
  const base = Math.trunc(reserved * 1000);
  return Math.trunc((base * 2 * 2) / 5) + Math.trunc((base * 2 * 3) / 5);
}

/** The Node object of a seeded host. */
export function hostNode(node: SeedNode, now: string): KubeObject {
  const labels: Record<string, string> = {
    ...kubeletNodeLabels(node.name),
    'node-role.kubernetes.io/control-plane': 'true',
    'node-role.kubernetes.io/etcd': 'true',
    'node-role.kubernetes.io/master': 'true',
    'network.harvesterhci.io/mgmt': 'true',
    'harvesterhci.io/managed': 'true',
    'kubevirt.io/schedulable': 'true',
  };
  if (node.region) labels[LABEL_REGION] = node.region;
  if (node.zone) labels[LABEL_ZONE] = node.zone;
  Object.assign(labels, node.labels ?? {});
  const cpu = node.cpu ?? DEFAULT_HOST.cpu;
  const pods = node.pods ?? DEFAULT_HOST.pods;
  const ephemeral = 250059756 * 1024;
  const devices = { 'devices.kubevirt.io/kvm': '1k', 'devices.kubevirt.io/tun': '1k', 'devices.kubevirt.io/vhost-net': '1k' };
  const capacity = { cpu, memory: node.memory ?? DEFAULT_HOST.memory, pods: String(pods), 'ephemeral-storage': '250059756Ki', 'hugepages-1Gi': '0', 'hugepages-2Mi': '0', ...devices };
  const cores = Math.ceil((amountOf('cpu', cpu) ?? 0) / 1000);
  const allocatable = {
    ...capacity,
    cpu: formatAmount('cpu', (amountOf('cpu', cpu) ?? 0) - reservedMilliCpu(cores, pods)),
    'ephemeral-storage': formatAmount('ephemeral-storage', Math.floor(ephemeral * 0.95), 'DecimalSI'),
  };
  const spec: Record<string, unknown> = { providerID: `rke2://${node.name}`, podCIDR: '10.52.0.0/24', podCIDRs: ['10.52.0.0/24'] };
  if (node.taints?.length) spec.taints = node.taints.map((t) => ({ ...t }));
  if (node.unschedulable) spec.unschedulable = true;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: node.name, labels, annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' } },
    spec,
    status: {
      addresses: [
        { type: 'InternalIP', address: node.address ?? '10.0.0.10' },
        { type: 'Hostname', address: node.name },
      ],
      capacity,
      allocatable,
      conditions: healthyNodeConditions(now),
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        architecture: 'amd64',
        operatingSystem: 'linux',
        osImage: 'Harvester v1.6.1',
        kernelVersion: '5.14.21-150500.55.100-default',
        containerRuntimeVersion: 'containerd://1.7.27-k3s1',
        kubeletVersion: 'v1.32.7+rke2r1',
        kubeProxyVersion: 'v1.32.7+rke2r1',
        machineID: createHash('md5').update(node.name).digest('hex'),
        systemUUID: createHash('md5').update(`uuid/${node.name}`).digest('hex'),
        bootID: createHash('md5').update(`boot/${node.name}`).digest('hex'),
      },
    },
  };
}

/** The pod standing for a host's system pods, or undefined when the host has none. */
export function hostSystemPod(node: SeedNode, now: string): KubeObject | undefined {
  const requests = node.systemRequests === undefined ? DEFAULT_HOST.systemRequests : node.systemRequests;
  if (!requests) return undefined;
  const resources = { requests: { ...requests } };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `harvester-system-${node.name}`,
      namespace: 'kube-system',
      labels: { app: 'harvester-system', 'emulator.harvester-iac.io/stand-in': 'true' },
      annotations: { 'emulator.harvester-iac.io/stands-for': "the summed requests of Harvester's own pods on this host (Longhorn, KubeVirt, monitoring, Rancher)" },
    },
    spec: { nodeName: node.name, containers: [{ name: 'system', image: 'registry.suse.com/suse/pause:3.10', resources }], restartPolicy: 'Always', priority: 2000001000, priorityClassName: 'system-node-critical' },
    status: {
      phase: 'Running',
      qosClass: 'Burstable',
      startTime: now,
      conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: now })),
      containerStatuses: [{ name: 'system', image: 'registry.suse.com/suse/pause:3.10', imageID: '', ready: true, started: true, restartCount: 0, state: { running: { startedAt: now } } }],
      hostIP: node.address ?? '10.0.0.10',
      podIP: node.address ?? '10.0.0.10',
    },
  };
}
