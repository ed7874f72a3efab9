/**
 * The GuestClusterReady inputs and outputs: the one source of truth (types, check, schema.json, docs).
 * When a guest cluster counts as up (docs/design/guest-rke2.md §"What a provider can observe"): every expected Node
 * registered, Ready, and initialised by the Harvester cloud provider — providerID `harvester://<VM uid>` of the VM
 * of its name, no `node.cloudprovider.kubernetes.io/uninitialized` taint — watched through the guest's API. It
 * writes nothing; when a node cannot come up it says why: a token that is not the cluster's, a supervisor that
 * cannot be reached, or a node not Ready in time.
 */
import { z } from 'zod';
import { connectionInputs } from '../../core/connection-inputs';
import { inputsFlagged } from '../../core/input-flags';
import { timeoutsInput } from '../../core/timeouts';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export const expectedNodeSchema = z.strictObject({
  name: z.string().max(63).regex(DNS_LABEL, { error: 'must be a VM name (a lower-case DNS label)' }).describe('Name of the VM, which is the name of its Node. Required.'),
  role: z.enum(['server', 'agent']).describe('"server" (control plane and etcd) or "agent". Required.'),
});

/** The GuestClusterReady inputs (zod schema). */
export const guestClusterReadySchema = z.strictObject({
  ...connectionInputs,
  clusterName: z.string().max(63).regex(DNS_LABEL, { error: 'must be a lower-case DNS label, e.g. "prod-1"' }).meta({ replaceOnChanges: true }).describe(
    'Name of the guest cluster (as its GuestClusterIdentity). Required. A change replaces the resource.',
  ),
  namespace: z.string().max(63).regex(DNS_LABEL, { error: 'must be a lower-case DNS label, e.g. "default"' }).default('default').meta({ replaceOnChanges: true }).describe(
    'Harvester namespace of the cluster\'s VMs. Default "default". A change replaces the resource.',
  ),
  guestKubeconfig: z.string().min(1).meta({ secret: true }).describe('Kubeconfig of the guest cluster (GuestClusterIdentity\'s adminKubeconfig). Secret. Required.'),
  nodes: z.array(expectedNodeSchema).describe(
    'The Nodes the cluster must have: one per VM of its pools (a HarvesterMachinePool\'s machines[].name). Required. A change waits for the new list.',
  ),
  supervisorUrl: z.string().regex(/^https:\/\/\S+$/, { error: 'must be an https:// URL, e.g. "https://10.0.0.20:9345"' }).optional().describe(
    'The supervisor every joining node reaches (GuestClusterIdentity\'s supervisorUrl): probed to say why a node does not join. Default none (no probe).',
  ),
  loadBalancer: z.string().max(63).regex(DNS_LABEL, { error: 'must be a LoadBalancer name' }).optional().describe(
    'The control-plane HarvesterLoadBalancer (in namespace): its listeners and backends say why the supervisor cannot be reached. Default none.',
  ),
  serverToken: z.string().optional().meta({ secret: true }).describe('The cluster\'s server token: a server whose user data carries another never joins. Secret. Default none (not compared).'),
  agentToken: z.string().optional().meta({ secret: true }).describe('The cluster\'s agent token: an agent whose user data carries another never joins. Secret. Default none (not compared).'),
  timeouts: timeoutsInput(
    {
      create: ['20m', 'Until every Node is Ready and initialised (CAPHV allows 20m per node start).'],
      update: ['20m', 'Until every Node of the new list is Ready and initialised.'],
      delete: ['1m', 'Nothing is deleted; kept for symmetry.'],
    },
    'Bounds of every wait.',
  ),
});

export type GuestClusterReadyInputs = z.output<typeof guestClusterReadySchema>;
export type GuestClusterReadyArgs = z.input<typeof guestClusterReadySchema>;

export const nodeStatusSchema = z.strictObject({
  name: z.string().describe('Node (and VM) name.'),
  role: z.enum(['server', 'agent']).describe('"server" or "agent".'),
  vm: z.string().describe('The VM, "namespace/name".'),
  host: z.string().optional().describe('Harvester host running the VM.'),
  zone: z.string().optional().describe('Zone of the Node (topology.kubernetes.io/zone, as the cloud provider sets it).'),
  kubeletVersion: z.string().optional().describe('The kubelet (RKE2) version the Node reports.'),
  ready: z.boolean().describe('The Node\'s Ready condition is True.'),
  providerId: z.string().optional().describe('The Node\'s providerID (`harvester://<VM uid>` once the cloud provider initialised it).'),
  initialised: z.boolean().describe('providerID names this VM and the uninitialized taint is gone.'),
  waitingFor: z.string().optional().describe('What is missing, while not ready and initialised.'),
});
export type NodeStatus = z.output<typeof nodeStatusSchema>;

export const guestClusterReadyOutputsSchema = guestClusterReadySchema.extend({
  nodeStatus: z.array(nodeStatusSchema).describe('Per expected node: VM, host, zone, kubelet version, Ready, providerID.'),
  readyCount: z.number().int().describe('Nodes Ready and initialised.'),
  drift: z.array(z.string()).describe('Nodes found not Ready or not initialised by the last read.'),
});
export type GuestClusterReadyOutputs = z.output<typeof guestClusterReadyOutputsSchema>;

export const SECRET_INPUTS = inputsFlagged(guestClusterReadySchema, 'secret');
