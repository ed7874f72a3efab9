/**
 * k8s.cni.cncf.io/v1 NetworkAttachmentDefinition (Multus). Harvester VM networks are NADs whose
 * `spec.config` is a CNI JSON document (bridge + VLAN). The CRD has no subresources and no printer columns,
 * so the apiserver's default Age column applies.
 */
import { KindInfo } from '../../api/types';
import { kubeObject, obj, str } from '../schema/builders';

/** Registry entry for `network-attachment-definitions.k8s.cni.cncf.io` (v1). */
export const networkAttachmentDefinitionKind: KindInfo = {
  group: 'k8s.cni.cncf.io',
  version: 'v1',
  kind: 'NetworkAttachmentDefinition',
  listKind: 'NetworkAttachmentDefinitionList',
  plural: 'network-attachment-definitions',
  singular: 'network-attachment-definition',
  shortNames: ['net-attach-def'],
  namespaced: true,
  statusSubresource: false,
  hasGeneration: true,
  builtIn: false,
  allowUnconditionalUpdate: false,
  schema: kubeObject(
    {
      spec: obj({ config: str() }, ['config']),
      status: obj({ state: str(), observation: str() }),
    },
    ['spec'],
  ),
  printerColumns: [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }],
};
