/**
 * The guest RKE2 cluster's API: a second API server (own store, token, kubeconfig, faults and journal)
 * serving the core kinds a guest cluster's Harvester cloud provider works with (Namespace, Node, Service,
 * Secret, ConfigMap), with the guest simulation (emulator/guest: Nodes following the Harvester VMs,
 * LoadBalancer Services turned into Harvester LoadBalancers by the simulated CCM) installed on it.
 */
import type { Clock } from './clock';
import { ObjectStore } from './api/store';
import type { KindRegistry, Store } from './api/types';
import { validateObject } from './api/validation';
import { createGuestRegistry } from './kinds';
import { GuestDelays, GuestHandle, installGuestCluster } from './guest';
import type { FaultRule } from './faults/rules';
import { parse as parseYaml } from 'yaml';
import { rbacKinds } from './rbac/authorizer';
import { credentialedStore, TokenIdentity } from './rbac/credentialed-store';
import { ClusterEndpoint, serveCluster, ServedCluster, withEndpoint } from './serve-cluster';

/** Options of the guest cluster (EmulatorOptions.guest). */
export interface GuestClusterOptions {
  /** Write the guest kubeconfig here (mode 0600). */
  kubeconfigPath?: string;
  /** Version of harvester-cloud-provider the guest runs (e.g. v0.2.4). */
  ccmVersion?: string;
  /** kubelet version the guest nodes report (e.g. v1.32.4+rke2r1). */
  kubeletVersion?: string;
  /** Guest cluster name; also the kubeconfig context name. @default guest */
  clusterName?: string;
  /** Namespace of the guest's VMs and of the LoadBalancers its CCM creates. @default default */
  namespace?: string;
  /** The CCM's --management-network (namespace/name). */
  managementNetwork?: string;
  /** Guest-side delays (node registration, CCM init, kube-vip). */
  delays?: Partial<GuestDelays>;
  /** Port of the guest API; 0 = a free one. */
  port?: number;
  tokenTtlMs?: number;
  faults?: FaultRule[];
  /**
   * The kubeconfig the guest's cloud provider reads (`/etc/kubernetes/cloud-config`), e.g. a
   * GuestClusterCredentials `cloudConfig`. Its token is authenticated and RBAC-authorized on every
   * LoadBalancer call the CCM makes; its context namespace is where the CCM puts LoadBalancers (unless
   * `namespace` is given). Unset: the CCM reads the file cloud-init writes on the guest's VMs
   * (guest/cloud-config-file.ts), and acts as the Harvester admin when there is none.
   */
  cloudConfig?: string;
}

/** A running guest cluster API. */
export interface GuestEmulator extends ClusterEndpoint {
  readonly store: ObjectStore;
  readonly registry: KindRegistry;
  readonly clusterName: string;
  readonly ccmVersion: string;
  readonly kubeletVersion: string;
  /** Admin handle of the guest simulation (events, delays, controller errors). */
  readonly handle: GuestHandle;
  /**
   * Give the CCM a new cloud-config kubeconfig (as cloud-init writing `/etc/kubernetes/cloud-config` would);
   * undefined: back to the admin. The LoadBalancer namespace stays the one the guest started with.
   */
  setCloudConfig(text: string | undefined): void;
  stop(): Promise<void>;
}

/** Internal options: what startEmulator passes along. */
export interface StartGuestOptions extends GuestClusterOptions {
  clock: Clock;
  /** The Harvester store the guest's cloud provider talks to. */
  harvesterStore: Store;
  tls: boolean;
  seed?: number;
  /** Who a Harvester bearer token is (admin tokens and service-account tokens). */
  harvesterIdentity?: TokenIdentity;
}

interface CloudConfig {
  token: string;
  namespace?: string;
}

/** The token and context namespace of the cloud-config kubeconfig (its current context, else its only one). */
export function parseCloudConfig(text: string): CloudConfig {
  type Named<T> = { name?: string } & T;
  const doc = (parseYaml(text) ?? {}) as {
    'current-context'?: string;
    contexts?: Named<{ context?: { user?: string; namespace?: string } }>[];
    users?: Named<{ user?: { token?: string } }>[];
  };
  const contexts = doc.contexts ?? [];
  const context = contexts.find((c) => c.name === doc['current-context']) ?? (contexts.length === 1 ? contexts[0] : undefined);
  const user = (doc.users ?? []).find((u) => u.name === context?.context?.user);
  const token = user?.user?.token;
  if (!token) throw new Error('guest.cloudConfig: the kubeconfig has no token for its current context (expected a GuestClusterCredentials cloudConfig)');
  return { token, namespace: context?.context?.namespace };
}

/** Start the guest cluster's API server. */
export async function startGuestCluster(o: StartGuestOptions): Promise<GuestEmulator> {
  const registry = createGuestRegistry();
  const store = new ObjectStore(registry, o.clock, { validate: validateObject });
  const clusterName = o.clusterName ?? 'guest';
  const cloudConfig = o.cloudConfig !== undefined ? parseCloudConfig(o.cloudConfig) : undefined;
  const kinds = rbacKinds(o.harvesterStore.registry);
  const clientFor = (config: CloudConfig | undefined) =>
    config && kinds && o.harvesterIdentity ? credentialedStore(o.harvesterStore, kinds, o.harvesterIdentity, config.token) : undefined;
  const harvesterClient = clientFor(cloudConfig);
  const handle = installGuestCluster(store, o.harvesterStore, o.clock, {
    clusterName,
    ccmVersion: o.ccmVersion,
    kubeletVersion: o.kubeletVersion,
    namespace: o.namespace ?? cloudConfig?.namespace,
    harvesterClient,
    clientForCloudConfig: kinds && o.harvesterIdentity ? (text) => clientFor(parseCloudConfig(text)) : undefined,
    managementNetwork: o.managementNetwork,
    delays: o.delays,
  });
  let served: ServedCluster;
  try {
    served = await serveCluster({
      store,
      clock: o.clock,
      port: o.port,
      tls: o.tls,
      tokenTtlMs: o.tokenTtlMs,
      faults: o.faults,
      seed: o.seed,
      kubeconfigPath: o.kubeconfigPath,
      contextName: clusterName,
    });
  } catch (err) {
    handle.stop();
    throw err;
  }
  let stopped: Promise<void> | undefined;
  return withEndpoint(served, o.kubeconfigPath, {
    store,
    registry,
    clusterName,
    ccmVersion: handle.options.ccmVersion,
    kubeletVersion: handle.options.kubeletVersion,
    handle,
    setCloudConfig(text: string | undefined) {
      handle.setHarvesterClient(clientFor(text === undefined ? undefined : parseCloudConfig(text)));
    },
    stop() {
      handle.stop();
      stopped ??= served.server.close().then(() => store.settle());
      return stopped;
    },
  });
}
