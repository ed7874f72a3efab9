/**
 * HarvesterMachinePool: a pool of guest-node VMs on Harvester, compatible with what the node driver
 * creates. Model (model.ts) → plan (desired.ts, plan.ts, pure) → apply (observe.ts, apply.ts, ready.ts, converge.ts)
 * and read (read.ts, read-back.ts); handlers.ts puts them on the reconciler.
 */
export { createMachinePoolProvider, machinePoolResource, type MachinePoolProvider, type MachinePoolProviderOptions } from './handlers';
export {
  machinePoolSchema, diskSchema, networkSchema, affinitySchema, SECRET_INPUTS, REPLACE_INPUTS,
  type MachinePoolInputs, type MachinePoolArgs, type DiskInputs, type NetworkInputs, type AffinityInputs,
} from './model';
export type { MachinePoolOutputs, MachineStatus } from './outputs';
export { desiredVirtualMachines, type DesiredPool, type DesiredMachine, type MachinePoolContext } from './desired';
export { planPool, type Plan, type PlanStep, type ObservedMachine } from './plan';
export { validateInputs } from './validate';
export { renderUserData } from './cloud-config';
