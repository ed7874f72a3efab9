/**
 * TopologyLabels: `topology.kubernetes.io/region` / `zone` on Harvester hosts, and their sync to guest nodes.
 * Model (model.ts) → plan (plan.ts, diff.ts, versions.ts; pure) → apply (apply.ts; reads in observe.ts,
 * guest.ts); handlers.ts puts them behind the dynamic-provider contract.
 */
export { createTopologyLabelsProvider, type TopologyLabelsProvider, type TopologyLabelsProviderOptions } from './handlers';
export {
  topologyLabelsSchema, topologyLabelsOutputsSchema, hostTopologySchema, guestNodeStatusSchema, SECRET_INPUTS, REPLACE_INPUTS,
  TOPOLOGY_KEYS, OWNER_ANNOTATION, PREVIOUS_ANNOTATION,
  type TopologyLabelsInputs, type TopologyLabelsArgs, type TopologyLabelsOutputs, type HostTopology, type GuestNodeStatus,
} from './model';
export { planHost, zoneWarning, distinctZones, driftOf, type HostPlan, type LiveHost } from './plan';
export { syncSupport, rke2Refusal } from './versions';
export { parseVersion as parseGuestVersion } from '../../core/versions';
export { validateInputs } from './validate';
