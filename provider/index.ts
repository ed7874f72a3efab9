/**
 * harvester-iac/provider: the resource providers, each an object in the shape of Pulumi's
 * `dynamic.ResourceProvider` (check / diff / create / read / update / delete), so the SDK, tests and outside
 * checks can drive them directly. `loadBalancer`, `ipPool` and `topologyLabels` will sit beside
 * `machinePool`.
 */
import type { ResourceProvider } from './core/types';
import { createMachinePoolProvider } from './resources/machine-pool/handlers';
import { createTopologyLabelsProvider } from './resources/topology-labels/handlers';

/** The HarvesterMachinePool provider (inputs: MachinePoolArgs; outputs: MachinePoolOutputs). */
export const machinePool: ResourceProvider = createMachinePoolProvider();

/** The TopologyLabels provider (inputs: TopologyLabelsArgs; outputs: TopologyLabelsOutputs). */
export const topologyLabels: ResourceProvider = createTopologyLabelsProvider();

export type { ResourceProvider, CheckResult, CheckFailure, DiffResult, CreateResult, ReadResult, UpdateResult, ID } from './core/types';
export { UNKNOWN, isUnknown } from './core/unknowns';
export { ProviderError, ResourceInitError } from './core/errors';
export * as machinePools from './resources/machine-pool';
export * as topologyLabelSets from './resources/topology-labels';
