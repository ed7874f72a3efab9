/**
 * Guest verification: each guest node mapped to its VM and host the way the Harvester cloud provider does it
 * (docs/design/guest-cloud-provider.md §"Nodes and VMs", cloud-provider-harvester
 * pkg/cloud-controller-manager/instance.go): the VM is the one named like the node in the guest's namespace
 * (providerID `harvester://<vm uid>` confirms it), its host is the VMI's status.nodeName, and the region/zone it
 * should carry are that host's labels, which Harvester copies to the VMI annotations (only for node-driver VMIs,
 * only on a VMI change) and the cloud provider copies to the node. Reads only; the wait watches the guest's Nodes.
 */
import { waitFor } from '../../await/awaiter';
import type { Clock } from '../../await/clock';
import { HarvesterError } from '../../client/errors';
import type { HarvesterClient } from '../../client/harvester-client';
import type { KubeObject, Node } from '../../client/objects';
import { ProviderError } from '../../core/errors';
import { KEY_NAMES, TOPOLOGY_KEYS, type GuestNodeStatus } from './model';
import { liveValue, type LiveHost } from './plan';
import { compareVersions, parseVersion } from '../../core/versions';
import { syncSupport, type SyncSupport } from './versions';
import { cloudProviderVersion } from '../../core/guest-cloud-provider';

const CREATOR_LABEL = 'harvesterhci.io/creator';
const NODE_DRIVER = 'docker-machine-driver-harvester';
const PROVIDER_PREFIX = 'harvester://';

/** What the guest looks like now. */
export interface GuestObservation {
  nodes: GuestNodeStatus[];
  versions: { rke2: string | null; cloudProvider: string | null };
  support: SyncSupport;
}

const get = (o: unknown, ...path: string[]): unknown => path.reduce<unknown>((c, k) => (c && typeof c === 'object' ? (c as Record<string, unknown>)[k] : undefined), o);

/** The lowest kubelet version among the nodes (RKE2 reports `v1.28.10+rke2r1`). */
export function lowestKubelet(nodes: Node[]): string | undefined {
  let lowest: string | undefined;
  for (const n of nodes) {
    const v = get(n, 'status', 'nodeInfo', 'kubeletVersion');
    if (typeof v !== 'string') continue;
    const parsed = parseVersion(v);
    const current = lowest ? parseVersion(lowest) : undefined;
    if (lowest === undefined || (parsed && current && compareVersions(parsed, current) < 0)) lowest = v;
  }
  return lowest;
}

