/**
 * Core v1 Service. On Harvester the LB controller creates one per vm-type LoadBalancer; in a guest cluster
 * the cloud provider watches type LoadBalancer Services.
 */
import { KindInfo } from '../../api/types';
import {
  arr,
  bool,
  int32,
  intOrString,
  kubeObject,
  metaConditions,
  obj,
  oneOf,
  opaque,
  str,
  stringMap,
} from '../schema/builders';

const protocol = oneOf(['SCTP', 'TCP', 'UDP']);

const servicePort = obj(
  {
    name: str(),
    protocol,
    appProtocol: str(),
    port: int32({ minimum: 1, maximum: 65535 }),
    targetPort: intOrString(),
    nodePort: int32(),
  },
  ['port'],
);

const ingress = obj({
  ip: str(),
  hostname: str(),
  ipMode: oneOf(['VIP', 'Proxy']),
  ports: arr(obj({ port: int32(), protocol, error: str() }, ['port', 'protocol'])),
});

/** Registry entry for `services` (v1). */
export const serviceKind: KindInfo = {
  group: '',
  version: 'v1',
  kind: 'Service',
  listKind: 'ServiceList',
  plural: 'services',
  singular: 'service',
  shortNames: ['svc'],
  categories: ['all'],
  namespaced: true,
  statusSubresource: true,
  hasGeneration: false,
  builtIn: true,
  allowUnconditionalUpdate: true,
  schema: kubeObject({
    spec: obj({
      type: oneOf(['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort']),
      ports: arr(servicePort),
      selector: stringMap(),
      clusterIP: str(),
      clusterIPs: arr(str()),
      ipFamilies: arr(oneOf(['IPv4', 'IPv6'])),
      ipFamilyPolicy: oneOf(['SingleStack', 'PreferDualStack', 'RequireDualStack']),
      externalIPs: arr(str()),
      externalName: str(),
      externalTrafficPolicy: oneOf(['Cluster', 'Local']),
      internalTrafficPolicy: oneOf(['Cluster', 'Local']),
      healthCheckNodePort: int32(),
      loadBalancerIP: str(),
      loadBalancerSourceRanges: arr(str()),
      loadBalancerClass: str(),
      allocateLoadBalancerNodePorts: bool(),
      publishNotReadyAddresses: bool(),
      sessionAffinity: oneOf(['ClientIP', 'None']),
      sessionAffinityConfig: opaque(),
      trafficDistribution: str(),
    }),
    status: obj({
      loadBalancer: obj({ ingress: arr(ingress) }),
      conditions: metaConditions(),
    }),
  }),
  // Table columns are computed by api/builtin-printers.ts, as the apiserver's own printers do.
  smpMergeKeys: {
    'metadata.ownerReferences': 'uid',
    'spec.ports': 'port',
    'status.conditions': 'type',
  },
};
