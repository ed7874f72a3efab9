/**
 * The guest's Services of type LoadBalancer, as the k8s service controller + harvester-cloud-provider + kube-vip
 * handle them (docs/design/guest-cloud-provider.md §"Service annotations", §"The load balancer it makes",
 * §"Provisioning an address"):
 *
 * 1. finalizer `service.kubernetes.io/load-balancer-cleanup` on the Service;
 * 2. ensure the Harvester LoadBalancer `<cluster>-<ns>-<svc>-<crc32>` (lb-name.ts) in the CCM namespace:
 *    - CCM ≥ v0.2.0: `workloadType: cluster`, `ipam` from `cloudprovider.harvesterhci.io/ipam` (default pool,
 *      copied on every sync — a change is refused by the LB webhook), labels cluster/serviceNamespace/
 *      serviceName, annotations loadbalancer.harvesterhci.io/cluster|network|project|namespace,
 *      cloudprovider.harvesterhci.io/lb-network (network only at creation), managementNetwork;
 *    - CCM < v0.2.0: a vm-type LB with one listener per Service port (backendPort = nodePort), backends = the
 *      guest nodes' VMs (`harvesterhci.io/vmName In [...]`, what the v1alpha1 backendServers convert to), and
 *      the health-check annotations (port = a Service port, mapped to its nodePort; defaults 1/3/5/3);
 * 3. ≥ v0.2.0: once `status.allocatedAddress.ip` is known, annotate the Service `kube-vip.io/loadbalancerIPs`;
 *    after delays.kubeVip kube-vip announces: the Service gets `status.loadBalancer.ingress[0].ip` (the
 *    allocated IP, or a lease from the simulated DHCP range for ipam dhcp) and the CCM writes it back into
 *    the LB's `status.address`. < v0.2.0: the ingress IP is the LB's `status.address` (set by Harvester);
 * 4. Service deleted (or no longer type LoadBalancer): delete the LB, drop the finalizer.
 * Sync failures are recorded as events (reason SyncLoadBalancerFailed) on the handle, as the service controller
 * records them on the Service. With credentials (GuestOptions.harvesterClient) the CCM's LoadBalancer calls are
 * authenticated and RBAC-authorized: a 401/403 leaves the Service pending with the CCM's error as the event
 * (`create or update lb <ns>/<name> failed, error: <apiserver message>`).
 */
import { Clock } from '../clock';
import { StatusError } from '../api/errors';
import { KubeObject, Store } from '../api/types';
import { dhcpLease } from '../controllers/dhcp';
import { GuestKinds, HarvesterKinds } from '../controllers/kinds';
import {
  ANN_HEALTHCHECK_FAILURE,
  ANN_HEALTHCHECK_PERIOD,
  ANN_HEALTHCHECK_PORT,
  ANN_HEALTHCHECK_SUCCESS,
  ANN_HEALTHCHECK_TIMEOUT,
  ANN_KUBE_VIP_IPS,
  ANN_LB_CLUSTER,
  ANN_LB_NAMESPACE,
  ANN_LB_NETWORK,
  ANN_LB_NETWORK_CCM,
  ANN_LB_PROJECT,
  ANN_MANAGEMENT_NETWORK,
  ANN_SERVICE_UUID,
  ANN_SVC_DESCRIPTION,
  ANN_SVC_IPAM,
  ANN_SVC_NAMESPACE,
  ANN_SVC_NETWORK,
  ANN_SVC_PROJECT,
  DHCP_ASK_ADDRESS,
  FINALIZER_SERVICE_LB_CLEANUP,
  LABEL_LB_CLUSTER,
  LABEL_SERVICE_NAME,
  LABEL_SERVICE_NAMESPACE,
  LABEL_VM_NAME,
} from '../util/names';
import { addFinalizer, clone, deleteIfPresent, field, findCondition, hasFinalizer, isDeleting, removeFinalizer, writeChanges } from '../util/objects';
import { Controller, ErrorSink, objectKey, splitKey } from '../controllers/runtime';
import { loadBalancerName } from './lb-name';
import { ResolvedGuestOptions } from './options';

/** A sync problem reported on a Service (what `kubectl describe svc` would show as an event). */
export interface GuestEvent {
  object: string;
  reason: string;
  message: string;
  time: string;
}

interface Port {
  name?: string;
  port?: number;
  protocol?: string;
  nodePort?: number;
}

/** Dependencies of the guest service controller. */
export interface ServiceLbContext {
  guest: Store;
  harvester: Store;
  /** The Harvester API as the CCM's current credentials see it (RBAC applies); undefined = `harvester` (admin). */
  harvesterClient?: () => Store | undefined;
  guestKinds: GuestKinds;
  harvesterKinds: HarvesterKinds;
  clock: Clock;
  options: ResolvedGuestOptions;
  events: (event: GuestEvent) => void;
  errors?: ErrorSink;
}

