/**
 * The HarvesterLoadBalancer inputs and outputs: the one source of truth (types, check, schema.json, docs/resources).
 * A Harvester load balancer (`loadbalancer.harvesterhci.io/v1beta1`, workloadType vm) gives VMs selected by
 * labels an address from an IP pool or from DHCP (docs/design/harvester-load-balancer.md).
 */
import { z } from 'zod';
import { connectionInputs } from '../../core/connection-inputs';
import { referenceInput } from '../../core/object-ref';
import { timeoutsInput } from '../../core/timeouts';
import { inputsFlagged } from '../../core/input-flags';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const port = (what: string) => z.number().int().min(1, { error: `${what} must be 1–65535` }).max(65535, { error: `${what} must be 1–65535` });

export const listenerSchema = z.strictObject({
  name: z.string().min(1).max(63).regex(DNS_LABEL, { error: 'must be a lower-case DNS label, e.g. "https"' }).describe('Listener name, unique in the load balancer. Required.'),
  port: port('port').describe('Port the load balancer listens on (1–65535). Unique per protocol. Required.'),
  protocol: z.enum(['TCP', 'UDP']).default('TCP').describe('Protocol. Default "TCP".'),
  backendPort: port('backendPort').describe('Port on the backend VMs (1–65535). Unique per protocol. Required.'),
});

/** Harvester's mutator fills zero fields with these (load-balancer-harvester pkg/webhook/loadbalancer/mutator.go). */
export const HEALTH_CHECK_DEFAULTS = { successThreshold: 2, failureThreshold: 2, periodSeconds: 1, timeoutSeconds: 1 } as const;

export const healthCheckSchema = z.strictObject({
  port: port('healthCheck.port').describe('Backend port probed over TCP; must be the backendPort of a TCP listener. Required.'),
  successThreshold: z.number().int().min(1).default(HEALTH_CHECK_DEFAULTS.successThreshold).describe('Probes that must succeed to mark a backend healthy. Default 2 (Harvester\'s webhook default).'),
  failureThreshold: z.number().int().min(1).default(HEALTH_CHECK_DEFAULTS.failureThreshold).describe('Probes that must fail to mark a backend unhealthy. Default 2.'),
  periodSeconds: z.number().int().min(1).default(HEALTH_CHECK_DEFAULTS.periodSeconds).describe('Seconds between probes. Default 1.'),
  timeoutSeconds: z.number().int().min(1).default(HEALTH_CHECK_DEFAULTS.timeoutSeconds).describe('Seconds before a probe fails. Default 1.'),
});

