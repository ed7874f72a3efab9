/**
 * Observe: what exists of a pool, read with label-selected LISTs in the pool namespace (never per-VM
 * GETs): one of VirtualMachines and one of VirtualMachineInstances, whatever the pool's size, plus one of
 * cloud-init Secrets when apply heals them or read compares them. Never writes. Objects without the pool's ownership
 * labels are never listed, so never touched.
 */
import type { HarvesterClient } from '../../client/harvester-client';
import type { PersistentVolumeClaim, Secret, VirtualMachine, VirtualMachineInstance } from '../../client/objects';
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

/** The pool's objects as listed (or, for VMIs, as a watch holds them). */
export interface PoolObjects {
  vms: VirtualMachine[];
  vmis: VirtualMachineInstance[];
  /** Unset: not listed. */
  secrets?: Secret[];
  /** Unset: not listed. */
  claims?: PersistentVolumeClaim[];
}

/** listPoolObjects lists the pool's VMs (and, as asked, its VMIs, Secrets and PVCs) in parallel: one round trip. */
export async function listPoolObjects(
  client: HarvesterClient,
  pool: PoolIdentity,
  options: { withVmis?: boolean; withSecrets?: boolean; withVolumes?: boolean },
): Promise<Omit<PoolObjects, 'vmis'> & { vmis?: VirtualMachineInstance[] }> {
  const query = { namespace: pool.namespace, labelSelector: poolSelector(pool) };
  const [vms, vmis, secrets, claims] = await Promise.all([
    client.virtualMachines.list(query),
    options.withVmis ? client.virtualMachineInstances.list(query) : undefined,
    options.withSecrets ? client.secrets.list(query) : undefined,
    options.withVolumes ? client.persistentVolumeClaims.list(query) : undefined,
  ]);
  return { vms: vms.items, vmis: vmis?.items, secrets: secrets?.items, claims: claims?.items };
}

/** observePool lists the pool's VMs and VMIs (and Secrets with `withSecrets`, PVCs with `withVolumes`). */
export async function observePool(client: HarvesterClient, pool: PoolIdentity, options: { withSecrets?: boolean; withVolumes?: boolean } = {}): Promise<PoolObservation> {
  const listed = await listPoolObjects(client, pool, { ...options, withVmis: true });
  return observationOf(pool, { ...listed, vmis: listed.vmis ?? [] });
}

/** observationOf judges the pool's objects, however they were obtained (pure). */
export function observationOf(pool: PoolIdentity, objects: PoolObjects): PoolObservation {
  const { vms, vmis, secrets, claims } = objects;
  const vmiByName = new Map(vmis.map((v) => [v.metadata.name ?? '', v]));
  const secretByName = new Map((secrets ?? []).map((s) => [s.metadata.name, s]));
  const machines: ObservedMachine[] = vms.map((vm) => {
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
  const used = new Set(vms.flatMap((vm) => usedClaims(vm)));
  const strayVolumes = (claims ?? [])
    .filter((c) => !c.metadata.deletionTimestamp && !used.has(c.metadata.name ?? ''))
    .map((c) => c.metadata.name as string)
    .sort();
  return { machines, statuses, strayVolumes };
}
