/** harvesterhci.io/v1beta1 KeyPair: an SSH public key the node driver injects into VMs. */
import { KindInfo } from '../../api/types';
import { harvesterConditions, kubeObject, obj, str } from '../schema/builders';

/** Registry entry for `keypairs.harvesterhci.io` (v1beta1). No status subresource (the CRD has `subresources: {}`). */
export const keyPairKind: KindInfo = {
  group: 'harvesterhci.io',
  version: 'v1beta1',
  kind: 'KeyPair',
  listKind: 'KeyPairList',
  plural: 'keypairs',
  singular: 'keypair',
  shortNames: ['kp', 'kps'],
  namespaced: true,
  statusSubresource: false,
  hasGeneration: true,
  builtIn: false,
  allowUnconditionalUpdate: false,
  schema: kubeObject(
    {
      spec: obj({ publicKey: str() }, ['publicKey']),
      status: obj({ fingerPrint: str(), conditions: harvesterConditions() }),
    },
    ['spec'],
  ),
  printerColumns: [
    { name: 'FINGER_PRINT', type: 'string', jsonPath: '.status.fingerPrint' },
    { name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
};