/** The guest node statuses (pure): `vms` and `vmis` by name in the guest namespace, `hosts` by name. */
export function guestNodeStatuses(
  nodes: Node[],
  vms: Map<string, KubeObject>,
  vmis: Map<string, KubeObject>,
  hosts: Map<string, LiveHost>,
  namespace: string,
  resyncs: boolean,
): GuestNodeStatus[] {
  return nodes
    .map((node): GuestNodeStatus => {
      const name = node.metadata.name ?? '';
      const labels = node.metadata.labels ?? {};
      const vm = vms.get(name);
      const vmi = vmis.get(name);
      const hostName = typeof get(vmi, 'status', 'nodeName') === 'string' ? (get(vmi, 'status', 'nodeName') as string) : null;
      const host = hostName ? hosts.get(hostName) : undefined;
      const status: GuestNodeStatus = {
        name,
        vm: vm ? `${namespace}/${name}` : null,
        host: hostName,
        expectedRegion: host ? liveValue(host, 'region') : null,
        expectedZone: host ? liveValue(host, 'zone') : null,
        actualRegion: labels[TOPOLOGY_KEYS.region] ?? null,
        actualZone: labels[TOPOLOGY_KEYS.zone] ?? null,
        inSync: false,
        reason: '',
      };
      status.inSync = Boolean(host) && status.expectedRegion === status.actualRegion && status.expectedZone === status.actualZone;
      if (status.inSync) return status;
      const providerID = get(node, 'spec', 'providerID');
      if (!vm) {
        status.reason = `no VM ${namespace}/${name}: the Harvester cloud provider finds a guest node's VM by the node's name in its namespace. Check guestNamespace, and that the guest's hostnames are the VM names.`;
      } else if (typeof providerID === 'string' && providerID.startsWith(PROVIDER_PREFIX) && providerID !== `${PROVIDER_PREFIX}${vm.metadata.uid}`) {
        status.reason = `its providerID ${providerID} names another VM than ${namespace}/${name} (uid ${vm.metadata.uid}): the node belongs to a VM that was replaced; the cloud provider removes it.`;
      } else if (!hostName || !host) {
        status.reason = `VM ${namespace}/${name} is not running on a host${hostName ? ` (host ${hostName} is not a Node of the Harvester cluster)` : ''}, so it has no zone to take.`;
      } else if (vm.metadata.labels?.[CREATOR_LABEL] !== NODE_DRIVER) {
        status.reason = `VM ${namespace}/${name} lacks label ${CREATOR_LABEL}=${NODE_DRIVER}, so Harvester never copies its host's labels to it. Create guest VMs with the node driver or a HarvesterMachinePool.`;
      } else {
        const ann = vmi?.metadata.annotations ?? {};
        const stale = KEY_NAMES.filter((k) => (ann[TOPOLOGY_KEYS[k]] ?? null) !== liveValue(host, k));
        if (stale.length) {
          status.reason = `the VMI still carries ${stale.map((k) => `${k} ${JSON.stringify(ann[TOPOLOGY_KEYS[k]] ?? null)}`).join(', ')}: Harvester copies host ${hostName}'s labels to a VMI only when the VMI changes (a migration or restart).`;
        } else if (resyncs) {
          status.reason = 'the cloud provider has not re-initialised the node yet (it re-syncs when it sees the VMI change).';
        } else {
          status.reason = 'this cloud provider version copies labels only when the node is initialised, so this node keeps its old values (rebuild the node, or upgrade the cloud provider to v0.2.0 or later).';
        }
      }
      return status;
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** observeGuest: the guest nodes with their VMs and hosts, and the guest's versions. */
export async function observeGuest(harvester: HarvesterClient, guest: HarvesterClient, hosts: Map<string, LiveHost>, namespace: string, cloudProviderOverride?: string): Promise<GuestObservation> {
  const [nodes, vms, vmis, ccm] = await Promise.all([
    guest.nodes.list(),
    harvester.virtualMachines.list({ namespace }),
    harvester.virtualMachineInstances.list({ namespace }),
    cloudProviderVersion(guest, cloudProviderOverride),
  ]);
  const rke2 = lowestKubelet(nodes.items);
  const support = syncSupport(rke2, ccm);
  const byName = (items: KubeObject[]) => new Map(items.map((o) => [o.metadata.name ?? '', o]));
  return {
    nodes: guestNodeStatuses(nodes.items, byName(vms.items), byName(vmis.items), hosts, namespace, support.resyncs),
    versions: { rke2: rke2 ?? null, cloudProvider: ccm ?? null },
    support,
  };
}

/** Options of waitForGuestSync. */
export interface GuestWait {
  timeoutMs: number;
  timeoutText: string;
  clock?: Clock;
  onProgress?: (line: string) => void;
}

/**
 * waitForGuestSync: refuses at once when the versions cannot sync or (cloud provider < v0.2.0) a node is out of
 * sync already, else watches the guest Nodes until each carries its host's region and zone.
 */
export async function waitForGuestSync(guest: HarvesterClient, observed: GuestObservation, o: GuestWait): Promise<GuestNodeStatus[]> {
  if (observed.support.refusals.length) {
    throw new ProviderError('GuestCannotSync', `The guest cluster cannot sync topology labels: ${observed.support.refusals.join(' ')}`, {
      fix: 'Set waitForGuestSync to false to only report the guest nodes.',
    });
  }
  const pending = observed.nodes.filter((n) => !n.inSync);
  if (pending.length === 0) return observed.nodes;
  if (!observed.support.resyncs && observed.versions.cloudProvider !== null) {
    throw new ProviderError(
      'GuestCannotSync',
      `Guest nodes ${pending.map((n) => n.name).join(', ')} are out of sync and will stay so: ${observed.support.notes.join(' ')}`,
      { fix: 'Set waitForGuestSync to false to only report the guest nodes.' },
    );
  }
  const expected = new Map(observed.nodes.map((n) => [n.name, n]));
  const matches = (node: Node) => {
    const want = expected.get(node.metadata.name ?? '');
    const labels = node.metadata.labels ?? {};
    return !want || (want.host !== null && (labels[TOPOLOGY_KEYS.region] ?? null) === want.expectedRegion && (labels[TOPOLOGY_KEYS.zone] ?? null) === want.expectedZone);
  };
  const done = await waitFor({
    resource: guest.nodes,
    check: (nodes) => {
      const behind = nodes.filter((n) => !matches(n));
      return {
        done: behind.length === 0,
        description: `${nodes.length - behind.length}/${nodes.length} guest nodes carry their host's region and zone`,
        pending: behind.map((n) => `${n.metadata.name}: ${expected.get(n.metadata.name ?? '')?.reason ?? 'new node'}`),
      };
    },
    timeoutMs: o.timeoutMs,
    what: 'every guest node to carry its host\'s region and zone',
    timeoutOption: 'guestSyncTimeout',
    clock: o.clock,
    onProgress: o.onProgress,
  });
  const byName = new Map(done.map((n) => [n.metadata.name ?? '', n]));
  return observed.nodes.map((n) => {
    const node = byName.get(n.name);
    if (!node) return n;
    const labels = node.metadata.labels ?? {};
    return { ...n, actualRegion: labels[TOPOLOGY_KEYS.region] ?? null, actualZone: labels[TOPOLOGY_KEYS.zone] ?? null, inSync: true, reason: '' };
  });
}
