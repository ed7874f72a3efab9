/**
 * The typed SDK surface: argument and output types of every resource, inferred from the resources' zod models
 * (provider/resources/<name>/model.ts), so programs type-check against exactly what `check` validates.
 * The Pulumi resource classes and CDKTF constructs taking these arguments build on this module.
 */
export type { MachinePoolArgs, MachinePoolInputs, MachinePoolOutputs, MachineStatus } from '../provider/resources/machine-pool';
export type { TopologyLabelsArgs, TopologyLabelsInputs, TopologyLabelsOutputs, HostTopology, GuestNodeStatus } from '../provider/resources/topology-labels';
