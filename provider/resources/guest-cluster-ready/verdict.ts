/**
 * Pure: what the guest's Nodes and Harvester's VMs say about each expected node. A node is done when its Node
 * exists, is Ready, and the Harvester cloud provider initialised it — providerID `harvester://<uid of the VM of
 * its name>` (cloud-provider-harvester instance.go) and no `node.cloudprovider.kubernetes.io/uninitialized` taint
 * (RKE2 runs kubelets with --cloud-provider=external, so every Node registers with it).
 */
import type { KubeObject, Node, VirtualMachine, VirtualMachineInstance } from '../../client/objects';
import type { GuestClusterReadyInputs, NodeStatus } from './model';

export const UNINITIALIZED_TAINT = 'node.cloudprovider.kubernetes.io/uninitialized';
const ZONE_LABEL = 'topology.kubernetes.io/zone';

/** What one read of the cluster holds. */
export interface ClusterView {
  nodes: Node[];
  vms: VirtualMachine[];
  vmis: VirtualMachineInstance[];
  /** The guest API could not be read: why. */
  guestError?: string;
}

const readyCondition = (node: Node | undefined) => node?.status?.conditions?.find((c) => c.type === 'Ready');
const byName = <T extends KubeObject>(items: T[]) => new Map(items.map((o) => [o.metadata.name ?? '', o]));

/** The status of every expected node, in the inputs' order. */
export function nodeStatuses(inputs: Pick<GuestClusterReadyInputs, 'namespace' | 'nodes'>, view: ClusterView): NodeStatus[] {
  const nodes = byName(view.nodes);
  const vms = byName(view.vms);
  const vmis = byName(view.vmis);
  return inputs.nodes.map(({ name, role }) => {
    const node = nodes.get(name);
    const vm = vms.get(name);
    const vmi = vmis.get(name);
    const ready = readyCondition(node);
    const providerId = node?.spec?.providerID as string | undefined;
    const tainted = ((node?.spec?.taints ?? []) as { key: string }[]).some((t) => t.key === UNINITIALIZED_TAINT);
    const initialised = Boolean(node && vm?.metadata.uid && providerId === `harvester://${vm.metadata.uid}` && !tainted);
    const status: NodeStatus = {
      name,
      role,
      vm: `${inputs.namespace}/${name}`,
      ready: ready?.status === 'True',
      initialised,
    };
    const host = vmi?.status?.nodeName as string | undefined;
    if (host) status.host = host;
    const zone = node?.metadata.labels?.[ZONE_LABEL];
    if (zone) status.zone = zone;
    const kubelet = (node?.status?.nodeInfo as { kubeletVersion?: string } | undefined)?.kubeletVersion;
    if (kubelet) status.kubeletVersion = kubelet;
    if (providerId) status.providerId = providerId;
    const waiting = waitingFor(name, { vm, node, ready, providerId, tainted, guestError: view.guestError });
    if (waiting) status.waitingFor = waiting;
    return status;
  });
}

function waitingFor(name: string, o: { vm?: VirtualMachine; node?: Node; ready?: { status: string; message?: string }; providerId?: string; tainted: boolean; guestError?: string }): string | undefined {
  if (!o.vm) return `VM ${name} does not exist`;
  if (o.guestError && !o.node) return `the guest API does not answer (${o.guestError})`;
  if (!o.node) return 'not registered (installing RKE2, or joining)';
  if (o.ready?.status !== 'True') return `NotReady${o.ready?.message ? `: ${o.ready.message}` : ''}`;
  if (o.tainted || !o.providerId) return 'not initialised by the Harvester cloud provider (uninitialized taint, no providerID)';
  if (o.providerId !== `harvester://${o.vm.metadata.uid}`) return `providerID ${o.providerId} is not this VM's (harvester://${o.vm.metadata.uid})`;
  return undefined;
}

/** True when every expected node is Ready and initialised. */
export const allUp = (statuses: NodeStatus[]) => statuses.every((s) => s.ready && s.initialised);

/** One progress line: how many are up, and what the others wait for. */
export function progressLine(statuses: NodeStatus[]): string {
  const up = statuses.filter((s) => s.ready && s.initialised).length;
  const waiting = statuses.filter((s) => s.waitingFor).map((s) => `${s.name}: ${s.waitingFor}`);
  return `${up}/${statuses.length} nodes Ready and initialised${waiting.length ? `; ${waiting.join('; ')}` : ''}`;
}
