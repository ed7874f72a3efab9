/**
 * Core v1 ResourceQuota: a namespace's hard limits (`spec.hard`), enforced on launcher pods by the simulated
 * quota admission (controllers/resource-quota.ts), whose controller keeps `status.hard` and `status.used`.
 * Rancher project quotas arrive on Harvester as such objects (label
 * `resourcequota.management.cattle.io/default-resource-quota: "true"`).
 */
import { KindInfo } from '../../api/types';
import { arr, kubeObject, obj, oneOf, resourceList, str } from '../schema/builders';

const scopedRequirement = obj({ scopeName: str(), operator: oneOf(['In', 'NotIn', 'Exists', 'DoesNotExist']), values: arr(str()) }, ['scopeName', 'operator']);

/** Registry entry for `resourcequotas` (v1). */
export const resourceQuotaKind: KindInfo = {
  group: '',
  version: 'v1',
  kind: 'ResourceQuota',
  listKind: 'ResourceQuotaList',
  plural: 'resourcequotas',
  singular: 'resourcequota',
  shortNames: ['quota'],
  namespaced: true,
  statusSubresource: true,
  hasGeneration: false,
  builtIn: true,
  allowUnconditionalUpdate: true,
  schema: kubeObject({
    spec: obj({
      hard: resourceList(),
      scopes: arr(str()),
      scopeSelector: obj({ matchExpressions: arr(scopedRequirement) }),
    }),
    status: obj({ hard: resourceList(), used: resourceList() }),
  }),
  // Table columns are computed by api/builtin-printers.ts, as the apiserver's own printers do.
  smpMergeKeys: { 'metadata.ownerReferences': 'uid' },
};
