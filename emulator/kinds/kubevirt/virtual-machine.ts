/**
 * kubevirt.io/v1 VirtualMachine: what a machine pool creates per node. KubeVirt's CRD has a status
 * subresource, so status sent with create or a main-resource update is ignored and generation moves only
 * with spec changes.
 */
import { KindInfo } from '../../api/types';
import {
  arr,
  bool,
  int,
  int64,
  kubeObject,
  obj,
  oneOf,
  opaque,
  probeConditions,
  str,
  stringMap,
  time,
} from '../schema/builders';
import { vmiSpec } from './vmi-spec';

/** A PVC template owned by the VM (CDI DataVolume). Only `contentType` carries an enum in KubeVirt's schema. */
const dataVolumeTemplate = obj(
  {
    apiVersion: str(),
    kind: str(),
    metadata: opaque({ nullable: true }),
    spec: obj({
      contentType: oneOf(['kubevirt', 'archive']),
      checkpoints: arr(opaque({ required: ['current', 'previous'] })),
      finalCheckpoint: bool(),
      preallocation: bool(),
      priorityClassName: str(),
      pvc: opaque(),
      source: opaque(),
      sourceRef: opaque({ required: ['kind', 'name'] }),
      storage: opaque(),
    }),
    status: { type: 'object', nullable: true },
  },
  ['spec'],
  { nullable: true },
);

const matcher = obj({
  name: str(),
  kind: str(),
  revisionName: str(),
  inferFromVolume: str(),
  inferFromVolumeFailurePolicy: str(),
});

const status = obj({
  conditions: probeConditions(),
  created: bool(),
  ready: bool(),
  printableStatus: str({ default: 'Stopped' }),
  runStrategy: str(),
  observedGeneration: int64(),
  desiredGeneration: int64(),
  restoreInProgress: str(),
  snapshotInProgress: str(),
  startFailure: obj({ consecutiveFailCount: int(), lastFailedVMIUID: str(), retryAfterTimestamp: time() }, [], { nullable: true }),
  stateChangeRequests: arr(obj({ action: str(), data: stringMap(), uid: str() }, ['action'])),
  volumeRequests: arr(opaque()),
  volumeSnapshotStatuses: arr(obj({ name: str(), enabled: bool(), reason: str() }, ['enabled', 'name'])),
  volumeUpdateState: opaque(),
  memoryDumpRequest: opaque({ required: ['claimName', 'phase'] }),
  instancetypeRef: opaque(),
  preferenceRef: opaque(),
});

/** Registry entry for `virtualmachines.kubevirt.io` (v1). */
export const virtualMachineKind: KindInfo = {
  group: 'kubevirt.io',
  version: 'v1',
  kind: 'VirtualMachine',
  listKind: 'VirtualMachineList',
  plural: 'virtualmachines',
  singular: 'virtualmachine',
  shortNames: ['vm', 'vms'],
  categories: ['all'],
  namespaced: true,
  statusSubresource: true,
  hasGeneration: true,
  builtIn: false,
  allowUnconditionalUpdate: false,
  schema: kubeObject(
    {
      spec: obj(
        {
          runStrategy: str(),
          running: bool(),
          template: obj({ metadata: opaque({ nullable: true }), spec: vmiSpec }),
          dataVolumeTemplates: arr(dataVolumeTemplate),
          instancetype: matcher,
          preference: matcher,
          updateVolumesStrategy: str(),
        },
        ['template'],
      ),
      status,
    },
    ['spec'],
  ),
  // As KubeVirt's virt-operator declares them.
  printerColumns: [
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    { name: 'Status', type: 'string', jsonPath: '.status.printableStatus', description: 'Human Readable Status' },
    { name: 'Ready', type: 'string', jsonPath: ".status.conditions[?(@.type=='Ready')].status" },
  ],
};