class SyncError extends Error {}

/** 401/403 from the Harvester API: the CCM's credentials are revoked or not allowed to do this. */
function isCredentialRefusal(err: unknown): err is StatusError {
  return err instanceof StatusError && (err.code === 401 || err.code === 403);
}

/** A credential refusal as the CCM wraps it into its sync error (anything else is rethrown as is). */
function refusedCredentials(err: unknown, prefix: string): unknown {
  return isCredentialRefusal(err) ? new SyncError(`${prefix}${err.status.message}`) : err;
}

function ann(o: KubeObject | undefined, key: string): string | undefined {
  return o?.metadata.annotations?.[key];
}

function healthCheckOf(svc: KubeObject): Record<string, number> | undefined {
  const portText = ann(svc, ANN_HEALTHCHECK_PORT);
  if (portText === undefined) return undefined;
  const wrap = (why: string) => new SyncError(`extract health check failed, error: ${why}`);
  const port = Number.parseInt(portText, 10);
  if (!/^\s*-?\d+\s*$/.test(portText)) throw wrap(`get healthy check port failed, error: atoi error, port: ${portText}, error: strconv.Atoi: parsing "${portText}": invalid syntax`);
  const nodePort = (field<Port[]>(svc, 'spec', 'ports') ?? []).find((p) => p.port === port)?.nodePort;
  if (!nodePort) throw wrap(`get healthy check port failed, error: nodeport not found, service port: ${port}`);
  const value = (key: string, fallback: number): number => {
    const text = ann(svc, key);
    if (text === undefined) return fallback;
    if (!/^\s*-?\d+\s*$/.test(text)) throw wrap(`get annotationsValue failed, key: ${key}, err: strconv.Atoi: parsing "${text}": invalid syntax`);
    return Number.parseInt(text, 10);
  };
  return {
    port: nodePort,
    successThreshold: value(ANN_HEALTHCHECK_SUCCESS, 1),
    failureThreshold: value(ANN_HEALTHCHECK_FAILURE, 3),
    periodSeconds: value(ANN_HEALTHCHECK_PERIOD, 5),
    timeoutSeconds: value(ANN_HEALTHCHECK_TIMEOUT, 3),
  };
}

