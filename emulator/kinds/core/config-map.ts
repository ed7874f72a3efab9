/** Core v1 ConfigMap. */
import { KindInfo } from '../../api/types';
import { bool, kubeObject, mapOf, str, stringMap } from '../schema/builders';

/** Registry entry for `configmaps` (v1). No status, so no status subresource. */
export const configMapKind: KindInfo = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  listKind: 'ConfigMapList',
  plural: 'configmaps',
  singular: 'configmap',
  shortNames: ['cm'],
  namespaced: true,
  statusSubresource: false,
  hasGeneration: false,
  builtIn: true,
  allowUnconditionalUpdate: true,
  schema: kubeObject({
    data: stringMap(),
    // binaryData values are base64 on the wire, like Secret data.
    binaryData: mapOf(str({ format: 'byte' })),
    immutable: bool(),
  }),
  // Table columns are computed by api/builtin-printers.ts, as the apiserver's own printers do.
  smpMergeKeys: { 'metadata.ownerReferences': 'uid' },
};
