/**
 * The Harvester API emulator: an in-process Kubernetes API server (HTTPS, bearer token) over an ObjectStore
 * seeded like a small Harvester cluster, with Harvester's controllers and webhooks simulated, optional
 * fault injection, and optionally a second server standing in for a guest RKE2 cluster.
 *
 *   const emu = await startEmulator({ kubeconfigPath: '/tmp/kubeconfig' });
 *   // kubectl --kubeconfig /tmp/kubeconfig get nodes
 *   await emu.stop();
 */
import type { Clock } from './clock';
import { RealClock } from './clock';
import { ObjectStore } from './api/store';
import type { KindRegistry } from './api/types';
import { validateObject } from './api/validation';
import type { VersionInfo } from './api/version';
import { createHarvesterRegistry } from './kinds';
import { installHarvester, HarvesterHandle, HarvesterOptions, HostSizing, SeedOptions, seedHarvester, seedHosts } from './harvester';
import { seededRandom, type FaultRule } from './faults/rules';
import { GuestClusterOptions, GuestEmulator, startGuestCluster } from './guest-cluster';
import { ClusterEndpoint, serveCluster, ServedCluster, withEndpoint } from './serve-cluster';
import { installServiceAccountTokens, serviceAccountAuthenticator, TokensControllerHandle } from './rbac/service-account-tokens';
import { installRke2Guests, Rke2Handle, Rke2Options } from './guest/rke2';

export { ApiServer } from './api/server';
export { ObjectStore } from './api/store';
export { Faults } from './faults/controller';
export { RequestJournal } from './faults/journal';
export type { JournalEntry, JournalQuery } from './faults/journal';
export type { FaultRule, FaultAction, FaultMatch, WatchDropMode } from './faults/rules';
export { loadFaultRules } from './faults/load';
export type { HarvesterHandle, HarvesterOptions, SeedOptions, HostSizing } from './harvester';
export type { GuestClusterOptions, GuestEmulator } from './guest-cluster';
export type { ClusterEndpoint } from './serve-cluster';
export type { GuestHandle, GuestDelays } from './guest';
export type { Rke2Handle, Rke2Options, Rke2Delays, Rke2Endpoint, Rke2ClusterInfo, Rke2NodeInfo } from './guest/rke2';
export { ManualClock, RealClock } from './clock';
export type { Clock } from './clock';

/** Options of startEmulator. Every field is optional. */
export interface EmulatorOptions {
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** Interface to listen on. @default 127.0.0.1 */
  host?: string;
  /** Also write the kubeconfig here (mode 0600); it is rewritten on token rotation. */
  kubeconfigPath?: string;
  /** Kubeconfig cluster/user/context name. @default harvester */
  contextName?: string;
  /** How long a VMI takes from Scheduled to Running (Harvester delays.vmiBoot). @default 1500 */
  bootDelayMs?: number;
  /** How long until the guest agent reports the VM's IP (delays.guestAgent). @default 1000 */
  guestAgentDelayMs?: number;
  /** Further Harvester simulation options (delays, VM network CIDRs, DHCP range). */
  harvester?: HarvesterOptions;
  /** Run Harvester's controllers and webhooks. @default true */
  controllers?: boolean;
  /** Added to every response, in ms. @default 0 */
  latencyMs?: number;
  /** Seed of fault probabilities and of generateName suffixes (unset: random names, fault seed 1). */
  seed?: number;
  /** Lifetime of the issued token (ms on the emulator clock); unset = never expires. */
  tokenTtlMs?: number;
  /** Fault rules active from the first request (more can be added at runtime through `faults`). */
  faults?: FaultRule[];
  /** Replaces parts of the seeded cluster content (namespaces, nodes, images, networks, key pairs, pools, settings). */
  seedData?: SeedOptions;
  /**
   * Sizes of the seeded hosts (count, cores, memory, max pods, system-pod requests); ignored when
   * `seedData.nodes` lists the hosts. @default 3 hosts of 64 cores, 1 TiB, 200 pods
   */
  hosts?: HostSizing;
  /** Serve HTTPS (kubectl sends tokens only over TLS). @default true */
  tls?: boolean;
  /** Clock for timestamps, token expiry and controller delays. @default a RealClock */
  clock?: Clock;
  /** BOOKMARK interval of watches that allow them. @default 60000 */
  bookmarkIntervalMs?: number;
  /** Overrides GET /version (keep minor "32": the kubectl dispatcher picks its kubectl by it). */
  version?: VersionInfo;
  /** Start a guest RKE2 cluster API as well (for the cloud provider side). */
  guest?: GuestClusterOptions;
  /**
   * Guest RKE2 clusters from VM user data (docs/emulator.md §"Guest RKE2 clusters"): on with the controllers
   * unless false.
   */
  rke2?: Rke2Options | false;
}

