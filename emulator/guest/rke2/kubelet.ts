/**
 * The Node an RKE2 node's kubelet registers, and its conditions over time (docs/design/guest-rke2.md §"Nodes"):
 *
 * - name: `node-name` from the config, else the hostname, which KubeVirt's NoCloud sets to the VM name;
 * - labels: the kubelet's own, `node-role.kubernetes.io/control-plane|etcd|master: "true"` on servers (k3s
 *   pkg/server/server.go and pkg/etcd: ControlPlaneRoleLabelKey, MasterRoleLabelKey, ETCDRoleLabelKey), then
 *   `node-label` entries;
 * - taints: `node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule` (RKE2 runs the kubelet with
 *   `--cloud-provider=external`; a cloud controller removes it), then `node-taint` entries;
 * - servers carry the etcd member annotations `etcd.rke2.cattle.io/node-name|node-address` (k3s pkg/etcd) that
 *   the member controller removes the member by;
 * - status: InternalIP (the VM's address) and Hostname, capacity from the VM, nodeInfo with the kubelet version =
 *   the RKE2 version (e.g. v1.32.5+rke2r1); first NotReady (no CNI yet), then Ready.
 */
import { KindInfo, KubeObject, Store } from '../../api/types';
import { clone, field, healthyNodeConditions, kubeletNodeLabels, timestamp, writeChanges } from '../../util/objects';
import { TAINT_UNINITIALIZED } from '../../util/names';
import { capacityOf } from '../guest-nodes';
import { parseNodeLabel, parseNodeTaint, Rke2Config } from './config';
import type { Rke2Role } from './install';

export const LABEL_CONTROL_PLANE = 'node-role.kubernetes.io/control-plane';
export const LABEL_ETCD = 'node-role.kubernetes.io/etcd';
export const LABEL_MASTER = 'node-role.kubernetes.io/master';
export const ANN_ETCD_NODE_NAME = 'etcd.rke2.cattle.io/node-name';
export const ANN_ETCD_NODE_ADDRESS = 'etcd.rke2.cattle.io/node-address';

/** What the kubelet knows when it registers. */
export interface KubeletInfo {
  nodeName: string;
  role: Rke2Role;
  version: string;
  ip: string;
  config: Rke2Config;
  vm: KubeObject;
  vmi: KubeObject | undefined;
  /** The etcd member name of a server. */
  memberName?: string;
}

function conditions(now: string, ready: 'True' | 'False' | 'Unknown'): Record<string, string>[] {
  if (ready === 'True') return healthyNodeConditions(now);
  if (ready === 'Unknown') {
    return ['MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready'].map((type) => ({
      type,
      status: 'Unknown',
      reason: 'NodeStatusUnknown',
      message: 'Kubelet stopped posting node status.',
      lastHeartbeatTime: now,
      lastTransitionTime: now,
    }));
  }
  return healthyNodeConditions(now).map((c) =>
    c.type === 'Ready'
      ? { ...c, status: 'False', reason: 'KubeletNotReady', message: 'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized' }
      : c,
  );
}

/** The Node object a kubelet registers (NotReady until the CNI is up). */
export function registeredNode(info: KubeletInfo, now: Date): KubeObject {
  const labels: Record<string, string> = { ...kubeletNodeLabels(info.nodeName) };
  const annotations: Record<string, string> = { 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' };
  if (info.role === 'server') {
    labels[LABEL_CONTROL_PLANE] = 'true';
    labels[LABEL_ETCD] = 'true';
    labels[LABEL_MASTER] = 'true';
    if (info.memberName) {
      annotations[ANN_ETCD_NODE_NAME] = info.memberName;
      annotations[ANN_ETCD_NODE_ADDRESS] = info.ip;
    }
  }
  for (const entry of info.config.nodeLabels) {
    const [k, v] = parseNodeLabel(entry);
    labels[k] = v;
  }
  const taints = [{ key: TAINT_UNINITIALIZED, value: 'true', effect: 'NoSchedule' }, ...info.config.nodeTaints.map(parseNodeTaint)];
  const capacity = capacityOf(info.vm);
  const stamp = timestamp(now);
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: info.nodeName, labels, annotations },
    spec: { taints },
    status: {
      addresses: [
        { type: 'InternalIP', address: info.ip },
        { type: 'Hostname', address: info.nodeName },
      ],
      capacity,
      allocatable: capacity,
      conditions: conditions(stamp, 'False'),
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        architecture: 'amd64',
        operatingSystem: 'linux',
        osImage: String(field(info.vmi, 'status', 'guestOSInfo', 'prettyName') ?? 'Ubuntu 22.04.4 LTS'),
        kernelVersion: String(field(info.vmi, 'status', 'guestOSInfo', 'kernelRelease') ?? '5.15.0-119-generic'),
        containerRuntimeVersion: 'containerd://1.7.27-k3s1',
        kubeletVersion: info.version,
        kubeProxyVersion: info.version,
        machineID: String(info.vm.metadata.uid).replace(/-/g, ''),
        systemUUID: String(info.vm.metadata.uid),
        bootID: String(info.vmi?.metadata.uid ?? info.vm.metadata.uid),
      },
    },
  };
}

/** Sets the Node's conditions (Ready True/False, or Unknown once its kubelet stopped reporting). */
export function setNodeReady(store: Store, kind: KindInfo, name: string, ready: 'True' | 'False' | 'Unknown', now: Date): void {
  const node = store.get(kind, undefined, name);
  if (!node) return;
  const current = (field<{ type: string; status: string }[]>(node, 'status', 'conditions') ?? []).find((c) => c.type === 'Ready');
  if (current?.status === ready) return;
  const desired = clone(node);
  desired.status = { ...((node.status ?? {}) as Record<string, unknown>), conditions: conditions(timestamp(now), ready) };
  writeChanges(store, kind, node, desired, { fieldManager: 'kubelet' });
}
