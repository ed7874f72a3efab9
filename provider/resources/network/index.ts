/**
 * HarvesterNetwork: a Harvester VM network (NetworkAttachmentDefinition). Model (model.ts) → rules and plan
 * (validate.ts, plan.ts; pure) → cluster-rules.ts, users.ts (reads) → handlers.ts (on the reconciler).
 */
export { createNetworkProvider, networkResource, type NetworkProvider, type NetworkProviderOptions } from './handlers';
export { attachedHosts } from './cluster-rules';
export { networkSchema, networkOutputsSchema, SECRET_INPUTS, type NetworkInputs, type NetworkArgs, type NetworkOutputs } from './model';
export { desiredNetwork, liveInputs, updatePatch } from './plan';
export { validateInputs } from './validate';
