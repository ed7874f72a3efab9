/**
 * The VirtualMachine controller: KubeVirt's virt-controller VM loop plus Harvester's VM controllers.
 *
 * On every VM change (and every change of its VMI):
 * 1. finalizers `kubevirt.io/virtualMachineControllerFinalize` and
 *    `wrangler.cattle.io/VMController.CleanupPVCAndSnapshot`; annotations `kubevirt.io/*-observed-api-version`,
 *    `harvesterhci.io/vmRunStrategy` (last non-Halted strategy, harvester vm_controller.go StoreRunStrategy) and
 *    `harvesterhci.io/mac-address` once the VMI reports NICs (vmi_network_controller.go);
 * 2. PVCs from `harvesterhci.io/volumeClaimTemplates` (vm-volumes.ts);
 * 3. run strategy Always/RerunOnFailure/Once (or running: true) → a VMI of the same name owned by the VM
 *    (controller: true); Halted (or running: false) → the VMI is deleted;
 * 4. the running VMI's labels follow the template's (Harvester SyncLabelsToVmi, vmi-label-sync.ts);
 * 5. status from the VMI (vm-status.ts).
 * On deletion: delete the VMI, wait for it to go, delete only the PVCs the VM names in
 * removedPersistentVolumeClaims (and, with
 * removeAllPersistentVolumeClaims, the guest cluster's cluster-type LoadBalancers, as load-balancer-harvester
 * pkg/controller/vm/controller.go does), then drop both finalizers. The VMI and cloud-init Secret otherwise go
 * by ownerReference GC (the store).
 */
import { Clock } from '../clock';
import { KubeObject, Store } from '../api/types';
import { HarvesterKinds } from './kinds';
import {
  ANN_KUBEVIRT_LATEST_API,
  ANN_KUBEVIRT_STORAGE_API,
  ANN_MAC_ADDRESS,
  ANN_REMOVE_ALL_PVCS,
  ANN_VM_RUN_STRATEGY,
  FINALIZER_KUBEVIRT_VM,
  FINALIZER_VM_CLEANUP,
  LABEL_GUEST_CLUSTER,
  LABEL_LB_CLUSTER,
} from '../util/names';
import {
  addFinalizer,
  annotationsOf,
  clone,
  deleteIfPresent,
  field,
  isDeleting,
  removeFinalizer,
  timestamp,
  writeChanges,
} from '../util/objects';
import { Controller, ErrorSink, splitKey } from './runtime';
import { desiredVmStatus, runStrategyOf, wantsRunning } from './vm-status';
import { ensureClaims, removeClaimsOfDeletedVm } from './vm-volumes';
import { syncedVmiLabels } from './vmi-label-sync';

const MANAGER = 'virt-controller';

/** Dependencies of the VM controller. */
export interface VmControllerContext {
  store: Store;
  kinds: HarvesterKinds;
  clock: Clock;
  errors?: ErrorSink;
}

