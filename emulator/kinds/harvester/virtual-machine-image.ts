/**
 * harvesterhci.io/v1beta1 VirtualMachineImage. A machine pool's disk refers to one by `namespace/name`; the
 * storage class for the disk comes from `status.storageClassName`. Defaults (backend, retry, status.failed)
 * are applied by the apiserver from the schema, as for the real CRD.
 */
import { KindInfo } from '../../api/types';
import { harvesterConditions, int, int64, kubeObject, obj, oneOf, str, stringMap } from '../schema/builders';

/** Registry entry for `virtualmachineimages.harvesterhci.io` (v1beta1). No status subresource. */
export const virtualMachineImageKind: KindInfo = {
  group: 'harvesterhci.io',
  version: 'v1beta1',
  kind: 'VirtualMachineImage',
  listKind: 'VirtualMachineImageList',
  plural: 'virtualmachineimages',
  singular: 'virtualmachineimage',
  shortNames: ['vmimage', 'vmimages'],
  namespaced: true,
  statusSubresource: false,
  hasGeneration: true,
  builtIn: false,
  allowUnconditionalUpdate: false,
  schema: kubeObject(
    {
      spec: obj(
        {
          displayName: str(),
          description: str(),
          sourceType: oneOf(['download', 'upload', 'export-from-volume', 'restore', 'clone']),
          url: str(),
          checksum: str(),
          backend: oneOf(['backingimage', 'cdi'], { default: 'backingimage' }),
          pvcName: str(),
          pvcNamespace: str(),
          storageClassParameters: stringMap(),
          targetStorageClassName: str(),
          retry: int({ minimum: 0, maximum: 10, default: 3 }),
          securityParameters: obj(
            {
              cryptoOperation: oneOf(['encrypt', 'decrypt']),
              sourceImageName: str(),
              sourceImageNamespace: str(),
            },
            ['cryptoOperation', 'sourceImageName', 'sourceImageNamespace'],
          ),
        },
        ['displayName', 'sourceType'],
      ),
      status: obj({
        appliedUrl: str(),
        progress: int(),
        size: int64(),
        virtualSize: int64(),
        storageClassName: str(),
        targetStorageClassName: str(),
        failed: int({ minimum: 0, default: 0 }),
        lastFailedTime: str(),
        backupTarget: obj({ endpoint: str(), bucketName: str(), bucketRegion: str() }),
        conditions: harvesterConditions(),
      }),
    },
    ['spec'],
  ),
  printerColumns: [
    { name: 'BACKEND', type: 'string', jsonPath: '.spec.backend' },
    { name: 'DISPLAY-NAME', type: 'string', jsonPath: '.spec.displayName' },
    { name: 'SIZE', type: 'integer', jsonPath: '.status.size' },
    { name: 'VIRTUALSIZE', type: 'integer', jsonPath: '.status.virtualSize' },
    { name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
};
