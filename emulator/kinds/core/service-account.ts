/** Core v1 ServiceAccount (k8s.io/api core/v1 types.go). */
import { KindInfo } from '../../api/types';
import { arr, bool, kubeObject, localRef, obj, str } from '../schema/builders';

/** An ObjectReference, as ServiceAccount.secrets lists them. */
const objectReference = obj({
  kind: str(),
  namespace: str(),
  name: str(),
  uid: str(),
  apiVersion: str(),
  resourceVersion: str(),
  fieldPath: str(),
});

/** Registry entry for `serviceaccounts` (v1). Table columns come from api/builtin-printers.ts (NAME SECRETS AGE). */
export const serviceAccountKind: KindInfo = {
  group: '',
  version: 'v1',
  kind: 'ServiceAccount',
  listKind: 'ServiceAccountList',
  plural: 'serviceaccounts',
  singular: 'serviceaccount',
  shortNames: ['sa'],
  namespaced: true,
  statusSubresource: false,
  hasGeneration: false,
  builtIn: true,
  allowUnconditionalUpdate: true,
  schema: kubeObject({
    secrets: arr(objectReference),
    imagePullSecrets: arr(localRef()),
    automountServiceAccountToken: bool(),
  }),
  smpMergeKeys: { 'metadata.ownerReferences': 'uid', secrets: 'name', imagePullSecrets: 'name' },
};
