/** Core v1 PersistentVolumeClaim: VM disks, created by Harvester from the VM's volumeClaimTemplates annotation. */
import { KindInfo } from '../../api/types';
import { arr, kubeObject, mapOf, obj, oneOf, opaque, probeConditions, resourceList, str } from '../schema/builders';

const accessMode = oneOf(['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod']);

/** Registry entry for `persistentvolumeclaims` (v1). */
export const persistentVolumeClaimKind: KindInfo = {
  group: '',
  version: 'v1',
  kind: 'PersistentVolumeClaim',
  listKind: 'PersistentVolumeClaimList',
  plural: 'persistentvolumeclaims',
  singular: 'persistentvolumeclaim',
  shortNames: ['pvc'],
  namespaced: true,
  statusSubresource: true,
  hasGeneration: false,
  builtIn: true,
  allowUnconditionalUpdate: true,
  schema: kubeObject({
    spec: obj({
      accessModes: arr(accessMode),
      selector: opaque(),
      resources: obj({ limits: resourceList(), requests: resourceList() }),
      volumeName: str(),
      storageClassName: str(),
      volumeMode: oneOf(['Block', 'Filesystem']),
      dataSource: obj({ apiGroup: str(), kind: str(), name: str() }, ['kind', 'name']),
      dataSourceRef: obj({ apiGroup: str(), kind: str(), name: str(), namespace: str() }, ['kind', 'name']),
      volumeAttributesClassName: str(),
    }),
    status: obj({
      phase: oneOf(['Pending', 'Bound', 'Lost']),
      accessModes: arr(accessMode),
      capacity: resourceList(),
      conditions: probeConditions(),
      allocatedResources: resourceList(),
      allocatedResourceStatuses: mapOf(str()),
      currentVolumeAttributesClassName: str(),
      modifyVolumeStatus: opaque(),
    }),
  }),
  printerColumns: [
    { name: 'Status', type: 'string', jsonPath: '.status.phase' },
    { name: 'Volume', type: 'string', jsonPath: '.spec.volumeName' },
    { name: 'Capacity', type: 'string', jsonPath: '.status.capacity.storage' },
    { name: 'StorageClass', type: 'string', jsonPath: '.spec.storageClassName' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    { name: 'VolumeMode', type: 'string', jsonPath: '.spec.volumeMode', priority: 1 },
  ],
  smpMergeKeys: { 'metadata.ownerReferences': 'uid', 'status.conditions': 'type' },
};
