/**
 * kubevirt.io/v1 VirtualMachineInstance: the running instance of a VirtualMachine. Readiness of a machine
 * pool node is read here: `status.phase` Running and an IPv4 in `status.interfaces[0].ipAddress` (reported by
 * the guest agent). Status subresource, like the VM.
 */
import { KindInfo } from '../../api/types';
import {
  arr,
  int32,
  int64,
  kubeObject,
  obj,
  opaque,
  probeConditions,
  str,
  stringMap,
  time,
} from '../schema/builders';
import { vmiSpec } from './vmi-spec';

const networkInterface = obj({
  name: str(),
  interfaceName: str(),
  infoSource: str(),
  ipAddress: str(),
  ipAddresses: arr(str()),
  mac: str(),
  linkState: str(),
  podInterfaceName: str(),
  queueCount: int32(),
});

const volumeStatus = obj(
  {
    name: str(),
    target: str(),
    phase: str(),
    reason: str(),
    message: str(),
    size: int64(),
    persistentVolumeClaimInfo: opaque(),
    hotplugVolume: opaque(),
    containerDiskVolume: opaque(),
    memoryDumpVolume: opaque(),
  },
  ['name', 'target'],
);

const status = obj({
  phase: str(),
  reason: str(),
  nodeName: str(),
  conditions: probeConditions(),
  interfaces: arr(networkInterface),
  guestOSInfo: obj({
    id: str(),
    name: str(),
    prettyName: str(),
    version: str(),
    versionId: str(),
    kernelRelease: str(),
    kernelVersion: str(),
    machine: str(),
  }),
  phaseTransitionTimestamps: arr(obj({ phase: str(), phaseTransitionTimestamp: time() })),
  activePods: stringMap(),
  volumeStatus: arr(volumeStatus),
  migrationState: opaque(),
  migrationMethod: str(),
  migrationTransport: str(),
  migratedVolumes: arr(opaque({ required: ['volumeName'] })),
  evacuationNodeName: str(),
  launcherContainerImageVersion: str(),
  virtualMachineRevisionName: str(),
  qosClass: str(),
  runtimeUser: int64(),
  selinuxContext: str(),
  fsFreezeStatus: str(),
  VSOCKCID: int32(),
  currentCPUTopology: opaque(),
  deviceStatus: opaque(),
  kernelBootStatus: opaque(),
  machine: opaque(),
  memory: opaque(),
  topologyHints: opaque(),
});

/** Registry entry for `virtualmachineinstances.kubevirt.io` (v1). */
export const virtualMachineInstanceKind: KindInfo = {
  group: 'kubevirt.io',
  version: 'v1',
  kind: 'VirtualMachineInstance',
  listKind: 'VirtualMachineInstanceList',
  plural: 'virtualmachineinstances',
  singular: 'virtualmachineinstance',
  shortNames: ['vmi', 'vmis'],
  categories: ['all'],
  namespaced: true,
  statusSubresource: true,
  hasGeneration: true,
  builtIn: false,
  allowUnconditionalUpdate: false,
  schema: kubeObject({ spec: vmiSpec, status }, ['spec']),
  // As KubeVirt's virt-operator declares them.
  printerColumns: [
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    { name: 'IP', type: 'string', jsonPath: '.status.interfaces[0].ipAddress' },
    { name: 'NodeName', type: 'string', jsonPath: '.status.nodeName' },
    { name: 'Ready', type: 'string', jsonPath: ".status.conditions[?(@.type=='Ready')].status" },
    {
      name: 'Live-Migratable',
      type: 'string',
      jsonPath: ".status.conditions[?(@.type=='LiveMigratable')].status",
      priority: 1,
    },
    { name: 'Paused', type: 'string', jsonPath: ".status.conditions[?(@.type=='Paused')].status", priority: 1 },
  ],
};
