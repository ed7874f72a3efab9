/**
 * GuestClusterCredentials: the Harvester credentials of a guest cluster's cloud provider and CSI driver, made as
 * Harvester's generator makes them. Model (model.ts) → names and plan (names.ts, validate.ts, plan.ts; pure) →
 * apply.ts (the writes) → handlers.ts (on the reconciler).
 */
export { createGuestClusterCredentialsProvider, guestClusterCredentialsResource, type GuestClusterCredentialsProvider, type GuestClusterCredentialsProviderOptions } from './handlers';
export {
  guestClusterCredentialsSchema, guestClusterCredentialsOutputsSchema, SECRET_INPUTS,
  type GuestClusterCredentialsInputs, type GuestClusterCredentialsArgs, type GuestClusterCredentialsOutputs,
} from './model';
export { CLOUD_PROVIDER_ROLE, CSI_DRIVER_ROLE, GUEST_CONFIG_PATHS, GUEST_CONFIG_MODE, credentialNames, guestWriteFiles, renderCloudInit, renderKubeconfig, safeConcatName } from './names';
export { desiredServiceAccount, desiredTokenSecret, desiredRoleBinding, desiredClusterRoleBinding, driftOf, liveInputs } from './plan';
export { validateInputs } from './validate';
