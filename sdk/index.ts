/**
 * harvester-iac: the typed Pulumi SDK.
 *
 *     import * as harvester from 'harvester-iac';
 *     const pool = new harvester.HarvesterMachinePool('workers', { name: 'workers', count: 3, ... });
 *
 * The classes are generated from the resources' zod models (sdk/registry.ts → sdk/generated/resources.ts);
 * credentials come from stack config `harvester:kubeconfig` (secret) and `harvester:context`.
 * `getCapacity()` reports what the hosts and a namespace's quotas can still take (sdk/capacity.ts).
 * The model types (inputs after defaults, outputs) are exported too, for programs that compute inputs.
 */
export * from './generated/resources';
export { getCapacity, type GetCapacityArgs, type Capacity, type HostCapacity, type ZoneCapacity, type QuotaCapacity, type DiskCapacity, type Resources, type CapacitySettings, type LauncherPod } from './capacity';
export { RESOURCES, PACKAGE_NAME, type ResourceEntry } from './registry';
export type { MachinePoolArgs, MachinePoolInputs, MachinePoolOutputs, MachineStatus } from '../provider/resources/machine-pool';
export type { TopologyLabelsArgs, TopologyLabelsInputs, TopologyLabelsOutputs, HostTopology, GuestNodeStatus } from '../provider/resources/topology-labels';
export { COMPONENTS, type ComponentEntry } from './registry';
export { GuestCluster, GUEST_CLUSTER_TYPE, type GuestClusterArgs } from './guest-cluster/component';
export type { GuestClusterInputs } from './guest-cluster/model';
export type { NodeStatus } from '../provider/resources/guest-cluster-ready/model';
