/**
 * Guest Nodes of the simulated RKE2 cluster, keyed by the Harvester VM name (Rancher runs kubelet with
 * `--hostname-override=<vm name>`, docs/design/harvester-vms.md §"Host names"):
 *
 * 1. kubelet registration (unless options.kubelet is false, when the RKE2 simulation registers the Nodes and
 *    this controller is the cloud provider only): once the VM's VMI is Running (after delays.nodeRegister), a Node named like the VM
 *    appears with taint `node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule` (kubelet
 *    `--cloud-provider=external`), status Ready and nodeInfo.kubeletVersion;
 * 2. cloud-node initialisation (k8s cloud-provider node controller + harvester-cloud-provider instances,
 *    docs/design/guest-cloud-provider.md §"Nodes and VMs", §"Topology labels"):
 *    while the taint is present (after delays.ccmInit) set providerID `harvester://<vm uid>`, InternalIP
 *    from the VMI's IPv4 + Hostname, region/zone labels (GA and beta) from the VMI annotations
 *    `topology.kubernetes.io/region|zone` (CCM ≥ v0.1.4 only), then remove the taint;
 * 3. addresses follow the VMI on every change (the node controller's periodic address sync);
 * 4. CCM ≥ v0.2.0 only (docs/design/guest-cloud-provider.md §"Topology labels", VMI controller OnVmiChanged):
 *    when a node-driver VMI's topology annotations differ from the initialised Node's labels, re-add the taint
 *    with PreferNoSchedule → step 2 runs again;
 *    below v0.2.0 labels are only set at initialisation;
 * 5. cloud-node-lifecycle: the Node is deleted once its VM is gone (InstanceExists = false).
 */
import { Clock } from '../clock';
import { KubeObject, Store } from '../api/types';
import { GuestKinds, HarvesterKinds } from '../controllers/kinds';
import {
  CREATOR_NODE_DRIVER,
  LABEL_CREATOR,
  LABEL_GUEST_CLUSTER,
  LABEL_REGION,
  LABEL_REGION_BETA,
  LABEL_ZONE,
  LABEL_ZONE_BETA,
  TAINT_UNINITIALIZED,
} from '../util/names';
import { clone, deleteIfPresent, field, healthyNodeConditions, isDeleting, kubeletNodeLabels, specOf, timestamp, writeChanges } from '../util/objects';
import { firstIPv4 } from '../controllers/vm-network';
import { parseQuantity } from '../util/quantity';
import { Controller, ErrorSink } from '../controllers/runtime';
import { ResolvedGuestOptions } from './options';

const PROVIDER_PREFIX = 'harvester://';

interface Taint {
  key: string;
  value?: string;
  effect: string;
}

/** Dependencies of the guest node controller. */
export interface GuestNodeContext {
  guest: Store;
  harvester: Store;
  guestKinds: GuestKinds;
  harvesterKinds: HarvesterKinds;
  clock: Clock;
  options: ResolvedGuestOptions;
  errors?: ErrorSink;
}

function addressesFor(name: string, vmi: KubeObject | undefined): { type: string; address: string }[] {
  const ip = firstIPv4(vmi);
  return [...(ip ? [{ type: 'InternalIP', address: ip }] : []), { type: 'Hostname', address: name }];
}

function taintsOf(node: KubeObject): Taint[] {
  return field<Taint[]>(node, 'spec', 'taints') ?? [];
}

/** A Node's capacity from its VM's CPU and memory (what the kubelet reports). */
export function capacityOf(vm: KubeObject): Record<string, string> {
  const cpu = field<Record<string, number>>(vm, 'spec', 'template', 'spec', 'domain', 'cpu') ?? {};
  const cores = (cpu.cores ?? 1) * (cpu.sockets ?? 1) * (cpu.threads ?? 1);
  const memory = parseQuantity(field(vm, 'spec', 'template', 'spec', 'domain', 'resources', 'limits', 'memory')) ?? 2 ** 32;
  return { cpu: String(cores), memory: `${Math.floor(memory / 1024)}Ki`, pods: '110', 'ephemeral-storage': '40901312Ki' };
}

