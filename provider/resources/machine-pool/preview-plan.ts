/**
 * What check works from besides the inputs: the pool's objects as they are (one label-selected LIST each of its
 * VMs and VMIs, and of its cloud-init Secrets when a plan is made, whatever the pool's size) and, when every input
 * is known and the cluster checks resolved what desired.ts needs, the plan converge would make from them. The name
 * check (name-conflicts.ts) and the capacity check (capacity-check.ts) share it, so a preview lists the pool once.
 */
import type { HarvesterClient } from '../../client/harvester-client';
import { desiredVirtualMachines, type DesiredPool, type MachinePoolContext } from './desired';
import type { PoolIdentity } from './labels';
import type { MachinePoolInputs } from './model';
import { observePool, type PoolObservation } from './observe';
import { planPool, type Plan } from './plan';

/** The pool at preview: what exists, and converge's plan when it can be made. */
export interface PoolPreview {
  identity: PoolIdentity;
  observation: PoolObservation;
  /** converge's plan (recorded indexes aside: check does not see them), with the desired pool it was made for. */
  planned?: { desired: DesiredPool; plan: Plan };
}

/**
 * previewPool observes the pool and, given the inputs and a complete cluster context, plans as converge does.
 * `volumeSuffix` names the disks of planned creates (converge's is random; the names a plan takes are checked).
 */
export async function previewPool(
  client: HarvesterClient,
  identity: PoolIdentity,
  planFor?: { inputs: MachinePoolInputs; context: MachinePoolContext; volumeSuffix: (vm: string) => string },
): Promise<PoolPreview> {
  const observation = await observePool(client, identity, { withSecrets: planFor !== undefined });
  if (!planFor) return { identity, observation };
  const desired = desiredVirtualMachines(planFor.inputs, { ...planFor.context, volumeSuffix: planFor.volumeSuffix });
  return { identity, observation, planned: { desired, plan: planPool(desired, observation.machines) } };
}