export const loadBalancerSchema = z.strictObject({
  ...connectionInputs,
  name: z.string().max(63).regex(DNS_LABEL, { error: 'must be a lower-case DNS label (a-z, 0-9, "-"), e.g. "web"' }).meta({ replaceOnChanges: true }).describe(
    'LoadBalancer name. Required. A change replaces the load balancer.',
  ),
  namespace: z.string().max(63).regex(DNS_LABEL, { error: 'must be a lower-case DNS label, e.g. "default"' }).default('default').meta({ replaceOnChanges: true }).describe(
    'Namespace of the load balancer and of the VMs it selects. Default "default". A change replaces the load balancer.',
  ),
  description: z.string().max(1024).optional().describe('Free text shown in the Harvester UI. Default none. A change updates in place.'),
  ipam: z.enum(['pool', 'dhcp']).default('pool').meta({ replaceOnChanges: true }).describe(
    'Where the address comes from: an IP pool, or DHCP on the VM network. Default "pool". Harvester refuses changing it in place, so a change ' +
      'replaces the load balancer (the old one is deleted first and its address released).',
  ),
  ipPool: z.string().max(63).regex(DNS_LABEL, { error: 'must be an IPPool name' }).optional().meta({ references: 'HarvesterIPPool', variant: 'vm' }).describe(
    'IP pool to take the address from (ipam "pool"). Default: chosen as Harvester chooses — pools whose selector matches the network and ' +
      'namespace, highest priority first, the global pool last. A change moves the address to the new pool in place.',
  ),
  network: referenceInput('VM network', 'default/vm-net').optional().describe(
    'VM network of the backends ("namespace/name", or a bare name in the load balancer\'s namespace; for workloadType "cluster", in ' +
      'cloudProviderNamespace, where the Harvester side is made); pools with a matching selector.network are preferred. Default none. ' +
      'A change updates in place.',
  ),
  workloadType: z.enum(['vm', 'cluster']).default('vm').meta({ replaceOnChanges: true, discriminator: true }).describe(
    '"vm": a Harvester load balancer in front of VMs (listeners, backendServerSelector). "cluster": a Service of type LoadBalancer in a guest ' +
      'cluster (guestKubeconfig, guestClusterName, ports, podSelector), for which the guest\'s Harvester cloud provider makes the Harvester load ' +
      'balancer; `name`/`namespace` are then the Service\'s. Default "vm". A change replaces the resource (Harvester refuses it in place).',
  ),
  listeners: z.array(listenerSchema).min(1, { error: 'must list at least one listener, e.g. [{ name: "http", port: 80, backendPort: 8080 }]' }).optional().meta({ variant: 'vm', required: true }).describe(
    'workloadType "vm": ports the load balancer serves. Names, protocol:port and protocol:backendPort must be unique. Required for "vm". A change updates in place.',
  ),
  backendServerSelector: z.record(z.string(), z.array(z.string()).min(1)).optional().meta({ variant: 'vm', required: true }).describe(
    'workloadType "vm": labels selecting the backend VMs (each key: one of these values), e.g. a HarvesterMachinePool\'s `backendSelector` output. ' +
      'Required for "vm". A change updates in place.',
  ),
  waitForBackends: z.boolean().optional().meta({ variant: 'vm' }).describe(
    'workloadType "vm": wait until the load balancer is Ready — a running backend behind it — before create and update are done. ' +
      'false: done once the address is allocated, for a control plane whose backends are made after it, from its address ' +
      '(Harvester\'s controller reports "no running backend servers" until then). Default: true (unset). A change updates nothing on the cluster.',
  ),
  guestKubeconfig: z.string().min(1).optional().meta({ secret: true, variant: 'cluster', required: true }).describe(
    'workloadType "cluster": kubeconfig (YAML or a path) of the guest cluster the Service lives in. Secret. Required for "cluster". Not part of the diff.',
  ),
  guestContext: z.string().min(1).optional().meta({ variant: 'cluster' }).describe('workloadType "cluster": context of guestKubeconfig. Default: its current-context.'),
  guestClusterName: z.string().min(1).max(63).optional().describe(
    'workloadType "cluster": the cluster name the guest\'s Harvester cloud provider runs with (its --cluster-name; Rancher sets the cluster\'s name). ' +
      'Required for "cluster". A change replaces the resource.',
  ).meta({ replaceOnChanges: true, variant: 'cluster', required: true }),
  ports: z.array(z.strictObject({
    name: z.string().min(1).max(63).regex(DNS_LABEL, { error: 'must be a lower-case DNS label, e.g. "https"' }).describe('Port name. Required.'),
    port: port('port').describe('Service port (1–65535). Required.'),
    targetPort: port('targetPort').optional().describe('Pod port. Default: the same as port.'),
    protocol: z.enum(['TCP', 'UDP']).default('TCP').describe('Protocol. Default "TCP".'),
  })).min(1, { error: 'must list at least one port, e.g. [{ name: "https", port: 443 }]' }).optional().meta({ variant: 'cluster', required: true }).describe(
    'workloadType "cluster": ports of the Service. Required for "cluster". A change updates in place.',
  ),
  podSelector: z.record(z.string(), z.string()).optional().meta({ variant: 'cluster' }).describe('workloadType "cluster": the Service\'s pod selector. Default none. A change updates in place.'),
  guestCloudProviderVersion: z.string().regex(/^v?\d+\.\d+\.\d+([-+][0-9A-Za-z.+-]*)?$/, { error: 'must be a version such as "v0.2.7"' }).optional().meta({ variant: 'cluster' }).describe(
    'workloadType "cluster": version of the guest\'s Harvester cloud provider. Default: read from the image of Deployment kube-system/harvester-cloud-provider.',
  ),
  cloudProviderNamespace: z.string().max(63).regex(DNS_LABEL).default('default').describe(
    'workloadType "cluster": Harvester namespace the guest\'s cloud provider creates its load balancers in (its kubeconfig\'s namespace). Default "default".',
  ),
  healthCheck: healthCheckSchema.optional().describe(
    'TCP health check of the backends. For "cluster" it becomes the cloudprovider.harvesterhci.io/healthcheck-* annotations, which only the guest\'s ' +
      'cloud provider below v0.2.0 reads (port: a Service port); with v0.2.0+ it is refused (use readiness probes). Default none. A change updates in place.',
  ),
  timeouts: timeoutsInput(
    {
      create: ['5m', 'Until an address is allocated and the load balancer is Ready.'],
      update: ['5m', 'Until it is Ready again.'],
      delete: ['5m', 'Until it is gone and its address released.'],
    },
    'Bounds of every wait. Default 5m each.',
  ),
});

export type LoadBalancerInputs = z.output<typeof loadBalancerSchema>;
export type LoadBalancerArgs = z.input<typeof loadBalancerSchema>;

export const loadBalancerOutputsSchema = loadBalancerSchema.extend({
  address: z.string().describe('The address the load balancer serves on ("" until allocated).'),
  allocatedPool: z.string().describe('IP pool the address came from ("" for DHCP).'),
  mask: z.string().describe('Netmask of the allocated address ("" for DHCP).'),
  gateway: z.string().describe('Gateway of the allocated address ("" when none).'),
  backendServers: z.array(z.string()).describe('Addresses of the running backend VMs.'),
  ready: z.boolean().describe('The Ready condition is True.'),
  message: z.string().describe('The Ready condition\'s message (empty when ready).'),
  drift: z.array(z.string()).describe('Differences found by the last read between the live load balancer and the recorded inputs.'),
  harvesterLoadBalancer: z.string().describe('The Harvester LoadBalancer serving it, "namespace/name" (for "cluster": the one the guest\'s cloud provider made).'),
});
export type LoadBalancerOutputs = z.output<typeof loadBalancerOutputsSchema>;

export const SECRET_INPUTS = inputsFlagged(loadBalancerSchema, 'secret');
export const REPLACE_INPUTS = inputsFlagged(loadBalancerSchema, 'replaceOnChanges');
export const OUTPUT_ONLY: readonly string[] = Object.keys(loadBalancerOutputsSchema.shape).filter((k) => !(k in loadBalancerSchema.shape));
