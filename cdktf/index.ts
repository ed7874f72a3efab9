/**
 * harvester-iac/cdktf: CDK for Terraform constructs of the same resources, built from the same zod models and
 * pure desired-object functions as the Pulumi provider. Needs `cdktf@0.21`, `constructs@10` and
 * `@cdktf/provider-kubernetes@12.1.1` (peer dependencies: CDKTF is deprecated upstream, so this adapter stays in
 * its own folder; nothing else in the package imports it).
 */
export { HarvesterMachinePool, type HarvesterMachinePoolProps } from './machine-pool';
export { TopologyLabels, type TopologyLabelsProps } from './topology-labels';
export { HarvesterIPPool, HarvesterLoadBalancer, type HarvesterIPPoolProps, type HarvesterLoadBalancerProps } from './load-balancer';
export { GuestClusterCredentials, type GuestClusterCredentialsProps } from './guest-cluster-credentials';
export { HarvesterImage, type HarvesterImageProps } from './image';
export { HarvesterNetwork, type HarvesterNetworkProps } from './network';
export { HarvesterKeyPair, type HarvesterKeyPairProps } from './key-pair';
export { FIELD_MANAGER } from './common';
export { GuestClusterIdentity, GuestClusterReady, type GuestClusterIdentityProps, type PemPair } from './guest-cluster';
