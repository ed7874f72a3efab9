/**
 * Names a plan will take (VMs, their cloud-init Secrets, their disk claims) must not be held by an object
 * this pool does not own: a foreign `<vm>-cloudinit` Secret would otherwise be the user data the new VM
 * boots from. Checked at preview (check) and again right before apply writes anything (converge). Read-only:
 * one GET per name.
 */
import type { HarvesterClient } from '../../client/harvester-client';
import type { KubeObject } from '../../client/objects';
import { isOwnedBy } from '../../client/ownership';
import type { CheckFailure } from '../../core/types';
import type { DesiredPool } from './desired';
import { nameTaken, type NameHolder } from './errors';
import { ownershipLabels, poolOwner } from './labels';
import type { PlanStep } from './plan';

/** holderOf: what a failure may show of an object's owner (see nameTaken). */
export function holderOf(kind: NameHolder['kind'], namespace: string, object: KubeObject): NameHolder {
  return { kind, namespace, name: object.metadata.name ?? '', labels: object.metadata.labels, annotations: object.metadata.annotations };
}

/** plannedNameConflicts: one failure per object that holds a name the plan's creates need and is not ours. */
export async function plannedNameConflicts(client: HarvesterClient, desired: DesiredPool, steps: PlanStep[]): Promise<CheckFailure[]> {
  const { namespace, name } = desired.identity;
  const owner = poolOwner(desired.identity);
  const wanted: [NameHolder['kind'], string][] = [];
  for (const step of steps) {
    if (step.action !== 'create') continue;
    const m = step.machine;
    wanted.push(['Secret', m.secret.metadata.name as string], ['VirtualMachine', m.name]);
    for (const claim of m.claimNames) wanted.push(['PersistentVolumeClaim', claim]);
  }
  const resource = { VirtualMachine: client.virtualMachines, Secret: client.secrets, PersistentVolumeClaim: client.persistentVolumeClaims };
  const found = await Promise.all(wanted.map(async ([kind, n]) => {
    const live = (await resource[kind].get(n, namespace)) as KubeObject | undefined;
    return live && !isOwnedBy(live, owner) ? nameTaken(holderOf(kind, namespace, live), `${namespace}/${name}`, ownershipLabels(desired.identity)) : undefined;
  }));
  return found.filter((f): f is CheckFailure => f !== undefined);
}
