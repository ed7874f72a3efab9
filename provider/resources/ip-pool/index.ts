/**
 * HarvesterIPPool: a Harvester load-balancer IP pool. Model (model.ts) → rules and plan (validate.ts, plan.ts;
 * pure) → handlers.ts (the API).
 */
export { createIPPoolProvider, ipPoolResource, type IPPoolProvider, type IPPoolProviderOptions } from './handlers';
export { conflictsWithOthers } from './conflicts';
export { ipPoolSchema, ipPoolOutputsSchema, SECRET_INPUTS, type IPPoolInputs, type IPPoolArgs, type IPPoolOutputs } from './model';
export { desiredPool, liveInputs, driftOf } from './plan';
export { validateInputs } from './validate';
