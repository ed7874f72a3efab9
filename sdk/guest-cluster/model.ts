/**
 * The GuestCluster component's arguments and outputs: the one source of truth (the SDK's GuestClusterArgs type, the
 * checks the component makes at construction, the page docs/resources/guest-cluster.md). A component is built in
 * the program (sdk/guest-cluster/component.ts) from the package's resources; this module stays free of
 * @pulumi/pulumi so the generators can read it.
 */
import { z } from 'zod';
import { REFERENCE_PATTERN } from '../../provider/core/object-ref';
import { DURATION_PATTERN } from '../../provider/await/duration';
import { QUANTITY_PATTERN } from '../../provider/core/quantity';
import { CNI_PLUGINS } from '../../provider/resources/guest-cluster-identity/model';
import { nodeStatusSchema } from '../../provider/resources/guest-cluster-ready/model';
import { RKE2_VERSION_EXAMPLE, RKE2_VERSION_PATTERN } from '../../provider/core/rke2/versions';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const CIDR = /^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/;
const version = z.string().regex(RKE2_VERSION_PATTERN, { error: `must be an RKE2 release such as "${RKE2_VERSION_EXAMPLE}"` });
const ref = (kind: string, example: string) => z.string().regex(REFERENCE_PATTERN, { error: `must name a ${kind} as "name" or "namespace/name", e.g. "${example}"` });
const quantity = (example: string) => z.string().regex(QUANTITY_PATTERN, { error: `must be a Kubernetes quantity such as "${example}"` });
const taint = z.string().regex(/^[^=:\s]+(=[^:\s]*)?:(NoSchedule|PreferNoSchedule|NoExecute)$/, { error: 'must be "key=value:Effect" or "key:Effect", Effect one of NoSchedule, PreferNoSchedule, NoExecute' });

/** What every pool of nodes says about its VMs. */
const machine = {
  cpu: z.number().int().min(1).default(4).describe('vCPU cores per VM. Default 4. A change rolls the pool.'),
  memory: quantity('8Gi').default('8Gi').describe('Memory per VM. Default "8Gi". A change rolls the pool.'),
  diskSize: quantity('40Gi').default('40Gi').describe('Boot disk size (cloned from image). Default "40Gi". A change rolls the pool.'),
  zones: z.array(z.string().min(1)).default([]).describe('Zones (host label topology.kubernetes.io/zone) to spread the VMs over. Default none. A change rolls the VMs that move.'),
  nodeLabels: z.record(z.string(), z.string()).default({}).describe('Labels of the Nodes, set by RKE2 at registration (node-label). Default none. A change rolls the pool.'),
  nodeTaints: z.array(taint).default([]).describe('Taints of the Nodes, set at registration (node-taint). Default none. A change rolls the pool.'),
};

const addressRange = (what: string) => z.strictObject({
  subnet: z.string().regex(CIDR, { error: 'must be an IPv4 CIDR, e.g. "10.0.10.0/24"' }).describe('Subnet of the addresses. Required.'),
  rangeStart: z.string().optional().describe('First address of the range. Default: the subnet\'s first host.'),
  rangeEnd: z.string().optional().describe('Last address of the range. Default: the subnet\'s last host.'),
  gateway: z.string().optional().describe('Gateway of the subnet. Default none.'),
}).describe(what);

export const controlPlaneSchema = z.strictObject({
  servers: z.number().int().min(1).max(9).default(3).describe(
    'Number of servers (control plane and etcd). Default 3. An even number is warned about: it tolerates no more failures than one server fewer. A change scales the server pool (a server leaves etcd before its VM goes).',
  ),
  ...machine,
  ipPool: z.string().max(63).regex(DNS_LABEL, { error: 'must be an IPPool name' }).optional().describe(
    'An existing IP pool the control-plane load balancer takes its address from. Give this or addresses. A change moves the address (the servers must then be replaced: the address is in their certificates).',
  ),
  addresses: addressRange('A range for an IP pool made for the control plane alone (HarvesterIPPool `<clusterName>-control-plane`, which no other load balancer takes an address from). Give this or ipPool.').optional(),
});

export const agentPoolSchema = z.strictObject({
  name: z.string().min(1).max(20).regex(DNS_LABEL, { error: 'must be a lower-case DNS label, e.g. "workers"' }).describe('Pool name; its VMs are `<clusterName>-<name>-<index>`. Required. A change replaces the pool.'),
  count: z.number().int().min(0).default(1).describe('Number of agents. Default 1. A change scales the pool (an agent leaves the guest before its VM goes).'),
  ...machine,
  kubernetesVersion: version.optional().describe('RKE2 release of this pool. Default: the cluster\'s kubernetesVersion. Never newer than the servers\' (refused at preview).'),
});

export const networkingSchema = z.strictObject({
  cni: z.enum(CNI_PLUGINS).default('canal').describe('CNI plugin. Default "canal".'),
  clusterCidr: z.string().regex(CIDR).default('10.42.0.0/16').describe('Pod network. Default "10.42.0.0/16".'),
  serviceCidr: z.string().regex(CIDR).default('10.43.0.0/16').describe('Service network. Default "10.43.0.0/16".'),
  clusterDns: z.string().optional().describe('Cluster DNS address. Default: the tenth address of serviceCidr.'),
  clusterDomain: z.string().default('cluster.local').describe('Cluster domain. Default "cluster.local".'),
  disableKubeProxy: z.boolean().default(false).describe('Run no kube-proxy. Default false.'),
});

