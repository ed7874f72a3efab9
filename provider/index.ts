/**
 * harvester-iac/provider: the resource providers, each an object in the shape of Pulumi's
 * `dynamic.ResourceProvider` (check / diff / create / read / update / delete), wrapped so the real
 * dynamic-provider host's contract holds (host/host-safe.ts), with `configure` receiving the stack config and
 * the progress of long waits printed on the host's standard output (host/progress.ts).
 *
 * PERMANENT CONTRACT: every Pulumi state written by the SDK holds code that requires this entry by name and
 * calls these exports and their methods (`machinePool`, `topologyLabels`, `ipPool`, `loadBalancer`,
 * `guestClusterCredentials`, `image`, `network`, `keyPair`, `guestClusterIdentity`, `guestClusterReady`).
 * Never rename or remove them (test/unit/provider/index.test.ts pins them).
 */
import { hostSafe, type HostProvider } from './host/host-safe';
import { ProgressPrinter } from './host/progress';
import type { ProgressSink } from './core/progress';
import type { ResourceProvider } from './core/types';
import { createMachinePoolProvider } from './resources/machine-pool/handlers';
import { SECRET_INPUTS as MACHINE_POOL_SECRETS } from './resources/machine-pool/model';
import { createTopologyLabelsProvider } from './resources/topology-labels/handlers';
import { SECRET_INPUTS as TOPOLOGY_SECRETS } from './resources/topology-labels/model';
import { createIPPoolProvider } from './resources/ip-pool/handlers';
import { SECRET_INPUTS as IP_POOL_SECRETS } from './resources/ip-pool/model';
import { createLoadBalancerProvider } from './resources/load-balancer/handlers';
import { SECRET_INPUTS as LOAD_BALANCER_SECRETS } from './resources/load-balancer/model';
import { createGuestClusterCredentialsProvider } from './resources/guest-cluster-credentials/handlers';
import { SECRET_INPUTS as GUEST_CREDENTIALS_SECRETS } from './resources/guest-cluster-credentials/model';
import { createImageProvider } from './resources/image/handlers';
import { SECRET_INPUTS as IMAGE_SECRETS } from './resources/image/model';
import { createNetworkProvider } from './resources/network/handlers';
import { SECRET_INPUTS as NETWORK_SECRETS } from './resources/network/model';
import { createKeyPairProvider } from './resources/key-pair/handlers';
import { SECRET_INPUTS as KEY_PAIR_SECRETS } from './resources/key-pair/model';
import { createGuestClusterIdentityProvider } from './resources/guest-cluster-identity/handlers';
import { SECRET_INPUTS as GUEST_IDENTITY_SECRETS } from './resources/guest-cluster-identity/model';
import { createGuestClusterReadyProvider } from './resources/guest-cluster-ready/handlers';
import { SECRET_INPUTS as GUEST_READY_SECRETS } from './resources/guest-cluster-ready/model';

/** One progress sink for the host process: every resource's waits print through it (host/progress.ts). */
const progress = new ProgressPrinter();

/** A resource's handlers, reporting progress to the host's standard output, wrapped for the host's contract. */
function hosted(resource: string, create: (options: { onProgress: ProgressSink }) => ResourceProvider, secretInputs: readonly string[]): HostProvider {
  return hostSafe(create({ onProgress: progress.sinkFor(resource) }), { resource, secretInputs, progress });
}

/** The HarvesterMachinePool provider (inputs: MachinePoolArgs; outputs: MachinePoolOutputs). */
export const machinePool: HostProvider = hosted('HarvesterMachinePool', createMachinePoolProvider, MACHINE_POOL_SECRETS);

/** The TopologyLabels provider (inputs: TopologyLabelsArgs; outputs: TopologyLabelsOutputs). */
export const topologyLabels: HostProvider = hosted('TopologyLabels', createTopologyLabelsProvider, TOPOLOGY_SECRETS);

/** The HarvesterIPPool provider (inputs: IPPoolArgs; outputs: IPPoolOutputs). */
export const ipPool: HostProvider = hosted('HarvesterIPPool', createIPPoolProvider, IP_POOL_SECRETS);

/** The HarvesterLoadBalancer provider (inputs: LoadBalancerArgs; outputs: LoadBalancerOutputs). */
export const loadBalancer: HostProvider = hosted('HarvesterLoadBalancer', createLoadBalancerProvider, LOAD_BALANCER_SECRETS);

/** The GuestClusterCredentials provider (inputs: GuestClusterCredentialsArgs; outputs: GuestClusterCredentialsOutputs). */
export const guestClusterCredentials: HostProvider = hosted('GuestClusterCredentials', createGuestClusterCredentialsProvider, GUEST_CREDENTIALS_SECRETS);

/** The HarvesterImage provider (inputs: ImageArgs; outputs: ImageOutputs). */
export const image: HostProvider = hosted('HarvesterImage', createImageProvider, IMAGE_SECRETS);

/** The HarvesterNetwork provider (inputs: NetworkArgs; outputs: NetworkOutputs). */
export const network: HostProvider = hosted('HarvesterNetwork', createNetworkProvider, NETWORK_SECRETS);

/** The HarvesterKeyPair provider (inputs: KeyPairArgs; outputs: KeyPairOutputs). */
export const keyPair: HostProvider = hosted('HarvesterKeyPair', createKeyPairProvider, KEY_PAIR_SECRETS);

/** The GuestClusterIdentity provider (inputs: GuestClusterIdentityArgs; outputs: GuestClusterIdentityOutputs). */
export const guestClusterIdentity: HostProvider = hosted('GuestClusterIdentity', createGuestClusterIdentityProvider, GUEST_IDENTITY_SECRETS);

/** The GuestClusterReady provider (inputs: GuestClusterReadyArgs; outputs: GuestClusterReadyOutputs). */
export const guestClusterReady: HostProvider = hosted('GuestClusterReady', createGuestClusterReadyProvider, GUEST_READY_SECRETS);

export type { ResourceProvider, CheckResult, CheckFailure, DiffResult, CreateResult, ReadResult, UpdateResult, ID } from './core/types';
export type { ConnectionSettings } from './core/connection';
export type { HostProvider } from './host/host-safe';
export { UNKNOWN, isUnknown } from './core/unknowns';
export { ProviderError, ResourceInitError } from './core/errors';
export * as machinePools from './resources/machine-pool';
export * as topologyLabelSets from './resources/topology-labels';
export * as ipPools from './resources/ip-pool';
export * as loadBalancers from './resources/load-balancer';
export * as guestClusterCredentialSets from './resources/guest-cluster-credentials';
export * as images from './resources/image';
export * as networks from './resources/network';
export * as keyPairs from './resources/key-pair';
export * as guestClusterIdentities from './resources/guest-cluster-identity';
export * as guestClusterReadiness from './resources/guest-cluster-ready';
export * as rke2 from './rke2';
