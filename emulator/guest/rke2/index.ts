/**
 * Guest RKE2 clusters born from VM user data (docs/design/guest-rke2.md; docs/emulator.md §"Guest RKE2
 * clusters"): every Harvester VM whose cloud-init user data writes RKE2's config and starts rke2-server or
 * rke2-agent boots a simulated node; an initialising server brings up an emulated cluster (its own API server,
 * served with the supplied CA at its servers' and load balancers' addresses); joiners are checked as RKE2 checks
 * them; Nodes register; the cloud provider initialises them; etcd keeps or loses quorum.
 */
import { Clock } from '../../clock';
import type { Store } from '../../api/types';
import { harvesterKinds } from '../../controllers/kinds';
import { Controller, ControllerError, ErrorLog } from '../../controllers/runtime';
import type { TokenIdentity } from '../../rbac/credentialed-store';
import { Rke2Cluster } from './cluster';
import { desiredEndpoints } from './endpoints';
import type { JournalLine } from './journal';
import { EndpointListeners } from './listeners';
import { createNodeAgent, Rke2Phase } from './node-agent';
import { DEFAULT_RKE2_CHANNELS, DEFAULT_RKE2_DELAYS, Rke2Delays, Rke2Endpoint, Rke2Options } from './options';

export { ANN_RKE2_PREINSTALLED } from './node-agent';
export type { Rke2Phase } from './node-agent';
export type { Rke2Delays, Rke2Endpoint, Rke2Options } from './options';
export type { JournalLine } from './journal';
export { DEFAULT_RKE2_DELAYS, DEFAULT_RKE2_CHANNELS } from './options';

/** A simulated node, as the emulator's handle shows it. */
export interface Rke2NodeInfo {
  namespace: string;
  vm: string;
  nodeName: string;
  role?: 'server' | 'agent';
  version?: string;
  phase: Rke2Phase;
  /** Why it is not (yet) running or registered: the last error of its journal. */
  reason?: string;
  cluster?: string;
  ip?: string;
  journal: JournalLine[];
}

/** An emulated cluster, as the handle shows it. */
export interface Rke2ClusterInfo {
  id: string;
  /** `namespace/vm` of the server that initialised it. */
  initServer: string;
  /** The API on 127.0.0.1 (serving certificate of the first server; 127.0.0.1 is one of its SANs). */
  url?: string;
  /** An admin kubeconfig for `url` (bearer token, server CA): the emulator's own, not RKE2's rke2.yaml. */
  kubeconfig?: string;
  caCertificate: string;
  hasQuorum: boolean;
  members: { name: string; vm: string; address: string; alive: boolean }[];
  cloudProvider: 'harvester' | 'rke2' | 'none';
  cloudProviderNote: string;
  endpoints: Rke2Endpoint[];
  journal: JournalLine[];
  /** The emulated cluster itself (its store, cloud provider events). */
  cluster: Rke2Cluster;
}

/** The handle of the RKE2 guest simulation. */
export interface Rke2Handle {
  clusters(): Rke2ClusterInfo[];
  node(namespace: string, vm: string): Rke2NodeInfo | undefined;
  nodes(): Rke2NodeInfo[];
  endpoints(): Rke2Endpoint[];
  setDelays(delays: Partial<Rke2Delays>): void;
  /** Waits until the listeners and certificate work started so far are done (tests on a ManualClock). */
  settle(): Promise<void>;
  /** Unexpected controller failures (tests assert this stays empty). */
  errors(): ControllerError[];
  stop(): Promise<void>;
}

/** Internal options: what startEmulator passes along. */
export interface InstallRke2Options extends Rke2Options {
  /** Who a Harvester bearer token is (for the cloud provider's credentials). */
  identity?: TokenIdentity;
}

/** Starts the RKE2 guest simulation over the Harvester store. */
export function installRke2Guests(harvester: Store, clock: Clock, options: InstallRke2Options = {}): Rke2Handle {
  const kinds = harvesterKinds(harvester.registry);
  const delays: Rke2Delays = { ...DEFAULT_RKE2_DELAYS, ...(options.delays ?? {}) };
  const errors = new ErrorLog();
  const clusters: Rke2Cluster[] = [];
  const work = new Set<Promise<unknown>>();
  const listeners = new EndpointListeners(options.onEndpoint);
  let stopped = false;

  const endpointController = new Controller({
    name: 'rke2-endpoints',
    clock,
    errors,
    reconcile: () => {
      if (!stopped) listeners.sync(desiredEndpoints(agent.serving(), harvester, kinds));
      return undefined;
    },
  });
  const endpointsChanged = () => endpointController.enqueue('endpoints');
  endpointController.watch(harvester, kinds.loadBalancer, () => ['endpoints']).watch(harvester, kinds.vmi, () => ['endpoints']);

  const agent = createNodeAgent({
    harvester,
    kinds,
    clock,
    delays,
    channels: options.channels ?? DEFAULT_RKE2_CHANNELS,
    clusterContext: {
      clock,
      harvester,
      identity: options.identity,
      ccmVersion: options.ccmVersion ?? 'v0.2.8',
      get ccmInitDelay() {
        return delays.ccmInit;
      },
      memberAlive: (m) => {
        const n = agent.nodes.get(m.vmKey);
        return n !== undefined && n.vmUid === m.vmUid && n.phase === 'Running';
      },
    },
    onCluster: (c) => clusters.push(c),
    endpointsChanged,
    track: (p) => {
      work.add(p);
      void p.finally(() => work.delete(p));
    },
    errors,
  });

  const nodeInfo = (key: string): Rke2NodeInfo | undefined => {
    const n = agent.nodes.get(key);
    if (!n) return undefined;
    const [namespace, vm] = key.split('/');
    return { namespace, vm, nodeName: n.nodeName, role: n.role, version: n.version, phase: n.phase, reason: n.reason, cluster: n.cluster?.id, ip: n.ip, journal: n.journal.entries() };
  };

  return {
    clusters: () =>
      clusters.map((c) => ({
        id: c.id,
        initServer: c.initVm,
        url: c.api?.url,
        kubeconfig: c.api?.kubeconfig(),
        caCertificate: c.serverCa.bundle,
        hasQuorum: c.hasQuorum(),
        members: [...c.members.values()].map((m) => {
          const n = agent.nodes.get(m.vmKey);
          return { name: m.name, vm: m.vmKey, address: m.address, alive: n !== undefined && n.vmUid === m.vmUid && n.phase === 'Running' };
        }),
        cloudProvider: c.ccmPlan.mode,
        cloudProviderNote: c.ccmPlan.note,
        endpoints: listeners.endpoints().filter((e) => e.cluster === c.id),
        journal: c.journal.entries(),
        cluster: c,
      })),
    node: (namespace, vm) => nodeInfo(`${namespace}/${vm}`),
    nodes: () => [...agent.nodes.keys()].map((k) => nodeInfo(k)!),
    endpoints: () => listeners.endpoints(),
    setDelays: (d) => Object.assign(delays, d),
    async settle() {
      for (let i = 0; i < 50; i++) {
        const pending = [...work];
        await Promise.allSettled(pending);
        await listeners.settle();
        if (work.size === 0) return;
      }
    },
    errors: () => [...errors.list(), ...clusters.flatMap((c) => c.controllerErrors())],
    async stop() {
      if (stopped) return;
      stopped = true;
      agent.controller.stop();
      endpointController.stop();
      await Promise.allSettled([...work]);
      await listeners.stop();
      await Promise.all(clusters.map((c) => c.stop()));
    },
  };
}
