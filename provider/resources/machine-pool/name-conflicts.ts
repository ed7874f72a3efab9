/**
 * Names a plan will take (VMs, their cloud-init Secrets, their disk claims) must not be held by an object
 * this pool does not own: a foreign `<vm>-cloudinit` Secret would otherwise be the user data the new VM
 * boots from. Checked right before apply writes anything (converge) and at preview (check) on the same plan,
 * so preview names what up would refuse. Read-only: one GET per name.
 */
import type { HarvesterClient } from '../../client/harvester-client';
import type { KubeObject } from '../../client/objects';
import { isOwnedBy } from '../../client/ownership';
import type { CheckFailure } from '../../core/types';
import { cloudInitSecretName, vmName, type DesiredPool } from './desired';
import { nameTaken, type NameHolder } from './errors';
import { ownershipLabels, poolOwner, type PoolIdentity } from './labels';
import type { MachinePoolInputs } from './model';
import type { PlanStep } from './plan';
import type { PoolPreview } from './preview-plan';

type WantedName = [NameHolder['kind'], string];

/** holderOf: what a failure may show of an object's owner (see nameTaken). */
export function holderOf(kind: NameHolder['kind'], namespace: string, object: KubeObject): NameHolder {
  return { kind, namespace, name: object.metadata.name ?? '', labels: object.metadata.labels, annotations: object.metadata.annotations };
}

/** One failure per wanted name held by an object that is not the pool's. */
async function takenNames(client: HarvesterClient, identity: PoolIdentity, wanted: WantedName[]): Promise<CheckFailure[]> {
  const { namespace, name } = identity;
  const owner = poolOwner(identity);
  const resource = { VirtualMachine: client.virtualMachines, Secret: client.secrets, PersistentVolumeClaim: client.persistentVolumeClaims };
  const found = await Promise.all(wanted.map(async ([kind, n]) => {
    const live = (await resource[kind].get(n, namespace)) as KubeObject | undefined;
    return live && !isOwnedBy(live, owner) ? nameTaken(holderOf(kind, namespace, live), `${namespace}/${name}`, ownershipLabels(identity)) : undefined;
  }));
  return found.filter((f): f is CheckFailure => f !== undefined);
}

/**
 * plannedNameConflicts: one failure per object that holds a name the plan's writes need and is not ours: the
 * VM, Secret and claims of each create, and the Secret of each member whose Secret is recreated.
 */
export async function plannedNameConflicts(client: HarvesterClient, desired: DesiredPool, steps: PlanStep[]): Promise<CheckFailure[]> {
  const wanted: WantedName[] = [];
  for (const step of steps) {
    if (step.action === 'ensureSecret') wanted.push(['Secret', step.machine.secret.metadata.name as string]);
    if (step.action !== 'create') continue;
    const m = step.machine;
    wanted.push(['Secret', m.secret.metadata.name as string], ['VirtualMachine', m.name]);
    for (const claim of m.claimNames) wanted.push(['PersistentVolumeClaim', claim]);
  }
  return takenNames(client, desired.identity, wanted);
}

/**
 * previewNameConflicts: at preview, the names the plan of this run would take, held by objects we do not own.
 * With a plan (a complete cluster context) they are converge's (recorded indexes aside: check does not see them, so
 * a VM lost out of band is planned at the lowest free index). Without one (another failure stops up anyway), the
 * names a create or scale-up would take first: `<name>-<i>` and its Secret at the lowest free indexes.
 */
export async function previewNameConflicts(client: HarvesterClient, inputs: MachinePoolInputs, preview: PoolPreview): Promise<CheckFailure[]> {
  if (preview.planned) return plannedNameConflicts(client, preview.planned.desired, preview.planned.plan.steps);
  const { machines } = preview.observation;
  const taken = new Set(machines.map((m) => m.index));
  const wanted: WantedName[] = [];
  let missing = inputs.count - machines.filter((m) => !m.deleting).length;
  for (let i = 0; missing > 0; i++) {
    if (taken.has(i)) continue;
    wanted.push(['VirtualMachine', vmName(inputs.name, i)], ['Secret', cloudInitSecretName(vmName(inputs.name, i))]);
    missing--;
  }
  return takenNames(client, preview.identity, wanted);
}
