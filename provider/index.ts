/**
 * harvester-iac/provider: the resource providers, each an object in the shape of Pulumi's
 * `dynamic.ResourceProvider` (check / diff / create / read / update / delete), one per entry of the registry
 * (registry.ts), each a resource on the reconciler (core/reconciler) wrapped so the real dynamic-provider host's
 * contract holds (host/host-safe.ts), with `configure` receiving the stack config and the progress of long waits
 * printed on the host's standard output (host/progress.ts).
 *
 * PERMANENT CONTRACT: every Pulumi state written by the SDK holds code that requires this entry by name and
 * calls these exports and their methods (`machinePool`, `topologyLabels`, `ipPool`, `loadBalancer`,
 * `guestClusterCredentials`, `image`, `network`, `keyPair`, `guestClusterIdentity`, `guestClusterReady`: the registry's
 * export names).
 * Never rename or remove them (test/unit/provider/index.test.ts pins them).
 */
import { hostSafe, type HostProvider } from './host/host-safe';
import { ProgressPrinter } from './host/progress';
import { inputsFlagged } from './core/input-flags';
import { reconciledProvider } from './core/reconciler/reconciler';
import { UnreachableClusters } from './core/unreachable';
import { RESOURCES, progressObjectOf, type ExportName, type ResourceEntry } from './registry';

/** One progress sink for the host process: every resource's waits print through it (host/progress.ts). */
const progress = new ProgressPrinter();
/** The clusters already explained as unreachable in this host process: every resource shares the one diagnostic. */
const unreachable = new UnreachableClusters();

/** A resource's handlers on the reconciler, reporting progress to the host's standard output, wrapped for the host's contract. */
function hosted(entry: ResourceEntry): HostProvider {
  const resource = entry.load();
  const provider = reconciledProvider(resource, { onProgress: progress.sinkFor(entry.className), unreachable });
  return hostSafe(provider, {
    resource: entry.className,
    secretInputs: inputsFlagged(entry.inputs, 'secret'),
    objectOf: (inputs) => progressObjectOf(entry, inputs),
    progress,
  });
}

const providers = Object.fromEntries(RESOURCES.map((entry) => [entry.exportName, hosted(entry)])) as Record<ExportName, HostProvider>;

/** The providers by export name (the same objects as the named exports below). */
export { providers };

// The registry's export names as this module's own (permanent, see the header).
export const { machinePool, topologyLabels, ipPool, loadBalancer, guestClusterCredentials, image, network, keyPair, guestClusterIdentity, guestClusterReady } = providers;

export type { ResourceProvider, CheckResult, CheckFailure, DiffResult, CreateResult, ReadResult, UpdateResult, ID } from './core/types';
export type { ConnectionSettings } from './core/connection';
export type { HostProvider } from './host/host-safe';
export { RESOURCES, type ResourceEntry, type ExportName } from './registry';
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
export * as rke2 from './core/rke2';
