/** Core v1 Secret. */
import { KindInfo } from '../../api/types';
import { bool, kubeObject, mapOf, str, stringMap } from '../schema/builders';

/** Registry entry for `secrets` (v1). `data` values must be base64 (format byte); `stringData` is plain text. */
export const secretKind: KindInfo = {
  group: '',
  version: 'v1',
  kind: 'Secret',
  listKind: 'SecretList',
  plural: 'secrets',
  singular: 'secret',
  shortNames: [],
  namespaced: true,
  statusSubresource: false,
  hasGeneration: false,
  builtIn: true,
  allowUnconditionalUpdate: true,
  schema: kubeObject({
    type: str(),
    data: mapOf(str({ format: 'byte' })),
    stringData: stringMap(),
    immutable: bool(),
  }),
  // Table columns are computed by api/builtin-printers.ts, as the apiserver's own printers do.
  smpMergeKeys: { 'metadata.ownerReferences': 'uid' },
};
