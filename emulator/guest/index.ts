/**
 * The guest-cluster role: a second store (core kinds only) plays a guest RKE2 cluster built from Harvester
 * VMs, with the Harvester cloud provider (CCM) of a chosen version. It watches both stores: guest Nodes
 * follow the Harvester VMs labelled `guestcluster.harvesterhci.io/name=<clusterName>` (guest-nodes.ts), and
 * guest Services of type LoadBalancer become Harvester LoadBalancers (service-lb.ts).
 */
import { Clock } from '../clock';
import { StatusError } from '../api/errors';
import { Store } from '../api/types';
import { guestKinds, harvesterKinds } from '../controllers/kinds';
import { Controller, ControllerError, ErrorLog } from '../controllers/runtime';
import { installCcmDeployment } from './ccm-deployment';
import { cloudConfigOfVms } from './cloud-config-file';
import { LABEL_GUEST_CLUSTER } from '../util/names';
import { createGuestNodeController } from './guest-nodes';
import { GuestDelays, GuestOptions, resolveGuestOptions, ResolvedGuestOptions } from './options';
import { createServiceLbController, GuestEvent } from './service-lb';

export { DEFAULT_GUEST_DELAYS } from './options';
export type { GuestDelays, GuestOptions } from './options';
export type { GuestEvent } from './service-lb';
export { loadBalancerName } from './lb-name';

/** Admin knobs and lifecycle of an installed guest cluster. */
export interface GuestHandle {
  readonly options: ResolvedGuestOptions;
  /** Service sync failures (newest last), as `kubectl describe svc` would list them. */
  events(): GuestEvent[];
  setDelays(delays: Partial<GuestDelays>): void;
  /** Change the credentials the CCM calls Harvester with (undefined: admin); Services sync again. */
  setHarvesterClient(client: Store | undefined): void;
  /** Unexpected controller failures (tests assert this stays empty). */
  errors(): ControllerError[];
  stop(): void;
}

const EVENT_LIMIT = 200;

/**
 * Starts the guest-cluster simulation. `guestStore` must serve core Namespace/Node/Service
 * (createGuestRegistry()); `harvesterStore` is the Harvester store the VMs and LoadBalancers live in.
 * Creates the guest namespaces default and kube-system when missing, and the cloud provider's Deployment
 * (kube-system/harvester-cloud-provider, image tag = ccmVersion) when the registry serves Deployments.
 */
export function installGuestCluster(guestStore: Store, harvesterStore: Store, clock: Clock, options: GuestOptions): GuestHandle {
  const resolved = resolveGuestOptions(options);
  const gk = guestKinds(guestStore.registry);
  const hk = harvesterKinds(harvesterStore.registry);
  const errorLog = new ErrorLog();
  let harvesterClient = options.harvesterClient;
  // The CCM reads the cloud-config cloud-init wrote on the guest's nodes; one client per distinct file.
  let fromNodes: { text: string; client: Store | undefined } | undefined;
  const clientFromNodes = (): Store | undefined => {
    if (!options.clientForCloudConfig) return undefined;
    const vms = harvesterStore.list(hk.vm, { namespace: resolved.namespace, labelSelector: `${LABEL_GUEST_CLUSTER}=${resolved.clusterName}` }).items;
    const text = cloudConfigOfVms(vms, harvesterStore, hk.secret);
    if (text === undefined) return undefined;
    if (fromNodes?.text !== text) fromNodes = { text, client: options.clientForCloudConfig(text) };
    return fromNodes.client;
  };
  const events: GuestEvent[] = [];
  let running = true;

  for (const name of ['default', 'kube-system']) {
    if (guestStore.get(gk.namespace, undefined, name)) continue;
    try {
      guestStore.create(gk.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 409)) throw err;
    }
  }
  installCcmDeployment(guestStore, resolved);
  const ctx = { guest: guestStore, harvester: harvesterStore, guestKinds: gk, harvesterKinds: hk, clock, options: resolved, errors: errorLog };
  const serviceLb = createServiceLbController({
      ...ctx,
      harvesterClient: () => harvesterClient ?? clientFromNodes(),
      events: (e) => {
        events.push(e);
        if (events.length > EVENT_LIMIT) events.shift();
      },
    });
  const controllers: Controller[] = [createGuestNodeController(ctx), serviceLb];
  return {
    options: resolved,
    events: () => [...events],
    setDelays(delays) {
      Object.assign(resolved.delays, delays);
    },
    errors: () => errorLog.list(),
    setHarvesterClient(client) {
      harvesterClient = client;
      // The CCM picks up a rewritten cloud-config: every Service is synced again with the new credentials.
      for (const svc of guestStore.list(gk.service).items) serviceLb.enqueue(`${svc.metadata.namespace}/${svc.metadata.name}`);
    },
    stop() {
      if (!running) return;
      running = false;
      for (const c of controllers) c.stop();
    },
  };
}
