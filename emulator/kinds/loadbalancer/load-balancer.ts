/**
 * loadbalancer.harvesterhci.io/v1beta1 LoadBalancer (harvester/load-balancer-harvester). The CRD declares
 * `subresources: {}`: there is no /status endpoint and controllers write status with a plain update, so
 * status writes bump generation too. The deprecated v1alpha1 version is not served by the emulator.
 */
import { KindInfo } from '../../api/types';
import { arr, harvesterConditions, int, int32, kubeObject, mapOf, obj, oneOf, str } from '../schema/builders';

const listener = obj(
  {
    name: str(),
    port: int32(),
    protocol: str({ description: 'TCP or UDP; checked by the webhook, not the schema.' }),
    backendPort: int32(),
  },
  ['backendPort', 'port', 'protocol'],
);

const healthCheck = obj({
  port: int(),
  successThreshold: int(),
  failureThreshold: int(),
  periodSeconds: int(),
  timeoutSeconds: int(),
});

/** Registry entry for `loadbalancers.loadbalancer.harvesterhci.io` (v1beta1). */
export const loadBalancerKind: KindInfo = {
  group: 'loadbalancer.harvesterhci.io',
  version: 'v1beta1',
  kind: 'LoadBalancer',
  listKind: 'LoadBalancerList',
  plural: 'loadbalancers',
  singular: 'loadbalancer',
  shortNames: ['lb', 'lbs'],
  namespaced: true,
  statusSubresource: false,
  hasGeneration: true,
  builtIn: false,
  allowUnconditionalUpdate: false,
  schema: kubeObject(
    {
      spec: obj({
        description: str(),
        workloadType: oneOf(['vm', 'cluster']),
        ipam: oneOf(['pool', 'dhcp']),
        ipPool: str(),
        listeners: arr(listener),
        // Label key -> accepted values, matched against VMI labels in the LB's namespace.
        backendServerSelector: mapOf(arr(str())),
        healthCheck,
      }),
      status: obj({
        address: str(),
        allocatedAddress: obj({ ipPool: str(), ip: str(), mask: str(), gateway: str() }),
        backendServers: arr(str()),
        conditions: harvesterConditions(),
      }),
    },
    ['spec'],
  ),
  printerColumns: [
    { name: 'DESCRIPTION', type: 'string', jsonPath: '.spec.description' },
    { name: 'WORKLOADTYPE', type: 'string', jsonPath: '.spec.workloadType' },
    { name: 'IPAM', type: 'string', jsonPath: '.spec.ipam' },
    { name: 'ADDRESS', type: 'string', jsonPath: '.status.address' },
    { name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
};
