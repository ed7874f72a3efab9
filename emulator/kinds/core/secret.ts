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
  printerColumns: [
    { name: 'Type', type: 'string', jsonPath: '.type' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
  smpMergeKeys: { 'metadata.ownerReferences': 'uid' },
};
