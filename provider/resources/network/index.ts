/**
 * HarvesterNetwork: a Harvester VM network (NetworkAttachmentDefinition). Model (model.ts) → rules and plan
 * (validate.ts, plan.ts; pure) → handlers.ts (the API), users.ts (who uses a network).
 */
export { createNetworkProvider, attachedHosts, type NetworkProvider, type NetworkProviderOptions } from './handlers';
export { networkSchema, networkOutputsSchema, SECRET_INPUTS, type NetworkInputs, type NetworkArgs, type NetworkOutputs } from './model';
export { desiredNetwork, liveInputs, driftOf, diffInputs, updatePatch } from './plan';
export { validateInputs } from './validate';
