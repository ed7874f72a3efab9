/**
 * The machine pool's read (refresh and import), from one observation (a LIST each of VMs, VMIs, cloud-init Secrets,
 * and PVCs when volumes go with their VMs): outputs per VM and inputs rebuilt from the cluster, in the shape of the
 * user's inputs (docs/design/dynamic-host-contract.md, trap 6), so the next preview shows exactly what changed.
 *
 * - Refresh: every input as recorded while the cluster agrees, the live value and a drift line where it does not;
 *   userData and networkData come back (secret, under their own names) when every VM's Secret holds what the
 *   recorded inputs render to (cloud-init-secret.ts); not from a record an import made (see the end of readBack).
 * - Import (`pulumi import` / `.get`: the id alone): everything the cluster records, taken from the VMs and a
 *   Secret; what it cannot know (timeouts, rollingUpdate, volumeDeletion, capacityCheck, guestAgent when the user data starts the
 *   agent itself, zones no VM sits in) is listed in `importGaps`, and diff takes the program's value for those.
 *   Importing a pool of which no VM exists answers "gone" (nothing to import).
 */
import { NOT_ON_CLUSTER } from '../../core/imported';
import { unfinishedLines } from '../../core/partial';
import type { ReadBack } from '../../core/reconciler/resource';
import { importCloudInit, readCloudInit } from './cloud-init-secret';
import type { ObservedPool } from './converge';
import { machinePoolSchema } from './model';
import { backendSelectorOf, type MachinePoolOutputs } from './outputs';
import { isInitMachine } from './desired';
import { reconstructInputs } from './reconstruct';

/** Inputs the cluster does not record: an import takes them from the program (diff.ts). */
export const NOT_ON_CLUSTER_POOL = [...NOT_ON_CLUSTER, 'rollingUpdate', 'volumeDeletion', 'capacityCheck'];

/** The input properties of outputs (what the engine diffs the program against), plus the secret inputs read back. */
function inputsOf(outs: MachinePoolOutputs, secrets: { userData?: string; networkData?: string; guestCredentials?: string; initUserData?: string }): Record<string, unknown> {
  const inputs: Record<string, unknown> = Object.fromEntries(Object.entries(outs).filter(([k]) => k in machinePoolSchema.shape));
  if (secrets.initUserData !== undefined) inputs.initUserData = secrets.initUserData;
  if (secrets.userData !== undefined) inputs.userData = secrets.userData;
  if (secrets.networkData !== undefined) inputs.networkData = secrets.networkData;
  if (secrets.guestCredentials !== undefined) inputs.guestCredentials = secrets.guestCredentials;
  return inputs;
}

/** The live VMs of an observation, by index (those being deleted left out). */
export const liveMachines = (live: ObservedPool) => live.observation.machines.filter((m) => !m.deleting).sort((a, b) => a.index - b.index);

/** The pool as it is against `previous` (recorded outputs, or only the pool's name on import). */
export function readBack(live: ObservedPool, previous: MachinePoolOutputs, importing: boolean): ReadBack<MachinePoolOutputs> | undefined {
  const observed = live.observation;
  const machines = liveMachines(live);
  // Nothing to import: answer "gone" rather than a pool of nothing (a recorded pool stays, to be healed).
  if (importing && machines.length === 0) return undefined;
  const { inputs: rebuilt, drift } = reconstructInputs(previous, machines.map((m) => m.vm), { importing });
  const readyCount = observed.statuses.filter((s) => s.ready).length;
  const backendSelector = backendSelectorOf(previous);

  if (importing) {
    const initVm = machines.find((m) => isInitMachine(m.vm));
    const { userData, networkData, guestCredentials, initUserData, guestAgent, ...digests } = importCloudInit(previous, machines.find((m) => m.secret)?.secret, initVm?.secret);
    const importGaps = [...NOT_ON_CLUSTER_POOL, 'zones', ...(guestAgent === undefined ? ['guestAgent'] : [])];
    const outs: MachinePoolOutputs = { ...previous, ...rebuilt, zones: rebuilt.zones ?? [], ...digests, machines: observed.statuses, readyCount, drift: [], backendSelector, importGaps };
    if (guestAgent) outs.guestAgent = guestAgent;
    if (initVm && initUserData !== undefined) outs.initMachine = initVm.name;
    else delete outs.initCloudInitHash;
    return { props: outs, inputs: inputsOf(outs, { userData, networkData, guestCredentials, initUserData }) };
  }

  const cloudInit = readCloudInit(previous, previous, machines);
  drift.push(...cloudInit.drift);
  for (const claim of observed.strayVolumes) {
    drift.push(`PersistentVolumeClaim ${previous.namespace}/${claim}: not used by any VM of the pool (its VM was deleted outside Pulumi); the next \`pulumi up\` deletes it`);
  }
  // A failed create/update stays visible until an up completes it (only converge clears this line).
  for (const line of unfinishedLines(previous.drift)) if (!drift.includes(line)) drift.push(line);
  // A recorded VM that is gone stays listed as Missing, so the update knows which index to recreate.
  const seen = new Set(observed.statuses.map((s) => s.name));
  const lost = (previous.machines ?? []).filter((m) => !seen.has(m.name)).map((m) => ({ name: m.name, index: m.index, zone: m.zone, phase: 'Missing', ready: false }));
  for (const m of lost) if (!drift.some((d) => d.includes(`/${m.name}:`))) drift.push(`VirtualMachine ${previous.namespace}/${m.name}: missing (deleted outside Pulumi)`);
  const all = [...observed.statuses, ...lost].sort((a, b) => a.index - b.index);
  const outs: MachinePoolOutputs = { ...previous, ...rebuilt, machines: all, readyCount, drift, backendSelector };
  // The VM made from initUserData, while it lives: once it is gone, initUserData concerns nothing (diff.ts).
  const initVm = machines.find((m) => isInitMachine(m.vm));
  if (initVm) outs.initMachine = initVm.name;
  else {
    delete outs.initMachine;
    delete outs.initCloudInitHash;
  }
  // A record from an import not yet updated may be a `.get` pool, whose state inputs hold no secret userData for
  // the engine to mark the value secret by, and a refresh stores read's inputs as they come: withheld until an
  // update records the program's inputs (the engine marks read's inputs secret only by the old inputs' names).
  return { props: outs, inputs: inputsOf(outs, previous.importGaps ? {} : cloudInit.inputs) };
}
