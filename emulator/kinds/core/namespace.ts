/** Core v1 Namespace (cluster-scoped). */
import { KindInfo } from '../../api/types';
import { arr, kubeObject, obj, oneOf, probeConditions, str } from '../schema/builders';

/** Registry entry for `namespaces` (v1). */
export const namespaceKind: KindInfo = {
  group: '',
  version: 'v1',
  kind: 'Namespace',
  listKind: 'NamespaceList',
  plural: 'namespaces',
  singular: 'namespace',
  shortNames: ['ns'],
  namespaced: false,
  statusSubresource: true,
  hasGeneration: false,
  builtIn: true,
  allowUnconditionalUpdate: true,
  schema: kubeObject({
    spec: obj({ finalizers: arr(str()) }),
    status: obj({
      phase: oneOf(['Active', 'Terminating']),
      conditions: probeConditions([]),
    }),
  }),
  printerColumns: [
    { name: 'Status', type: 'string', jsonPath: '.status.phase', description: 'The lifecycle phase of the namespace' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
  smpMergeKeys: { 'metadata.ownerReferences': 'uid', 'status.conditions': 'type' },
};
