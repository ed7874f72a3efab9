/**
 * Realistic VirtualMachine objects for the benchmarks that need many of them without a cluster: the VMs
 * the machine pool would build (desiredVirtualMachines), and the same VMs as the API server returns them
 * after Harvester and KubeVirt have added their fields (mirroring what the emulator adds).
 */
import type { VirtualMachine } from '../provider/client/objects';
import { desiredVirtualMachines, type DesiredPool, type MachinePoolContext } from '../provider/resources/machine-pool/desired';
import type { MachinePoolInputs } from '../provider/resources/machine-pool/model';
import type { ObservedMachine } from '../provider/resources/machine-pool/plan';
import { validateInputs } from '../provider/resources/machine-pool/validate';

const IMAGE = 'default/ubuntu-22.04-server-cloudimg';

/** What observe would resolve from the emulator's seeded cluster. PVC suffixes stay deterministic. */
export const BENCH_CONTEXT: MachinePoolContext = {
  imageStorageClasses: { [IMAGE]: 'longhorn-ubuntu-22.04-server-cloudimg' },
  keyPairPublicKeys: { 'default/ops-key': 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBenchmarkKeyOnlyForPlanning bench@example' },
};

/** Inputs (defaults applied) of a pool of `count` VMs over three zones, with a boot and a data disk. */
export function benchPoolInputs(count: number, options: { name?: string; cpu?: number } = {}): MachinePoolInputs {
  const v = validateInputs({
    name: options.name ?? 'bench',
    count,
    cpu: options.cpu ?? 2,
    disks: [{ image: IMAGE, size: '40Gi' }, { size: '100Gi' }],
    networks: [{ network: 'vm-net' }],
    sshKeys: ['ops-key'],
    zones: ['zone-a', 'zone-b', 'zone-c'],
    labels: { team: 'platform' },
  });
  if (!v.inputs) throw new Error(`bench: pool inputs refused: ${JSON.stringify(v.failures)}`);
  return v.inputs;
}

/** The desired pool of `count` VMs. */
export function benchDesiredPool(count: number, options: { name?: string; cpu?: number } = {}): DesiredPool {
  return desiredVirtualMachines(benchPoolInputs(count, options), BENCH_CONTEXT);
}

/** A VM as the API server returns it: ours plus what Harvester and KubeVirt add (as the emulator does). */
export function asLive(vm: VirtualMachine, i: number): VirtualMachine {
  // Free-form edits of a JSON copy: typing every server-added field would only restate the emulator.
  const live = JSON.parse(JSON.stringify(vm)) as any;
  const mac = `be:b2:ca:00:${(i >> 8).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')}`;
  const meta = live.metadata;
  Object.assign(meta.annotations, {
    'kubevirt.io/latest-observed-api-version': 'v1',
    'kubevirt.io/storage-observed-api-version': 'v1',
    'harvesterhci.io/vmRunStrategy': 'RerunOnFailure',
    'harvesterhci.io/mac-address': JSON.stringify({ 'nic-0': mac }),
  });
  Object.assign(meta, {
    generation: 2,
    uid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    creationTimestamp: '2026-01-01T00:00:00Z',
    resourceVersion: String(1000 + i),
    finalizers: ['kubevirt.io/virtualMachineControllerFinalize', 'wrangler.cattle.io/VMController.CleanupPVCAndSnapshot'],
  });
  const spec = live.spec.template.spec;
  spec.domain.cpu.maxSockets = 1;
  spec.domain.resources.requests = { cpu: '125m', memory: '2730Mi' };
  spec.domain.memory = { guest: spec.domain.resources.limits.memory };
  spec.domain.devices.interfaces[0].macAddress = mac;
  spec.terminationGracePeriodSeconds = 120;
  spec.architecture = 'amd64';
  // Harvester adds the management-network term to the node affinity.
  const mgmt = [{ key: 'network.harvesterhci.io/mgmt', operator: 'In', values: ['true'] }];
  const nodeAffinity = (spec.affinity.nodeAffinity ??= {});
  const required = (nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution ??= { nodeSelectorTerms: [] });
  if (required.nodeSelectorTerms.length === 0) required.nodeSelectorTerms.push({ matchExpressions: mgmt });
  else for (const term of required.nodeSelectorTerms) term.matchExpressions = [...(term.matchExpressions ?? []), ...mgmt];
  live.status = {
    created: true, ready: true, printableStatus: 'Running', runStrategy: 'RerunOnFailure', observedGeneration: 2, desiredGeneration: 2,
    conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:01Z' }],
  };
  return live as VirtualMachine;
}

/** The observed pool: every desired VM live, Running and ready. */
export function observedFrom(desired: DesiredPool): ObservedMachine[] {
  return desired.machines.map((m, i) => ({ name: m.name, index: m.index, vm: asLive(m.vm, i), secretExists: true, ready: true, deleting: false }));
}
