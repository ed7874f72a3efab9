/**
 * Harvester's `VMController.SyncLabelsToVmi` (harvester pkg/controller/master/virtualmachine/vm_controller.go
 * `syncLabels`): a running VMI follows its VM's `spec.template.metadata.labels` without a restart. Labels
 * whose key starts with `kubevirt.io` are left alone (KubeVirt's VMI update webhook forbids changing them);
 * every other label missing from the template is removed; `harvesterhci.io/maintain-mode-strategy` is copied
 * from the VM's own labels.
 */
import { KubeObject } from '../api/types';
import { field } from '../util/objects';

const KUBEVIRT_PREFIX = 'kubevirt.io';
const EXTRA_SYNCED = ['harvesterhci.io/maintain-mode-strategy'];

/** The labels the VMI should carry, or undefined when it already does. */
export function syncedVmiLabels(vm: KubeObject, vmi: KubeObject): Record<string, string> | undefined {
  const template = field<Record<string, string>>(vm, 'spec', 'template', 'metadata', 'labels') ?? {};
  const current = vmi.metadata.labels ?? {};
  const next: Record<string, string> = {};
  for (const [k, v] of Object.entries(current)) if (k.startsWith(KUBEVIRT_PREFIX) || k in template) next[k] = v;
  for (const [k, v] of Object.entries(template)) if (!k.startsWith(KUBEVIRT_PREFIX)) next[k] = v;
  for (const k of EXTRA_SYNCED) {
    const value = vm.metadata.labels?.[k];
    if (value !== undefined) next[k] = value;
  }
  const same = Object.keys(next).length === Object.keys(current).length && Object.entries(next).every(([k, v]) => current[k] === v);
  return same ? undefined : next;
}
