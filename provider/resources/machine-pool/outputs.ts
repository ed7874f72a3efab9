/**
 * The pool's outputs: the inputs (so `diff` and `read` can compare against them) with the secret ones
 * reduced to hashes, plus what the cluster reports per VM. `kubeconfig` is kept because read/update/delete
 * receive only outputs; it keeps the input's name, so Pulumi marks it secret in state like the input.
 */
import { hashOptional } from '../../core/hash';
import type { MachinePoolInputs } from './model';

/** What the cluster reports about one VM. */
export interface MachineStatus {
  name: string;
  index: number;
  /** Zone the VM is pinned to (or its host's zone when not pinned). */
  zone?: string;
  /** Host node running it. */
  host?: string;
  /** First IPv4 address of the first NIC (nic-0). */
  ip?: string;
  /**
   * VMI phase (Pending, Scheduling, Scheduled, Running, …), `Stopped` without a VMI, `Terminating` when
   * deleting, `Missing` when read found a recorded VM gone (deleted outside Pulumi; the next update recreates it).
   */
  phase: string;
  /** Running with an IPv4 address. */
  ready: boolean;
}

/** The pool's outputs. */
export type MachinePoolOutputs = Omit<MachinePoolInputs, 'userData' | 'networkData'> & {
  /** `sha256:<hex>` of the userData input (never the data itself). */
  userDataHash?: string;
  /** `sha256:<hex>` of the networkData input. */
  networkDataHash?: string;
  /** Per VM, by index. */
  machines: MachineStatus[];
  /** VMs Running with an IPv4 address. */
  readyCount: number;
  /** Differences found by the last read between the cluster and the recorded inputs (one line each). */
  drift: string[];
  /** `sha256:<hex>` of the rendered cloud-init user data every VM carries (agent and keys merged in). */
  cloudInitHash?: string;
};

/** toOutputs builds outputs from inputs (defaults applied) and the observed VMs. */
export function toOutputs(inputs: MachinePoolInputs, machines: MachineStatus[], drift: string[] = [], cloudInitHash?: string): MachinePoolOutputs {
  const { userData, networkData, ...rest } = inputs;
  const outputs: MachinePoolOutputs = {
    ...rest,
    machines: [...machines].sort((a, b) => a.index - b.index),
    readyCount: machines.filter((m) => m.ready).length,
    drift,
  };
  const userDataHash = hashOptional(userData);
  const networkDataHash = hashOptional(networkData);
  if (userDataHash) outputs.userDataHash = userDataHash;
  if (networkDataHash) outputs.networkDataHash = networkDataHash;
  if (cloudInitHash) outputs.cloudInitHash = cloudInitHash;
  return outputs;
}
