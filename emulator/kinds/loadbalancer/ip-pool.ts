/**
 * loadbalancer.harvesterhci.io/v1beta1 IPPool (cluster-scoped). `status.allocated` is the IPAM record
 * (ip -> "namespace/lbName"). No status subresource; when status is present, total/available/lastAllocated
 * are required, so clients must omit status on create.
 */
import { KindInfo } from '../../api/types';
import { arr, harvesterConditions, int32, int64, kubeObject, obj, str, stringMap } from '../schema/builders';

const range = obj({ subnet: str(), rangeStart: str(), rangeEnd: str(), gateway: str() }, ['subnet']);

const scope = obj({ project: str(), namespace: str(), guestCluster: str() });

/** Registry entry for `ippools.loadbalancer.harvesterhci.io` (v1beta1). */
export const ipPoolKind: KindInfo = {
  group: 'loadbalancer.harvesterhci.io',
  version: 'v1beta1',
  kind: 'IPPool',
  listKind: 'IPPoolList',
  plural: 'ippools',
  singular: 'ippool',
  shortNames: ['pool', 'pools'],
  namespaced: false,
  statusSubresource: false,
  hasGeneration: true,
  builtIn: false,
  allowUnconditionalUpdate: false,
  schema: kubeObject(
    {
      spec: obj(
        {
          description: str(),
          ranges: arr(range),
          selector: obj({ priority: int32(), network: str(), scope: arr(scope) }),
        },
        ['ranges'],
      ),
      status: obj(
        {
          total: int64(),
          available: int64(),
          lastAllocated: str(),
          allocated: stringMap(),
          allocatedHistory: stringMap(),
          conditions: harvesterConditions(),
        },
        ['available', 'lastAllocated', 'total'],
      ),
    },
    ['spec'],
  ),
  printerColumns: [
    { name: 'DESCRIPTION', type: 'string', jsonPath: '.spec.description' },
    { name: 'RANGES', type: 'string', jsonPath: '.spec.ranges' },
    { name: 'Priority', type: 'string', jsonPath: '.spec.selector.priority' },
    { name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
};
