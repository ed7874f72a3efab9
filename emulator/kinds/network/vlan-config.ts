/**
 * network.harvesterhci.io/v1beta1 VlanConfig (harvester/network-controller-harvester
 * manifests/crds/network.harvesterhci.io_vlanconfigs.yaml): cluster-scoped; attaches the hosts its
 * `nodeSelector` matches to a ClusterNetwork through `uplink` NICs. The webhook's mutator records the matched
 * hosts in the `network.harvesterhci.io/matched-nodes` annotation.
 */
import { KindInfo } from '../../api/types';
import { arr, int, kubeObject, obj, oneOf, str, stringMap } from '../schema/builders';

const BOND_MODES = ['balance-rr', 'active-backup', 'balance-xor', 'broadcast', '802.3ad', 'balance-tlb', 'balance-alb'];

/** Registry entry for `vlanconfigs.network.harvesterhci.io` (v1beta1), `subresources: {}`. */
export const vlanConfigKind: KindInfo = {
  group: 'network.harvesterhci.io',
  version: 'v1beta1',
  kind: 'VlanConfig',
  listKind: 'VlanConfigList',
  plural: 'vlanconfigs',
  singular: 'vlanconfig',
  shortNames: ['vc', 'vcs'],
  namespaced: false,
  statusSubresource: false,
  hasGeneration: true,
  builtIn: false,
  allowUnconditionalUpdate: false,
  schema: kubeObject(
    {
      spec: obj(
        {
          clusterNetwork: str(),
          description: str(),
          nodeSelector: stringMap(),
          uplink: obj({
            bondOptions: obj({ miimon: int({ default: -1, minimum: -1 }), mode: oneOf(BOND_MODES, { default: 'active-backup' }) }),
            linkAttributes: obj({ hardwareAddr: str({ format: 'byte' }), mtu: int({ minimum: 0 }), txQLen: int({ default: -1, minimum: -1 }) }),
            nics: arr(str()),
          }),
        },
        ['clusterNetwork', 'uplink'],
      ),
    },
    ['spec'],
  ),
  printerColumns: [
    { name: 'CLUSTERNETWORK', type: 'string', jsonPath: '.spec.clusterNetwork' },
    { name: 'DESCRIPTION', type: 'string', jsonPath: '.spec.description' },
    { name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
};
