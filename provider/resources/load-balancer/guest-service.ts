/**
 * workloadType "cluster": a Service of type LoadBalancer in a guest cluster, which the guest's Harvester cloud
 * provider turns into a Harvester LoadBalancer (docs/design/guest-cloud-provider.md §"Service annotations",
 * §"The load balancer it makes"). We own the Service; the Harvester side is the cloud provider's, and we only read
 * it back (its name: `loadBalancerName` below, as the cloud provider computes it). Health-check annotations are
 * read only by cloud providers below v0.2.0; with v0.2.0+ they are refused at check with that reason (use readiness
 * probes).
 */
import { crc32 } from 'node:zlib';
import { waitFor, waitForDeletion } from '../../await';
import type { HarvesterClient } from '../../client/harvester-client';
import type { LoadBalancer, Service } from '../../client/objects';
import { stampOwnership } from '../../client/ownership';
import { qualify } from '../../core/object-ref';
import { timeoutMs } from '../../core/timeouts';
import { compareVersions, parseVersion } from '../../core/versions';
import { cloudProviderVersion } from '../../core/guest-cloud-provider';
import type { LoadBalancerInputs, LoadBalancerOutputs } from './model';
import { lbOwner, toOutputs } from './plan';

/** The Service annotations the cloud provider reads (cloud-provider-harvester pkg/utils/consts.go). */
export const SERVICE_ANNOTATIONS = {
  ipam: 'cloudprovider.harvesterhci.io/ipam',
  network: 'cloudprovider.harvesterhci.io/network',
  healthCheckPort: 'cloudprovider.harvesterhci.io/healthcheck-port',
  successThreshold: 'cloudprovider.harvesterhci.io/healthcheck-success-threshold',
  failureThreshold: 'cloudprovider.harvesterhci.io/healthcheck-failure-threshold',
  periodSeconds: 'cloudprovider.harvesterhci.io/healthcheck-periodseconds',
  timeoutSeconds: 'cloudprovider.harvesterhci.io/healthcheck-timeoutseconds',
  description: 'cloudprovider.harvesterhci.io/description',
} as const;

/** The first cloud-provider version that ignores the health-check annotations. */
export const HEALTH_CHECK_DROPPED_IN = 'v0.2.0';

const DNS1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** The Harvester LoadBalancer's name for a guest Service, as the cloud provider computes it (loadbalancer.go). */
export function loadBalancerName(clusterName: string, serviceNamespace: string, serviceName: string, serviceUid: string): string {
  const cluster = DNS1035.test(clusterName) && clusterName.length <= 63 ? clusterName : `a${clusterName}`;
  const base = `${cluster}-${serviceNamespace}-${serviceName}-`;
  const suffix = (crc32(base + serviceUid) >>> 0).toString(16).padStart(8, '0');
  return base.slice(0, 55) + suffix;
}

/** True when a cloud-provider version still reads the health-check annotations. */
export function readsHealthCheck(version: string): boolean {
  const v = parseVersion(version);
  return v !== undefined && compareVersions(v, parseVersion(HEALTH_CHECK_DROPPED_IN)!) < 0;
}

/** Why the health check cannot be honoured by this guest, or undefined when it can. */
export function healthCheckRefusal(version: string | undefined): string | undefined {
  if (version === undefined) return 'the guest\'s Harvester cloud provider version is unknown (Deployment kube-system/harvester-cloud-provider not found): set guestCloudProviderVersion';
  if (readsHealthCheck(version)) return undefined;
  return `the guest's Harvester cloud provider is ${version}; since ${HEALTH_CHECK_DROPPED_IN} it ignores health-check annotations (the cluster load balancer has no health check): remove healthCheck and give the pods readiness probes`;
}

export function desiredService(inputs: LoadBalancerInputs): Service {
  const annotations: Record<string, string> = { [SERVICE_ANNOTATIONS.ipam]: inputs.ipam };
  // The cloud provider copies it onto the Harvester load balancer it makes in cloudProviderNamespace.
  if (inputs.network) annotations[SERVICE_ANNOTATIONS.network] = qualify(inputs.network, inputs.cloudProviderNamespace);
  if (inputs.description) annotations[SERVICE_ANNOTATIONS.description] = inputs.description;
  if (inputs.healthCheck) {
    annotations[SERVICE_ANNOTATIONS.healthCheckPort] = String(inputs.healthCheck.port);
    annotations[SERVICE_ANNOTATIONS.successThreshold] = String(inputs.healthCheck.successThreshold);
    annotations[SERVICE_ANNOTATIONS.failureThreshold] = String(inputs.healthCheck.failureThreshold);
    annotations[SERVICE_ANNOTATIONS.periodSeconds] = String(inputs.healthCheck.periodSeconds);
    annotations[SERVICE_ANNOTATIONS.timeoutSeconds] = String(inputs.healthCheck.timeoutSeconds);
  }
  const spec: NonNullable<Service['spec']> = {
    type: 'LoadBalancer',
    ports: (inputs.ports ?? []).map((p) => ({ name: p.name, port: p.port, protocol: p.protocol, targetPort: p.targetPort ?? p.port })),
  };
  if (inputs.podSelector) spec.selector = { ...inputs.podSelector };
  return stampOwnership({ apiVersion: 'v1', kind: 'Service', metadata: { name: inputs.name, namespace: inputs.namespace, annotations }, spec }, lbOwner(inputs.name));
}