/** A running emulator: its endpoint (kubeconfig, url, token, faults, journal) plus the simulated cluster. */
export interface Emulator extends ClusterEndpoint {
  readonly store: ObjectStore;
  readonly registry: KindRegistry;
  readonly clock: Clock;
  /** CA certificate (PEM) the kubeconfig trusts; undefined over plain HTTP. */
  readonly caCert?: string;
  /** Admin handle of the simulated Harvester; undefined with `controllers: false`. */
  readonly harvester?: HarvesterHandle;
  readonly guest?: GuestEmulator;
  /** The RKE2 guest simulation (clusters, nodes, endpoints); undefined with `controllers: false` or `rke2: false`. */
  readonly rke2?: Rke2Handle;
  /** Stop controllers, end watches, close the servers. Idempotent. */
  stop(): Promise<void>;
}

/** Start the emulator: seed, simulated Harvester, HTTPS API server and kubeconfig (and the guest cluster). */
export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const clock = options.clock ?? new RealClock();
  const registry = createHarvesterRegistry();
  // With a seed, generated names (generateName) are reproducible too.
  const random = options.seed !== undefined ? seededRandom(options.seed ^ 0x5eed) : undefined;
  const store = new ObjectStore(registry, clock, { validate: validateObject, random });
  seedHarvester(store, options.hosts && !options.seedData?.nodes ? { ...options.seedData, nodes: seedHosts(options.hosts) } : options.seedData);
  let harvester: HarvesterHandle | undefined;
  if (options.controllers !== false) {
    const hopts: HarvesterOptions = { ...(options.harvester ?? {}) };
    const delays = { ...(hopts.delays ?? {}) };
    if (options.bootDelayMs !== undefined) delays.vmiBoot = options.bootDelayMs;
    if (options.guestAgentDelayMs !== undefined) delays.guestAgent = options.guestAgentDelayMs;
    hopts.delays = delays;
    harvester = installHarvester(store, clock, hopts);
  }

  const stopInternals = (): void => {
    harvester?.stop();
    if (clock instanceof RealClock && options.clock === undefined) clock.clearAll();
  };
  let served: ServedCluster;
  try {
    served = await serveCluster({
      store,
      clock,
      port: options.port,
      host: options.host,
      tls: options.tls !== false,
      tokenTtlMs: options.tokenTtlMs,
      faults: options.faults,
      seed: options.seed,
      latencyMs: options.latencyMs,
      bookmarkIntervalMs: options.bookmarkIntervalMs,
      version: options.version,
      kubeconfigPath: options.kubeconfigPath,
      contextName: options.contextName ?? 'harvester',
    });
  } catch (err) {
    stopInternals();
    throw err;
  }

  // kube-controller-manager's tokens controller: fills service-account token Secrets with the served CA.
  const tokens: TokensControllerHandle | undefined = installServiceAccountTokens(store, clock, served.tls?.caCert);

  const saTokens = serviceAccountAuthenticator(store);
  const harvesterIdentity = (token: string) => {
    const admin = served.tokens.userFor(token);
    return admin !== undefined ? { user: admin } : saTokens?.(token);
  };
  const rke2 = harvester && options.rke2 !== false ? installRke2Guests(store, clock, { ...(options.rke2 ?? {}), identity: harvesterIdentity }) : undefined;

  let guest: GuestEmulator | undefined;
  if (options.guest) {
    try {
      guest = await startGuestCluster({ ...options.guest, clock, harvesterStore: store, tls: options.tls !== false, seed: options.seed, harvesterIdentity });
    } catch (err) {
      await rke2?.stop();
      await served.server.close();
      tokens?.stop();
      stopInternals();
      throw err;
    }
  }

  let stopped: Promise<void> | undefined;
  return withEndpoint(served, options.kubeconfigPath, {
    store,
    registry,
    clock,
    caCert: served.tls?.caCert,
    harvester,
    guest,
    rke2,
    stop() {
      stopped ??= (async () => {
        tokens?.stop();
        stopInternals();
        await Promise.all([served.server.close(), guest?.stop(), rke2?.stop()]);
        await store.settle();
      })();
      return stopped;
    },
  });
}
