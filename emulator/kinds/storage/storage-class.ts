/**
 * storage.k8s.io/v1 StorageClass (cluster-scoped). Harvester creates one per VM image (`lh-<uid>`, legacy
 * `longhorn-<name>`), and the node driver GETs the classes a pool's disks name before creating VMs.
 */
import { KindInfo } from '../../api/types';
import { arr, bool, kubeObject, oneOf, opaque, str, stringMap } from '../schema/builders';

/** Registry entry for `storageclasses.storage.k8s.io` (v1). No status, no generation. */
export const storageClassKind: KindInfo = {
  group: 'storage.k8s.io',
  version: 'v1',
  kind: 'StorageClass',
  listKind: 'StorageClassList',
  plural: 'storageclasses',
  singular: 'storageclass',
  shortNames: ['sc'],
  namespaced: false,
  statusSubresource: false,
  hasGeneration: false,
  builtIn: true,
  allowUnconditionalUpdate: true,
  schema: kubeObject(
    {
      provisioner: str(),
      parameters: stringMap(),
      reclaimPolicy: oneOf(['Delete', 'Recycle', 'Retain']),
      mountOptions: arr(str()),
      allowVolumeExpansion: bool(),
      volumeBindingMode: oneOf(['Immediate', 'WaitForFirstConsumer']),
      allowedTopologies: arr(opaque()),
    },
    ['provisioner'],
  ),
  printerColumns: [
    { name: 'Provisioner', type: 'string', jsonPath: '.provisioner' },
    { name: 'ReclaimPolicy', type: 'string', jsonPath: '.reclaimPolicy' },
    { name: 'VolumeBindingMode', type: 'string', jsonPath: '.volumeBindingMode' },
    { name: 'AllowVolumeExpansion', type: 'boolean', jsonPath: '.allowVolumeExpansion' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
  smpMergeKeys: { 'metadata.ownerReferences': 'uid' },
};
