/**
 * GuestClusterIdentity: what an RKE2 guest cluster is born with — CAs, service-account key, join tokens, the admin
 * kubeconfig and the settings every server shares. Model (model.ts) → PKI and plan (pki.ts, plan.ts, validate.ts;
 * pure) → handlers.ts (the API).
 */
export { createGuestClusterIdentityProvider, guestClusterIdentityResource, type GuestClusterIdentityProvider, type GuestClusterIdentityProviderOptions } from './handlers';
export {
  guestClusterIdentitySchema, guestClusterIdentityOutputsSchema, CNI_PLUGINS, SECRET_INPUTS,
  type GuestClusterIdentityArgs, type GuestClusterIdentityInputs, type GuestClusterIdentityOutputs,
} from './model';
export { secretNameOf, identityOwner, adminUserOf } from './plan';
export { caHashOf, generatePki, issueAdminCertificate, type ClusterPki, type KeyPairPem } from './pki';
export { clusterDnsOf, validateInputs } from './validate';