/** Builds the guest service controller; keys are `namespace/name` of guest Services. */
export function createServiceLbController(ctx: ServiceLbContext): Controller {
  const { guest, harvester, guestKinds: gk, harvesterKinds: hk, clock, options } = ctx;
  // The CCM's own calls (LoadBalancer get/create/update/delete) go through its credentials; the rest of this
  // controller plays Harvester and kube-vip, which write with their own rights.
  const client = (): Store => ctx.harvesterClient?.() ?? harvester;
  const kubeVipDue = new Map<string, number>();
  const lastEvent = new Map<string, string>();

  function reportEvent(svc: KubeObject, reason: string, message: string): void {
    const key = objectKey(svc);
    if (lastEvent.get(key) === message) return; // the service controller de-duplicates repeated events
    lastEvent.set(key, message);
    ctx.events({ object: `Service ${key}`, reason, message, time: clock.now().toISOString() });
  }

  function report(svc: KubeObject, message: string): void {
    reportEvent(svc, 'SyncLoadBalancerFailed', `Error syncing load balancer: failed to ensure load balancer: ${message}`);
  }

  function guestNodeVmNames(): string[] {
    return guest
      .list(gk.node)
      .items.filter((n) => (field<{ type: string }[]>(n, 'status', 'addresses') ?? []).some((a) => a.type === 'InternalIP'))
      .map((n) => String(n.metadata.name))
      .sort();
  }

  function desiredLb(svc: KubeObject, name: string, existing: KubeObject | undefined): KubeObject {
    const ipam = ann(svc, ANN_SVC_IPAM) || 'pool';
    if (options.modernCcm) {
      const labels = {
        [LABEL_LB_CLUSTER]: options.clusterName,
        [LABEL_SERVICE_NAMESPACE]: String(svc.metadata.namespace),
        [LABEL_SERVICE_NAME]: String(svc.metadata.name),
      };
      if (existing) {
        // Later syncs copy only ipam (the webhook refuses changing it) and keep what Harvester's mutator wrote.
        const desired = clone(existing);
        desired.metadata.labels = { ...(existing.metadata.labels ?? {}), ...labels };
        desired.spec = { ...((existing.spec ?? {}) as Record<string, unknown>), ipam, workloadType: 'cluster' };
        return desired;
      }
      const annotations: Record<string, string> = { [ANN_LB_CLUSTER]: options.clusterName };
      const network = ann(svc, ANN_SVC_NETWORK);
      if (network) {
        annotations[ANN_LB_NETWORK] = network;
        annotations[ANN_LB_NETWORK_CCM] = network;
      }
      if (ann(svc, ANN_SVC_PROJECT)) annotations[ANN_LB_PROJECT] = ann(svc, ANN_SVC_PROJECT)!;
      if (ann(svc, ANN_SVC_NAMESPACE)) annotations[ANN_LB_NAMESPACE] = ann(svc, ANN_SVC_NAMESPACE)!;
      if (options.managementNetwork) annotations[ANN_MANAGEMENT_NETWORK] = options.managementNetwork;
      return {
        apiVersion: 'loadbalancer.harvesterhci.io/v1beta1',
        kind: 'LoadBalancer',
        metadata: { name, namespace: options.namespace, labels, annotations },
        spec: { ipam, workloadType: 'cluster' },
      };
    }
    const spec: Record<string, unknown> = {
      ipam,
      listeners: (field<Port[]>(svc, 'spec', 'ports') ?? []).map((p) => ({ name: p.name ?? '', port: p.port, protocol: p.protocol ?? 'TCP', backendPort: p.nodePort ?? 0 })),
      backendServerSelector: { [LABEL_VM_NAME]: guestNodeVmNames() },
    };
    const description = ann(svc, ANN_SVC_DESCRIPTION);
    if (description) spec.description = description;
    const healthCheck = healthCheckOf(svc);
    if (healthCheck) spec.healthCheck = healthCheck;
    if (existing?.spec && (existing.spec as Record<string, unknown>).ipPool) spec.ipPool = (existing.spec as Record<string, unknown>).ipPool;
    return {
      apiVersion: 'loadbalancer.harvesterhci.io/v1beta1',
      kind: 'LoadBalancer',
      metadata: {
        ...(existing ? clone(existing.metadata) : { name, namespace: options.namespace }),
        labels: { ...(existing?.metadata.labels ?? {}), [LABEL_LB_CLUSTER]: options.clusterName },
        annotations: { ...(existing?.metadata.annotations ?? {}), [ANN_SERVICE_UUID]: String(svc.metadata.uid) },
      },
      spec,
      ...(existing?.status ? { status: clone(existing.status) } : {}),
    };
  }

  function ensureLb(svc: KubeObject, name: string): KubeObject {
    let existing: KubeObject | undefined;
    try {
      existing = client().get(hk.loadBalancer, options.namespace, name);
    } catch (err) {
      throw refusedCredentials(err, `create or update lb ${options.namespace}/${name} failed, error: `);
    }
    if (existing && options.modernCcm) {
      const network = ann(svc, ANN_SVC_NETWORK) ?? '';
      const lbNetwork = ann(existing, ANN_LB_NETWORK_CCM) ?? '';
      if (network !== lbNetwork) {
        throw new SyncError(`network annotation of service ${objectKey(svc)} is not same as the load balancer ${options.namespace}/${name}`);
      }
    }
    const desired = desiredLb(svc, name, existing);
    try {
      if (!existing) return client().create(hk.loadBalancer, desired, { fieldManager: 'harvester-cloud-provider' });
      return writeChanges(client(), hk.loadBalancer, existing, desired, { fieldManager: 'harvester-cloud-provider' });
    } catch (err) {
      if (isCredentialRefusal(err)) throw refusedCredentials(err, `create or update lb ${options.namespace}/${name} failed, error: `);
      // Refusals, including webhook denials (the load-balancer webhook's arrive as 500 through wrangler's router).
      const denied = err instanceof StatusError && (err.code === 400 || err.code === 422 || /admission webhook "[^"]+" denied the request/.test(String(err.status.message)));
      if (denied) throw new SyncError(String(err.status.message));
      throw err;
    }
  }

  function setIngress(svc: KubeObject, ip: string): KubeObject {
    const current = field<{ ip?: string }[]>(svc, 'status', 'loadBalancer', 'ingress') ?? [];
    if (current.length === 1 && current[0].ip === ip) return svc;
    const desired = clone(svc);
    desired.status = { ...((svc.status ?? {}) as Record<string, unknown>), loadBalancer: { ingress: [{ ip }] } };
    return writeChanges(guest, gk.service, svc, desired, { fieldManager: 'cloud-controller-manager' });
  }

  function cleanup(svc: KubeObject, name: string): void {
    try {
      deleteIfPresent(client(), hk.loadBalancer, options.namespace, name);
    } catch (err) {
      // The service controller keeps the finalizer and retries when the LB watch or the Service changes.
      if (!isCredentialRefusal(err)) throw err;
      reportEvent(svc, 'DeleteLoadBalancerFailed', `Error deleting load balancer: could not delete load balancer for service ${objectKey(svc)}: ${(err as StatusError).status.message}`);
      return;
    }
    kubeVipDue.delete(objectKey(svc));
    const desired = clone(svc);
    removeFinalizer(desired, FINALIZER_SERVICE_LB_CLEANUP);
    if (!isDeleting(svc)) {
      if (desired.metadata.annotations) delete desired.metadata.annotations[ANN_KUBE_VIP_IPS];
      desired.status = { ...((svc.status ?? {}) as Record<string, unknown>), loadBalancer: {} };
    }
    writeChanges(guest, gk.service, svc, desired, { fieldManager: 'service-controller' });
  }

  function reconcile(key: string): number | undefined {
    const { namespace, name: svcName } = splitKey(key);
    let svc = guest.get(gk.service, namespace, svcName);
    if (!svc) {
      kubeVipDue.delete(key);
      return undefined;
    }
    const lbName = loadBalancerName(options.clusterName, String(namespace), svcName, String(svc.metadata.uid));
    const isLb = field(svc, 'spec', 'type') === 'LoadBalancer';
    if (isDeleting(svc) || !isLb) {
      if (hasFinalizer(svc, FINALIZER_SERVICE_LB_CLEANUP)) cleanup(svc, lbName);
      return undefined;
    }
    if (!hasFinalizer(svc, FINALIZER_SERVICE_LB_CLEANUP)) {
      const desired = clone(svc);
      addFinalizer(desired, FINALIZER_SERVICE_LB_CLEANUP);
      svc = writeChanges(guest, gk.service, svc, desired, { fieldManager: 'service-controller' });
    }
    let lb: KubeObject;
    try {
      lb = ensureLb(svc, lbName);
    } catch (err) {
      if (err instanceof SyncError) {
        report(svc, err.message);
        return undefined;
      }
      throw err;
    }
    if (!options.modernCcm) {
      const address = field<string>(lb, 'status', 'address');
      if (address) {
        setIngress(svc, address);
        lastEvent.delete(key);
      }
      return undefined;
    }
    const allocated = field<string>(lb, 'status', 'allocatedAddress', 'ip');
    if (!allocated) {
      // The real CCM polls for the address and fails the sync with the LB's Ready message; the LB watch retries.
      const ready = findCondition(lb, 'Ready');
      if (ready?.status === 'False' && ready.message) report(svc, `load balancer ${options.namespace}/${lbName} has no allocated IP: ${ready.message}`);
      return undefined;
    }
    if (ann(svc, ANN_KUBE_VIP_IPS) !== allocated) {
      const desired = clone(svc);
      desired.metadata.annotations = { ...(desired.metadata.annotations ?? {}), [ANN_KUBE_VIP_IPS]: allocated };
      svc = writeChanges(guest, gk.service, svc, desired, { fieldManager: 'harvester-cloud-provider' });
      kubeVipDue.set(key, clock.now().getTime() + options.delays.kubeVip);
    }
    const due = kubeVipDue.get(key) ?? 0;
    const now = clock.now().getTime();
    if (now < due) return due - now;
    const lbKey = `${options.namespace}/${lbName}`;
    const ip = allocated === DHCP_ASK_ADDRESS ? dhcpLease(options.dhcpRange, lbKey, harvester.list(hk.loadBalancer).items) : allocated;
    if (!ip) {
      report(svc, 'kube-vip got no DHCP lease: the simulated DHCP range is exhausted');
      return undefined;
    }
    setIngress(svc, ip);
    lastEvent.delete(key);
    if (field(lb, 'status', 'address') !== ip) {
      const desired = clone(lb);
      desired.status = { ...((lb.status ?? {}) as Record<string, unknown>), address: ip };
      writeChanges(harvester, hk.loadBalancer, lb, desired, { fieldManager: 'harvester-cloud-provider' });
    }
    return undefined;
  }

  const controller = new Controller({ name: 'guest-service-controller', clock, errors: ctx.errors, reconcile });
  const lbServices = (): string[] =>
    guest
      .list(gk.service)
      .items.filter((s) => field(s, 'spec', 'type') === 'LoadBalancer' || hasFinalizer(s, FINALIZER_SERVICE_LB_CLEANUP))
      .map(objectKey);
  controller.watch(guest, gk.service);
  controller.watch(harvester, hk.loadBalancer, (lb) => (lb.metadata.labels?.[LABEL_LB_CLUSTER] === options.clusterName ? lbServices() : []));
  // Old CCMs list the nodes as backends.
  if (!options.modernCcm) controller.watch(guest, gk.node, () => lbServices());
  return controller;
}
