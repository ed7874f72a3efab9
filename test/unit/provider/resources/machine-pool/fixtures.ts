/**
 * Fixtures for the machine-pool unit tests: valid inputs, a resolved context, and `asHarvesterServes`, which adds
 * to a VM what Harvester/KubeVirt add on a real cluster (docs/design/harvester-vms.md
 * §"What Harvester and KubeVirt add", as seen on a real node-driver VM), so drift normalisation is proven against
 * them.
 */
import type { VirtualMachine } from '../../../../../provider/client/objects';
import type { MachinePoolContext } from '../../../../../provider/resources/machine-pool/desired';
import { machinePoolSchema, type MachinePoolArgs, type MachinePoolInputs } from '../../../../../provider/resources/machine-pool/model';
import type { ObservedMachine } from '../../../../../provider/resources/machine-pool/plan';

/** Valid inputs with defaults applied, overridable. */
export function inputs(overrides: Partial<MachinePoolArgs> = {}): MachinePoolInputs {
  return machinePoolSchema.parse({
    name: 'pool-a',
    count: 3,
    disks: [{ image: 'ubuntu-22.04-server-cloudimg', size: '40Gi' }],
    networks: [{ network: 'vm-net' }],
    ...overrides,
  });
}

/** The context observe would resolve for the seeded emulator. */
export function context(overrides: Partial<MachinePoolContext> = {}): MachinePoolContext {
  return {
    imageStorageClasses: {
      'default/ubuntu-22.04-server-cloudimg': 'longhorn-ubuntu-22.04-server-cloudimg',
      'default/opensuse-leap-15.6': 'lh-6a1f',
    },
    keyPairPublicKeys: { 'default/ops-key': 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOps ops@example' },
    volumeSuffix: () => 'x7k2q',
    ...overrides,
  };
}

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** asHarvesterServes returns the VM as the API would serve it after Harvester's webhooks and controllers. */
export function asHarvesterServes(vm: VirtualMachine, options: { hotplug?: boolean; clusterNetworks?: string[] } = {}): VirtualMachine {
  const live = clone(vm) as VirtualMachine & { status?: Record<string, unknown> };
  live.metadata.uid = 'cf6d1340-c8b1-4e0a-b946-a6c8e57c59e7';
  live.metadata.resourceVersion = '416384';
  live.metadata.generation = 2;
  live.metadata.creationTimestamp = '2025-12-11T14:30:09Z';
  live.metadata.finalizers = ['kubevirt.io/virtualMachineControllerFinalize', 'wrangler.cattle.io/VMController.CleanupPVCAndSnapshot'];
  live.metadata.annotations = {
    ...live.metadata.annotations,
    'harvesterhci.io/mac-address': '{"nic-0":"3a:06:c2:72:0b:a6"}',
    'harvesterhci.io/vmRunStrategy': 'RerunOnFailure',
    'kubevirt.io/latest-observed-api-version': 'v1',
    'kubevirt.io/storage-observed-api-version': 'v1',
  };
  const spec = live.spec!.template!.spec as Record<string, any>;
  live.spec!.template!.metadata!.creationTimestamp = null as unknown as string;
  spec.architecture = 'amd64';
  spec.terminationGracePeriodSeconds = 120;
  spec.domain.cpu.maxSockets = 1;
  spec.domain.machine = { type: 'q35' };
  spec.domain.memory = { guest: '3996Mi' };
  spec.domain.resources.requests = { cpu: '125m', memory: '2730Mi' };
  spec.domain.devices.interfaces = spec.domain.devices.interfaces.map((i: Record<string, unknown>) => ({ ...i, macAddress: '3a:06:c2:72:0b:a6' }));
  // Harvester's VM mutator ANDs one term per cluster network of the VM's networks into the node affinity
  // (mutator.go patchAffinity): `mgmt` for VLANs on the management network, the cluster network's name otherwise.
  const terms = (options.clusterNetworks ?? ['mgmt']).map((cn) => ({ key: `network.harvesterhci.io/${cn}`, operator: 'In', values: ['true'] }));
  spec.affinity = spec.affinity ?? {};
  const node = (spec.affinity.nodeAffinity ??= {});
  const required = (node.requiredDuringSchedulingIgnoredDuringExecution ??= { nodeSelectorTerms: [{ matchExpressions: [] }] });
  for (const term of required.nodeSelectorTerms) term.matchExpressions = [...(term.matchExpressions ?? []), ...terms];
  if (options.hotplug) {
    spec.domain.devices.disks.push({ name: 'pvc-2b31db45', disk: { bus: 'scsi' } });
    spec.volumes.push({ name: 'pvc-2b31db45', persistentVolumeClaim: { claimName: 'pvc-2b31db45', hotpluggable: true } });
  }
  live.status = { printableStatus: 'Running', ready: true, created: true };
  return live;
}

/** observed wraps live VMs as observe reports them. */
export function observed(vms: VirtualMachine[], overrides: Partial<ObservedMachine> = {}): ObservedMachine[] {
  return vms.map((vm) => ({
    name: vm.metadata.name!,
    index: Number(vm.metadata.labels?.['harvester-iac.io/pool-index']),
    vm,
    secretExists: true,
    ready: true,
    deleting: false,
    ...overrides,
  }));
}
