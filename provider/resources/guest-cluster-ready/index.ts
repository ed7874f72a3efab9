/**
 * GuestClusterReady: a guest cluster is up when every expected Node is Ready and initialised by the Harvester cloud
 * provider; when one cannot come up, why. Model (model.ts) → verdicts (verdict.ts; pure) → diagnosis (diagnose.ts,
 * supervisor.ts) → handlers.ts.
 */
export { createGuestClusterReadyProvider, guestClusterReadyResource, type GuestClusterReadyProvider, type GuestClusterReadyProviderOptions } from './handlers';
export { guestClusterReadySchema, guestClusterReadyOutputsSchema, SECRET_INPUTS, type GuestClusterReadyArgs, type GuestClusterReadyInputs, type GuestClusterReadyOutputs, type NodeStatus } from './model';
export { nodeStatuses, allUp, UNINITIALIZED_TAINT, type ClusterView } from './verdict';
export { tokenInUserData } from './diagnose';