function vmiFor(vm: KubeObject): KubeObject {
  const template = (field<Record<string, unknown>>(vm, 'spec', 'template') ?? {}) as Record<string, unknown>;
  const tmeta = (template.metadata ?? {}) as { labels?: Record<string, string>; annotations?: Record<string, string> };
  const metadata: KubeObject['metadata'] = {
    name: vm.metadata.name,
    namespace: vm.metadata.namespace,
    ownerReferences: [
      {
        apiVersion: 'kubevirt.io/v1',
        kind: 'VirtualMachine',
        name: String(vm.metadata.name),
        uid: String(vm.metadata.uid),
        controller: true,
        blockOwnerDeletion: true,
      },
    ],
  };
  if (tmeta.labels) metadata.labels = { ...tmeta.labels };
  if (tmeta.annotations) metadata.annotations = { ...tmeta.annotations };
  return { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachineInstance', metadata, spec: clone(template.spec ?? {}) };
}

function macAnnotation(vm: KubeObject, vmi: KubeObject | undefined): string | undefined {
  const interfaces = field<Record<string, unknown>[]>(vmi, 'status', 'interfaces') ?? [];
  const macs: Record<string, string> = {};
  for (const iface of interfaces) {
    if (typeof iface.name === 'string' && typeof iface.mac === 'string') macs[iface.name] = iface.mac;
  }
  if (Object.keys(macs).length === 0) return vm.metadata.annotations?.[ANN_MAC_ADDRESS];
  return JSON.stringify(macs);
}

function ownedBy(vmi: KubeObject, vm: KubeObject): boolean {
  return (vmi.metadata.ownerReferences ?? []).some((r) => r.uid === vm.metadata.uid);
}

/** Builds the VM controller (watching VMs and their VMIs). */
export function createVmController(ctx: VmControllerContext): Controller {
  const { store, kinds, clock } = ctx;

  function finalize(vm: KubeObject): void {
    const ns = String(vm.metadata.namespace);
    const name = String(vm.metadata.name);
    const vmi = store.get(kinds.vmi, ns, name);
    if (vmi && ownedBy(vmi, vm) && !isDeleting(vmi)) deleteIfPresent(store, kinds.vmi, ns, name);
    const stillThere = store.get(kinds.vmi, ns, name);
    const desired = clone(vm);
    desired.status = desiredVmStatus(vm, stillThere, timestamp(clock.now()));
    if (stillThere && ownedBy(stillThere, vm)) {
      writeChanges(store, kinds.vm, vm, desired, { fieldManager: MANAGER });
      return;
    }
    if (vm.metadata.finalizers?.includes(FINALIZER_VM_CLEANUP)) {
      removeClaimsOfDeletedVm(store, kinds, vm);
      const cluster = vm.metadata.labels?.[LABEL_GUEST_CLUSTER];
      if (vm.metadata.annotations?.[ANN_REMOVE_ALL_PVCS] === 'true' && cluster) {
        const lbs = store.list(kinds.loadBalancer, { namespace: ns, labelSelector: `${LABEL_LB_CLUSTER}=${cluster}` }).items;
        for (const lb of lbs) {
          if (field(lb, 'spec', 'workloadType') === 'cluster') deleteIfPresent(store, kinds.loadBalancer, ns, String(lb.metadata.name));
        }
      }
    }
    removeFinalizer(desired, FINALIZER_KUBEVIRT_VM);
    removeFinalizer(desired, FINALIZER_VM_CLEANUP);
    // Status first (the object may vanish once its last finalizer goes).
    const withStatus = writeChanges(store, kinds.vm, vm, { ...clone(vm), status: desired.status }, { fieldManager: MANAGER });
    const body = clone(withStatus);
    body.metadata.finalizers = desired.metadata.finalizers;
    writeChanges(store, kinds.vm, withStatus, body, { fieldManager: MANAGER });
  }

  function reconcile(key: string): void {
    const { namespace, name } = splitKey(key);
    let vm = store.get(kinds.vm, namespace, name);
    if (!vm) return;
    if (isDeleting(vm)) {
      finalize(vm);
      return;
    }
    let vmi = store.get(kinds.vmi, namespace, name);
    const strategy = runStrategyOf(vm);

    const meta = clone(vm);
    addFinalizer(meta, FINALIZER_KUBEVIRT_VM);
    addFinalizer(meta, FINALIZER_VM_CLEANUP);
    const annotations = annotationsOf(meta, true);
    annotations[ANN_KUBEVIRT_LATEST_API] = 'v1';
    annotations[ANN_KUBEVIRT_STORAGE_API] = 'v1';
    if (strategy !== 'Halted') annotations[ANN_VM_RUN_STRATEGY] = strategy;
    const macs = vmi && ownedBy(vmi, vm) ? macAnnotation(vm, vmi) : undefined;
    if (macs) annotations[ANN_MAC_ADDRESS] = macs;
    vm = writeChanges(store, kinds.vm, vm, meta, { fieldManager: MANAGER });

    ensureClaims(store, kinds, vm, 'harvester-vm-controller');

    const want = wantsRunning(strategy);
    if (want === true && !vmi) {
      vmi = store.create(kinds.vmi, vmiFor(vm), { fieldManager: MANAGER });
    } else if (want === false && vmi && ownedBy(vmi, vm) && !isDeleting(vmi)) {
      deleteIfPresent(store, kinds.vmi, namespace, name);
      vmi = store.get(kinds.vmi, namespace, name);
    }
    let mine = vmi && ownedBy(vmi, vm) ? vmi : undefined;
    const labels = mine && !isDeleting(mine) ? syncedVmiLabels(vm, mine) : undefined;
    if (mine && labels) {
      const relabelled = clone(mine);
      relabelled.metadata.labels = labels;
      mine = writeChanges(store, kinds.vmi, mine, relabelled, { fieldManager: MANAGER });
    }
    const desired = clone(vm);
    desired.status = desiredVmStatus(vm, mine, timestamp(clock.now()));
    writeChanges(store, kinds.vm, vm, desired, { fieldManager: MANAGER });
  }

  const controller = new Controller({ name: 'kubevirt-vm-controller', clock, errors: ctx.errors, reconcile });
  controller.watch(store, kinds.vm);
  controller.watch(store, kinds.vmi);
  return controller;
}
