/**
 * The pool's outputs: the inputs (so `diff` and `read` can compare against them) with the secret ones
 * reduced to hashes, plus what the cluster reports per VM. `kubeconfig` is kept because read/update/delete
 * receive only outputs; it keeps the input's name, so Pulumi marks it secret in state like the input.
 */
import { secretDigest } from '../../core/hash';
import { z } from 'zod';
import { ownershipLabels } from './labels';
import { machinePoolSchema, type MachinePoolInputs } from './model';

/** What the cluster reports about one VM. */
export const machineStatusSchema = z.strictObject({
  name: z.string().describe('VM name ("<pool>-<index>").'),
  index: z.number().int().describe('Index of the VM in the pool.'),
  zone: z.string().optional().describe('Zone the VM is pinned to (or its host\'s zone when not pinned).'),
  host: z.string().optional().describe('Harvester host running it.'),
  ip: z.string().optional().describe('First IPv4 address of the first NIC (nic-0), as qemu-guest-agent reports it.'),
  phase: z.string().describe(
    'VMI phase (Pending, Scheduling, Scheduled, Running, …), "Stopped" without a VMI, "Terminating" when deleting, ' +
      '"Missing" when read found a recorded VM gone (deleted outside Pulumi; the next update recreates it).',
  ),
  ready: z.boolean().describe('Running with an IPv4 address.'),
});
export type MachineStatus = z.output<typeof machineStatusSchema>;

/** The pool's outputs beyond its inputs (userData and networkData are kept only as keyed digests). */
export const machinePoolOutputsSchema = machinePoolSchema.omit({ userData: true, networkData: true, guestCredentials: true, initUserData: true, guestKubeconfig: true }).extend({
  userDataHash: z.string().optional().describe('Keyed digest (hmac-sha256) of the userData input, never the data itself. Secret.').meta({ secret: true }),
  networkDataHash: z.string().optional().describe('Keyed digest of the networkData input. Secret.').meta({ secret: true }),
  guestCredentialsHash: z.string().optional().describe('Keyed digest of the guestCredentials input. Secret.').meta({ secret: true }),
  initUserDataHash: z.string().optional().describe('Keyed digest of the initUserData input. Secret.').meta({ secret: true }),
  initMachine: z.string().optional().describe('The VM made from initUserData, while it exists (it initialised the cluster; every other VM joined).'),
  initCloudInitHash: z.string().optional().describe('Keyed digest of the rendered cloud-init user data of initMachine. Secret.').meta({ secret: true }),
  machines: z.array(machineStatusSchema).describe('Per VM, by index.'),
  readyCount: z.number().int().describe('VMs Running with an IPv4 address.'),
  drift: z.array(z.string()).describe('Differences found by the last read between the cluster and the recorded inputs (one line each).'),
  cloudInitHash: z.string().optional().describe('Keyed digest of the rendered cloud-init user data every VM carries (agent and keys merged in). Secret.').meta({ secret: true }),
  importGaps: z.array(z.string()).optional().describe(
    'Set by an import only: the inputs the cluster does not record (timeouts, rollingUpdate, volumeDeletion, capacityCheck, guestAgent when the user data ' +
      'starts the agent itself) or records in part (zones: only those a VM sits in). Until the next update records them, diff takes the ' +
      'program\'s values for these (for zones: any list holding every zone a VM sits in).',
  ),
  backendSelector: z.record(z.string(), z.array(z.string())).describe(
    'Label selector of the pool\'s VMs (their VMIs carry these labels): give it to HarvesterLoadBalancer.backendServerSelector to put a load balancer in front of the pool.',
  ),
});

/** The pool's outputs. */
export type MachinePoolOutputs = Omit<MachinePoolInputs, 'userData' | 'networkData' | 'guestCredentials' | 'initUserData' | 'guestKubeconfig'> & {
  userDataHash?: string;
  initUserDataHash?: string;
  initMachine?: string;
  initCloudInitHash?: string;
  networkDataHash?: string;
  guestCredentialsHash?: string;
  machines: MachineStatus[];
  readyCount: number;
  drift: string[];
  cloudInitHash?: string;
  importGaps?: string[];
  backendSelector: Record<string, string[]>;
};

/** The selector of the pool's VMIs, in the shape of a load balancer's backendServerSelector. */
export function backendSelectorOf(pool: { namespace: string; name: string }): Record<string, string[]> {
  return Object.fromEntries(Object.entries(ownershipLabels(pool)).map(([k, v]) => [k, [v]]));
}

/** toOutputs builds outputs from inputs (defaults applied) and the observed VMs. */
export function toOutputs(inputs: MachinePoolInputs, machines: MachineStatus[], drift: string[] = [], cloudInitHash?: string, init?: { machine: string; cloudInitHash: string }): MachinePoolOutputs {
  const { userData, networkData, guestCredentials, initUserData, guestKubeconfig: _guest, ...rest } = inputs;
  const outputs: MachinePoolOutputs = {
    ...rest,
    machines: [...machines].sort((a, b) => a.index - b.index),
    readyCount: machines.filter((m) => m.ready).length,
    drift,
    backendSelector: backendSelectorOf(inputs),
  };
  const salt = `${inputs.namespace}/${inputs.name}`;
  const userDataHash = secretDigest(userData, salt);
  const networkDataHash = secretDigest(networkData, salt);
  if (userDataHash) outputs.userDataHash = userDataHash;
  if (networkDataHash) outputs.networkDataHash = networkDataHash;
  const guestCredentialsHash = secretDigest(guestCredentials, salt);
  if (guestCredentialsHash) outputs.guestCredentialsHash = guestCredentialsHash;
  if (cloudInitHash) outputs.cloudInitHash = cloudInitHash;
  const initUserDataHash = secretDigest(initUserData, salt);
  if (initUserDataHash) outputs.initUserDataHash = initUserDataHash;
  if (init) Object.assign(outputs, { initMachine: init.machine, initCloudInitHash: init.cloudInitHash });
  return outputs;
}
