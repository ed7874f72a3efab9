/** Core v1 Node (cluster-scoped): Harvester hosts, and the guest cluster's nodes. */
import { KindInfo } from '../../api/types';
import {
  arr,
  bool,
  int32,
  int64,
  kubeObject,
  obj,
  oneOf,
  opaque,
  probeConditions,
  resourceList,
  str,
  time,
} from '../schema/builders';

const taint = obj(
  {
    key: str(),
    value: str(),
    effect: oneOf(['NoSchedule', 'PreferNoSchedule', 'NoExecute']),
    timeAdded: time(),
  },
  ['key', 'effect'],
);

const nodeInfo = obj({
  machineID: str(),
  systemUUID: str(),
  bootID: str(),
  kernelVersion: str(),
  osImage: str(),
  containerRuntimeVersion: str(),
  kubeletVersion: str(),
  kubeProxyVersion: str(),
  operatingSystem: str(),
  architecture: str(),
  swap: opaque(),
});

/** Registry entry for `nodes` (v1). Topology labels live in metadata.labels. */
export const nodeKind: KindInfo = {
  group: '',
  version: 'v1',
  kind: 'Node',
  listKind: 'NodeList',
  plural: 'nodes',
  singular: 'node',
  shortNames: ['no'],
  namespaced: false,
  statusSubresource: true,
  hasGeneration: false,
  builtIn: true,
  allowUnconditionalUpdate: true,
  schema: kubeObject({
    spec: obj({
      podCIDR: str(),
      podCIDRs: arr(str()),
      providerID: str(),
      unschedulable: bool(),
      taints: arr(taint),
      configSource: opaque(),
      externalID: str(),
    }),
    status: obj({
      capacity: resourceList(),
      allocatable: resourceList(),
      phase: oneOf(['Pending', 'Running', 'Terminated']),
      conditions: probeConditions(['lastHeartbeatTime']),
      addresses: arr(obj({ type: str(), address: str() }, ['type', 'address'])),
      daemonEndpoints: obj({ kubeletEndpoint: obj({ Port: int32() }, ['Port']) }),
      nodeInfo,
      images: arr(obj({ names: arr(str()), sizeBytes: int64() })),
      volumesInUse: arr(str()),
      volumesAttached: arr(obj({ name: str(), devicePath: str() }, ['name', 'devicePath'])),
      config: opaque(),
      runtimeHandlers: arr(opaque()),
      features: opaque(),
    }),
  }),
  // Table columns are computed by api/builtin-printers.ts, as the apiserver's own printers do.
  smpMergeKeys: {
    'metadata.ownerReferences': 'uid',
    'status.conditions': 'type',
    'status.addresses': 'type',
  },
};
