/**
 * Observe: what exists of a pool, read with label-selected LISTs in the pool namespace (never per-VM
 * GETs): one of VirtualMachines and one of VirtualMachineInstances, whatever the pool's size, plus one of
 * cloud-init Secrets when apply heals them or read compares them. Never writes. Objects without the pool's ownership
 * labels are never listed, so never touched.
 */
import type { HarvesterClient } from '../../client/harvester-client';
import type { VirtualMachine } from '../../client/objects';
import { cloudInitSecretName } from './desired';
import { poolSelector, type PoolIdentity } from './labels';
import type { MachineStatus } from './outputs';
import { indexOf, type ObservedMachine } from './plan';
import { machineStatus, readinessOf } from './ready';

function usedClaims(vm: VirtualMachine): string[] {
  const volumes = (vm.spec?.template?.spec?.volumes ?? []) as { persistentVolumeClaim?: { claimName?: string } }[];
  return volumes.map((v) => v.persistentVolumeClaim?.claimName).filter((c): c is string => Boolean(c));
}

/** What observe saw. */
export interface PoolObservation {
  machines: ObservedMachine[];
  /** Output records, by index. */
  statuses: MachineStatus[];
  /** With `withVolumes`: the pool's live PVCs (by its labels) that no VM of the pool uses. */
  strayVolumes: string[];
}

/** observePool lists the pool's VMs and VMIs (and Secrets with `withSecrets`). */
export async function observePool(client: HarvesterClient, pool: PoolIdentity, options: { withSecrets?: boolean; withVolumes?: boolean } = {}): Promise<PoolObservation> {
  const selector = poolSelector(pool);
  const [vms, vmis, secrets, claims] = await Promise.all([
    client.virtualMachines.list({ namespace: pool.namespace, labelSelector: selector }),
    client.virtualMachineInstances.list({ namespace: pool.namespace, labelSelector: selector }),
    options.withSecrets ? client.secrets.list({ namespace: pool.namespace, labelSelector: selector }) : Promise.resolve(undefined),
    options.withVolumes ? client.persistentVolumeClaims.list({ namespace: pool.namespace, labelSelector: selector }) : Promise.resolve(undefined),
  ]);
  const vmiByName = new Map(vmis.items.map((v) => [v.metadata.name ?? '', v]));
  const secretByName = new Map((secrets?.items ?? []).map((s) => [s.metadata.name, s]));
  const machines: ObservedMachine[] = vms.items.map((vm) => {
    const name = vm.metadata.name ?? '';
    const vmi = vmiByName.get(name);
    return {
      name,
      index: indexOf(vm, pool.name),
      vm,
      vmi,
      // Without the Secrets list, assume present: read never heals, it only reports.
      secretExists: secrets ? secretByName.has(cloudInitSecretName(name)) : true,
      secret: secretByName.get(cloudInitSecretName(name)),
      ready: readinessOf(vmi).ready,
      deleting: Boolean(vm.metadata.deletionTimestamp),
    };
  });
  const statuses = machines.map((m) => machineStatus(m.vm, m.vmi, pool.name)).sort((a, b) => a.index - b.index);
  // Every claim a VM of the pool names (hot-plugged ones included) is in use; the rest of the pool's are stray.
  const used = new Set(vms.items.flatMap((vm) => usedClaims(vm)));
  const strayVolumes = (claims?.items ?? [])
    .filter((c) => !c.metadata.deletionTimestamp && !used.has(c.metadata.name ?? ''))
    .map((c) => c.metadata.name as string)
    .sort();
  return { machines, statuses, strayVolumes };
}
