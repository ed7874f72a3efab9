/**
 * network.harvesterhci.io/v1beta1 ClusterNetwork (harvester/network-controller-harvester
 * manifests/crds/network.harvesterhci.io_clusternetworks.yaml): cluster-scoped, no spec, a status with wrangler
 * conditions (`ready`). `mgmt` exists from startup; others become ready once a VlanConfig attaches hosts.
 */
import { KindInfo } from '../../api/types';
import { harvesterConditions, kubeObject, obj } from '../schema/builders';

/** Registry entry for `clusternetworks.network.harvesterhci.io` (v1beta1). The CRD declares no subresources. */
export const clusterNetworkKind: KindInfo = {
  group: 'network.harvesterhci.io',
  version: 'v1beta1',
  kind: 'ClusterNetwork',
  listKind: 'ClusterNetworkList',
  plural: 'clusternetworks',
  singular: 'clusternetwork',
  shortNames: ['cn', 'cns'],
  namespaced: false,
  statusSubresource: false,
  hasGeneration: true,
  builtIn: false,
  allowUnconditionalUpdate: false,
  schema: kubeObject({ status: obj({ conditions: harvesterConditions() }) }),
  // The CRD declares no printer columns, so the apiserver's default Age column applies.
  printerColumns: [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }],
};