/** Builds the guest node controller; keys are VM names. */
export function createGuestNodeController(ctx: GuestNodeContext): Controller {
  const { guest, harvester, guestKinds: gk, harvesterKinds: hk, clock, options } = ctx;
  const dueAt = new Map<string, { step: string; at: number }>();

  /** Waits `delay` for `step` of `name`; returns the remaining ms, or 0 when due. */
  function wait(name: string, step: string, delay: number): number {
    const now = clock.now().getTime();
    const entry = dueAt.get(name);
    if (!entry || entry.step !== step) {
      dueAt.set(name, { step, at: now + delay });
      return delay;
    }
    return Math.max(0, entry.at - now);
  }

  function register(name: string, vm: KubeObject, vmi: KubeObject | undefined): void {
    const now = timestamp(clock.now());
    const capacity = capacityOf(vm);
    const node: KubeObject = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name,
        labels: kubeletNodeLabels(name),
      },
      spec: { taints: [{ key: TAINT_UNINITIALIZED, value: 'true', effect: 'NoSchedule' }] },
    };
    const created = guest.create(gk.node, node, { fieldManager: 'kubelet' });
    writeChanges(
      guest,
      gk.node,
      created,
      {
        ...clone(created),
        status: {
          addresses: [{ type: 'Hostname', address: name }],
          capacity,
          allocatable: capacity,
          conditions: healthyNodeConditions(now),
          nodeInfo: {
            architecture: 'amd64',
            operatingSystem: 'linux',
            osImage: String(field(vmi, 'status', 'guestOSInfo', 'prettyName') ?? 'Ubuntu 22.04.4 LTS'),
            kernelVersion: String(field(vmi, 'status', 'guestOSInfo', 'kernelRelease') ?? '5.15.0-119-generic'),
            containerRuntimeVersion: 'containerd://1.7.17-k3s1',
            kubeletVersion: options.kubeletVersion,
            kubeProxyVersion: options.kubeletVersion,
            machineID: String(vm.metadata.uid).replace(/-/g, ''),
            systemUUID: String(vm.metadata.uid),
            bootID: String(vmi?.metadata.uid ?? vm.metadata.uid),
          },
        },
      },
      { fieldManager: 'kubelet' },
    );
  }

  function initialise(node: KubeObject, vm: KubeObject, vmi: KubeObject | undefined): void {
    const desired = clone(node);
    const spec = specOf(desired, true);
    spec.providerID ??= `${PROVIDER_PREFIX}${vm.metadata.uid}`;
    spec.taints = taintsOf(node).filter((t) => t.key !== TAINT_UNINITIALIZED);
    const labels = { ...(desired.metadata.labels ?? {}) };
    // Cloud providers below v0.1.4 return no region/zone from InstanceMetadata (cloud-provider-harvester#21).
    const ann = options.topologyCcm ? (vmi?.metadata.annotations ?? {}) : {};
    if (ann[LABEL_REGION]) {
      labels[LABEL_REGION] = ann[LABEL_REGION];
      labels[LABEL_REGION_BETA] = ann[LABEL_REGION];
    }
    if (ann[LABEL_ZONE]) {
      labels[LABEL_ZONE] = ann[LABEL_ZONE];
      labels[LABEL_ZONE_BETA] = ann[LABEL_ZONE];
    }
    desired.metadata.labels = labels;
    desired.status = { ...((node.status ?? {}) as Record<string, unknown>), addresses: addressesFor(String(node.metadata.name), vmi) };
    writeChanges(guest, gk.node, node, desired, { fieldManager: 'cloud-controller-manager' });
  }

  function topologyDiffers(node: KubeObject, vmi: KubeObject): boolean {
    if (vmi.metadata.labels?.[LABEL_CREATOR] !== CREATOR_NODE_DRIVER) return false;
    if (field(vmi, 'status', 'migrationState') && !field(vmi, 'status', 'migrationState', 'completed')) return false;
    const ann = vmi.metadata.annotations ?? {};
    const labels = node.metadata.labels ?? {};
    return [LABEL_REGION, LABEL_ZONE].some((k) => (ann[k] ?? '') !== (labels[k] ?? ''));
  }

  function reconcile(name: string): number | undefined {
    const vm = harvester.get(hk.vm, options.namespace, name);
    const node = guest.get(gk.node, undefined, name);
    // As the kubelets' stand-in, only the cluster's labelled VMs; as the cloud provider alone, any VM of its
    // namespace named like a Node (InstanceMetadata looks the VM up by the node name).
    const ours = vm && (!options.kubelet || vm.metadata.labels?.[LABEL_GUEST_CLUSTER] === options.clusterName);
    if (!ours) {
      dueAt.delete(name);
      const providerId = field<string>(node, 'spec', 'providerID');
      if (node && !vm && providerId?.startsWith(PROVIDER_PREFIX)) deleteIfPresent(guest, gk.node, undefined, name);
      return undefined;
    }
    const vmi = harvester.get(hk.vmi, options.namespace, name);
    const running = vmi && !isDeleting(vmi) && field(vmi, 'status', 'phase') === 'Running';
    if (!node) {
      if (!options.kubelet || !running || isDeleting(vm)) return undefined;
      const remaining = wait(name, 'register', options.delays.nodeRegister);
      if (remaining > 0) return remaining;
      dueAt.delete(name);
      register(name, vm, vmi);
      return undefined;
    }
    if (taintsOf(node).some((t) => t.key === TAINT_UNINITIALIZED)) {
      const remaining = wait(name, 'init', options.delays.ccmInit);
      if (remaining > 0) return remaining;
      dueAt.delete(name);
      initialise(node, vm, vmi);
      return undefined;
    }
    dueAt.delete(name);
    if (!vmi) return undefined;
    if (options.modernCcm && topologyDiffers(node, vmi)) {
      const desired = clone(node);
      specOf(desired, true).taints = [...taintsOf(node), { key: TAINT_UNINITIALIZED, value: 'true', effect: 'PreferNoSchedule' }];
      writeChanges(guest, gk.node, node, desired, { fieldManager: 'harvester-cloud-provider' });
      return undefined;
    }
    const addresses = addressesFor(name, vmi);
    if (firstIPv4(vmi)) {
      const desired = clone(node);
      desired.status = { ...((node.status ?? {}) as Record<string, unknown>), addresses };
      writeChanges(guest, gk.node, node, desired, { fieldManager: 'cloud-controller-manager' });
    }
    return undefined;
  }

  const controller = new Controller({ name: 'guest-node-lifecycle', clock, errors: ctx.errors, reconcile });
  const vmName = (o: KubeObject): string[] => (o.metadata.namespace === options.namespace ? [String(o.metadata.name)] : []);
  controller.watch(harvester, hk.vm, vmName);
  controller.watch(harvester, hk.vmi, vmName);
  controller.watch(guest, gk.node, (n) => [String(n.metadata.name)]);
  return controller;
}