/** The Service's managed fields as inputs (for read-back and drift). */
export function serviceInputs(svc: Service): Pick<LoadBalancerInputs, 'ipam' | 'network' | 'description' | 'ports' | 'podSelector' | 'healthCheck'> {
  const a = svc.metadata.annotations ?? {};
  const out: ReturnType<typeof serviceInputs> = {
    ipam: a[SERVICE_ANNOTATIONS.ipam] === 'dhcp' ? 'dhcp' : 'pool',
    ports: (svc.spec?.ports ?? []).map((p) => {
      const port: NonNullable<LoadBalancerInputs['ports']>[number] = { name: p.name ?? '', port: p.port, protocol: p.protocol === 'UDP' ? 'UDP' : 'TCP' };
      if (typeof p.targetPort === 'number' && p.targetPort !== p.port) port.targetPort = p.targetPort;
      return port;
    }),
  };
  if (a[SERVICE_ANNOTATIONS.network]) out.network = a[SERVICE_ANNOTATIONS.network];
  if (a[SERVICE_ANNOTATIONS.description]) out.description = a[SERVICE_ANNOTATIONS.description];
  if (svc.spec?.selector && Object.keys(svc.spec.selector).length) out.podSelector = { ...svc.spec.selector };
  if (a[SERVICE_ANNOTATIONS.healthCheckPort]) {
    const n = (key: keyof typeof SERVICE_ANNOTATIONS) => Number(a[SERVICE_ANNOTATIONS[key]]);
    out.healthCheck = { port: n('healthCheckPort'), successThreshold: n('successThreshold'), failureThreshold: n('failureThreshold'), periodSeconds: n('periodSeconds'), timeoutSeconds: n('timeoutSeconds') };
  }
  return out;
}

/** Outputs of a guest Service: the Harvester LoadBalancer the cloud provider made (if found), the Service's address. */
export function serviceOutputs(inputs: LoadBalancerInputs, svc: Service, lb: LoadBalancer | undefined, drift: string[] = []): LoadBalancerOutputs {
  const address = svc.status?.loadBalancer?.ingress?.[0]?.ip ?? lb?.status?.address ?? '';
  if (lb) return { ...toOutputs(inputs, lb, drift), address };
  return {
    ...inputs,
    address,
    allocatedPool: '',
    mask: '',
    gateway: '',
    backendServers: [],
    ready: false,
    message: 'the guest\'s cloud provider has not made the Harvester load balancer yet',
    drift,
    harvesterLoadBalancer: '',
  };
}

/** The guest's cloud-provider version (override, else its Deployment's image). */
export function guestVersion(guest: HarvesterClient, inputs: Pick<LoadBalancerInputs, 'guestCloudProviderVersion'>): Promise<string | undefined> {
  return cloudProviderVersion(guest, inputs.guestCloudProviderVersion);
}

/** Waits until the Service has an address and the Harvester load balancer behind it is found; returns both. */
export async function waitForServiceAddress(
  guest: HarvesterClient,
  harvester: HarvesterClient,
  inputs: LoadBalancerInputs,
  op: 'create' | 'update',
  onProgress?: (line: string) => void,
): Promise<{ svc: Service; lb: LoadBalancer | undefined }> {
  const [svc] = await waitFor<Service>({
    resource: guest.services,
    namespace: inputs.namespace,
    name: inputs.name,
    timeoutMs: timeoutMs(inputs.timeouts, op),
    what: `guest Service ${inputs.namespace}/${inputs.name} to get a load-balancer address`,
    timeoutOption: `timeouts.${op}`,
    onProgress,
    check: ([s]) => {
      const ip = s?.status?.loadBalancer?.ingress?.[0]?.ip;
      return ip
        ? { done: true, description: `guest Service ${inputs.namespace}/${inputs.name} serves on ${ip}` }
        : { done: false, description: `guest Service ${inputs.namespace}/${inputs.name}: waiting for the guest's Harvester cloud provider`, pending: ['an ingress address on the Service (is the Harvester cloud provider running in the guest, with the right --cluster-name?)'] };
    },
  });
  return { svc, lb: await harvesterSide(harvester, inputs, svc) };
}

/** The Harvester LoadBalancer the cloud provider made for `svc` (undefined when not found). */
export function harvesterSide(harvester: HarvesterClient, inputs: LoadBalancerInputs, svc: Service): Promise<LoadBalancer | undefined> {
  const name = loadBalancerName(inputs.guestClusterName!, inputs.namespace, inputs.name, String(svc.metadata.uid ?? ''));
  return harvester.loadBalancers.get(name, inputs.cloudProviderNamespace);
}

/** Deletes the Service and waits until the cloud provider has removed the Harvester side (address released). */
export async function deleteService(guest: HarvesterClient, harvester: HarvesterClient, inputs: LoadBalancerInputs, svc: Service, onProgress?: (line: string) => void): Promise<void> {
  const lbName = loadBalancerName(inputs.guestClusterName!, inputs.namespace, inputs.name, String(svc.metadata.uid ?? ''));
  const deleteMs = timeoutMs(inputs.timeouts, 'delete');
  await guest.services.delete(inputs.name, { namespace: inputs.namespace, owner: lbOwner(inputs.name) });
  await waitForDeletion<Service>({ resource: guest.services, namespace: inputs.namespace, name: inputs.name, timeoutMs: deleteMs, timeoutOption: 'timeouts.delete', what: `guest Service ${inputs.namespace}/${inputs.name} to be deleted`, onProgress });
  await waitForDeletion<LoadBalancer>({
    resource: harvester.loadBalancers,
    namespace: inputs.cloudProviderNamespace,
    name: lbName,
    timeoutMs: deleteMs,
    timeoutOption: 'timeouts.delete',
    what: `LoadBalancer ${inputs.cloudProviderNamespace}/${lbName} (made by the guest's cloud provider) to be deleted`,
    onProgress,
  });
}
