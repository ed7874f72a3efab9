/**
 * Harvester's `VMController.SetHaltIfInsufficientResourceQuota` (harvester pkg/controller/master/virtualmachine/
 * vm_controller.go, with pkg/util/resourcequota/calculator.go CheckIfVMCanStartByResourceQuota; v1.6.1):
 * a VM that has a status, is not Halted and has no pod yet is checked against its namespace's Rancher quota —
 * only when the namespace carries annotation `field.cattle.io/resourceQuota` (`{"limit":{"limitsCpu":…,
 * "limitsMemory":…}}`) and a ResourceQuota labelled `resourcequota.management.cattle.io/default-resource-quota:
 * "true"` exists. Room = the annotation's limit − that quota's `status.used` (limits.cpu / limits.memory); the VM
 * needs its limits.cpu and limits.memory plus KubeVirt's overhead (computed from the limits alone). Short →
 * the VM is stopped: annotation `harvesterhci.io/insufficient-resource-quota: <cpu|memory> insufficient
 * resources due to resource quota`, `spec.runStrategy: Halted`, Warning event InsufficientResourceQuota "Set
 * runStrategy to Halted: …". The annotation is removed again once the VM runs.
 * Not modelled: the VM validator's use of the same check on updates (a 500 when a stopped VM is started over
 * the quota), and the running migrations' share of the quota.
 */
import { KubeObject, Store } from '../api/types';
import { Clock } from '../clock';
import { clone, field, isDeleting } from '../util/objects';
import { amountOf } from '../util/resources';
import { EventRecorder } from './events';
import { HarvesterKinds } from './kinds';
import { memoryOverhead } from './kubevirt-overhead';
import { podActive } from './launcher-pod';
import { kubevirtMinor, liveOverheadRatio, serverVersion } from './overcommit';
import { Controller, ErrorSink, objectKey, splitKey } from './runtime';
import { runStrategyOf } from './vm-status';

export const ANN_INSUFFICIENT_QUOTA = 'harvesterhci.io/insufficient-resource-quota';
export const ANN_RANCHER_QUOTA = 'field.cattle.io/resourceQuota';
export const LABEL_DEFAULT_QUOTA = 'resourcequota.management.cattle.io/default-resource-quota';
const CONTROLLER = 'VMController.SetHaltIfInsufficientResourceQuota';

interface Context {
  store: Store;
  kinds: HarvesterKinds;
  clock: Clock;
  events: EventRecorder;
  errors?: ErrorSink;
}

function vmHasPod(ctx: Context, vm: KubeObject): boolean {
  return ctx.store
    .listShared(ctx.kinds.pod, { namespace: vm.metadata.namespace, labelSelector: `vm.kubevirt.io/name=${vm.metadata.name}` })
    .items.some(podActive);
}

/** CheckIfVMCanStartByResourceQuota: the refusal text, or undefined when the VM may start. */
export function quotaRefusal(ctx: Pick<Context, 'store' | 'kinds'> & Partial<Context>, vm: KubeObject): string | undefined {
  if (!field(vm, 'status', 'printableStatus') || runStrategyOf(vm) === 'Halted') return undefined;
  const ns = ctx.store.get(ctx.kinds.namespace, undefined, String(vm.metadata.namespace));
  let limit: Record<string, string> | undefined;
  try {
    limit = (JSON.parse(ns?.metadata.annotations?.[ANN_RANCHER_QUOTA] ?? 'null') as { limit?: Record<string, string> } | null)?.limit;
  } catch {
    return undefined;
  }
  if (!limit || (!limit.limitsCpu && !limit.limitsMemory && !limit.requestsStorage)) return undefined;
  const quota = ctx.store.listShared(ctx.kinds.resourceQuota, { namespace: vm.metadata.namespace, labelSelector: `${LABEL_DEFAULT_QUOTA}=true` }).items[0];
  if (!quota) return undefined;
  const used = (field<Record<string, string>>(quota, 'status', 'used') ?? {}) as Record<string, string>;
  const limits = (field<Record<string, string>>(vm, 'spec', 'template', 'spec', 'domain', 'resources', 'limits') ?? {}) as Record<string, string>;
  const overhead = memoryOverhead({ domain: { resources: { limits } } }, kubevirtMinor(serverVersion(ctx.store, ctx.kinds)), liveOverheadRatio(ctx.store, ctx.kinds));
  const cpuRoom = (amountOf('cpu', limit.limitsCpu) ?? 0) - (amountOf('cpu', used['limits.cpu']) ?? 0);
  if ((amountOf('cpu', limit.limitsCpu) ?? 0) !== 0 && cpuRoom < (amountOf('cpu', limits.cpu) ?? 0)) return 'cpu insufficient resources due to resource quota';
  const memRoom = (amountOf('memory', limit.limitsMemory) ?? 0) - (amountOf('memory', used['limits.memory']) ?? 0);
  if ((amountOf('memory', limit.limitsMemory) ?? 0) !== 0 && memRoom < (amountOf('memory', limits.memory) ?? 0) + overhead) return 'memory insufficient resources due to resource quota';
  return undefined;
}

/** The controller. */
export function createQuotaHaltController(ctx: Context): Controller {
  const { store, kinds } = ctx;
  const vmKeys = (namespace: string | undefined) => store.listShared(kinds.vm, { namespace }).items.map(objectKey);
  function reconcile(key: string): void {
    const { namespace, name } = splitKey(key);
    const vm = store.get(kinds.vm, namespace, name);
    if (!vm || isDeleting(vm) || !field(vm, 'spec', 'template')) return;
    const refusal = vmHasPod(ctx, vm) ? undefined : quotaRefusal(ctx, vm);
    const annotations = vm.metadata.annotations ?? {};
    if (refusal) {
      const stopped = clone(vm);
      stopped.metadata.annotations = { ...annotations, [ANN_INSUFFICIENT_QUOTA]: refusal };
      const spec = stopped.spec as Record<string, unknown>;
      delete spec.running;
      spec.runStrategy = 'Halted';
      store.update(kinds.vm, stopped, { fieldManager: 'harvester-vm-controller' });
      ctx.events.record({ regarding: vm, type: 'Warning', reason: 'InsufficientResourceQuota', message: `Set runStrategy to Halted: ${refusal}`, component: CONTROLLER });
      return;
    }
    const vmi = store.get(kinds.vmi, namespace, name);
    if (ANN_INSUFFICIENT_QUOTA in annotations && runStrategyOf(vm) !== 'Halted' && field(vmi, 'status', 'phase') === 'Running') {
      const cleaned = clone(vm);
      delete cleaned.metadata.annotations![ANN_INSUFFICIENT_QUOTA];
      store.update(kinds.vm, cleaned, { fieldManager: 'harvester-vm-controller' });
    }
  }
  const controller = new Controller({ name: 'harvester-vm-quota', clock: ctx.clock, errors: ctx.errors, reconcile });
  controller.watch(store, kinds.vm);
  controller.watch(store, kinds.vmi, (vmi) => [objectKey(vmi)]);
  controller.watch(store, kinds.resourceQuota, (q) => vmKeys(q.metadata.namespace));
  controller.watch(store, kinds.namespace, (ns) => vmKeys(String(ns.metadata.name)));
  return controller;
}