export const guestClusterSchema = z.strictObject({
  clusterName: z.string().max(40).regex(DNS_LABEL, { error: 'must be a lower-case DNS label of at most 40 characters, e.g. "prod-1"' }).meta({ replaceOnChanges: true }).describe(
    'Name of the guest cluster: prefix of its VMs, the cloud provider\'s --cluster-name. Default: the component\'s name. A change replaces the whole cluster.',
  ),
  namespace: z.string().max(63).regex(DNS_LABEL).default('default').meta({ replaceOnChanges: true }).describe('Harvester namespace of the VMs. Default "default". A change replaces the whole cluster.'),
  kubernetesVersion: version.describe(
    `RKE2 release, e.g. "${RKE2_VERSION_EXAMPLE}". Required. A change rolls the servers one at a time (each replacement Ready before its predecessor leaves etcd), then the agent pools; a skipped minor version or a downgrade is refused at preview.`,
  ),
  image: ref('VirtualMachineImage', 'default/ubuntu-24.04').describe('Cloud image of every node (a HarvesterImage id). Required. A change rolls every pool.'),
  network: ref('VM network', 'default/vm-net').describe('VM network of every node (a HarvesterNetwork id). Required. A change rolls every pool.'),
  sshKeys: z.array(ref('KeyPair', 'default/ops')).default([]).describe('Key pairs authorised on every node. Default none. A change rolls every pool.'),
  controlPlane: controlPlaneSchema.describe('The servers and the load balancer in front of them (6443 and 9345, TCP health check on 6443). Required.'),
  agentPools: z.array(agentPoolSchema).default([]).describe('Pools of agents. Default none.'),
  networking: networkingSchema.default({ cni: 'canal', clusterCidr: '10.42.0.0/16', serviceCidr: '10.43.0.0/16', clusterDomain: 'cluster.local', disableKubeProxy: false }).meta({ replaceOnChanges: true }).describe(
    'What every server must share (RKE2\'s critical values) and RKE2 cannot change on a running cluster. A change replaces the whole cluster.',
  ),
  serviceAddresses: addressRange(
    'A range for the guest\'s Services of type LoadBalancer: an IP pool (`<clusterName>-services`, on the nodes\' network, scoped to this guest cluster) the Harvester cloud provider\'s load balancers take their addresses from. Default none: they need another pool that serves the guest cluster (or DHCP).',
  ).optional(),
  disable: z.array(z.string().min(1)).default([]).describe('RKE2 components not to deploy (config.yaml disable), e.g. ["rke2-ingress-nginx"]. Default none. A change rolls the servers.'),
  install: z.enum(['script', 'preinstalled']).default('script').describe(
    '"script": get.rke2.io installs kubernetesVersion at first boot; "preinstalled": the image already has RKE2 (of that version). Default "script". A change rolls every pool.',
  ),
  harvesterServerUrl: z.string().regex(/^https:\/\/\S+$/).optional().describe('URL the guests reach Harvester\'s API at (the cloud provider\'s kubeconfig). Default: the provider\'s own connection.'),
  readyTimeout: z.string().regex(DURATION_PATTERN).default('20m').describe('How long up waits for every node to be Ready and initialised. Default "20m".'),
});

export type GuestClusterInputs = z.output<typeof guestClusterSchema>;

export const guestClusterOutputsSchema = z.strictObject({
  kubeconfig: z.string().meta({ secret: true }).describe('Admin kubeconfig of the guest cluster (client certificate of its client CA, group system:masters). Works as soon as a server is up. Secret.'),
  endpoint: z.string().describe('Address of the control plane (its load balancer).'),
  apiServerUrl: z.string().describe('`https://<endpoint>:6443`.'),
  caCertificate: z.string().describe('The cluster\'s server CA (PEM).'),
  nodes: z.array(nodeStatusSchema).describe('Per node: VM, host, zone, kubelet version, Ready, providerID.'),
});

/**
 * The rules the schema cannot state, on the arguments known at construction (Outputs are judged by the resources
 * they reach): unique agent pool names, pool names that fit a VM name, one address source.
 */
export function guestClusterProblems(args: Record<string, unknown>): { property: string; reason: string }[] {
  const out: { property: string; reason: string }[] = [];
  const cp = args.controlPlane as Record<string, unknown> | undefined;
  if (cp && typeof cp === 'object' && (cp.ipPool === undefined) === (cp.addresses === undefined)) {
    out.push({ property: 'controlPlane', reason: 'give exactly one of ipPool (an existing IP pool) and addresses (a range for a pool made for the control plane)' });
  }
  const pools = Array.isArray(args.agentPools) ? (args.agentPools as { name?: unknown }[]) : [];
  const seen = new Set<string>(['server']);
  pools.forEach((p, i) => {
    if (typeof p?.name !== 'string') return;
    if (seen.has(p.name)) out.push({ property: `agentPools[${i}].name`, reason: `"${p.name}" is taken (by another pool, or "server" by the servers): name each pool once` });
    seen.add(p.name);
  });
  return out;
}
