/**
 * harvesterhci.io/v1beta1 Setting (cluster-scoped). Fields sit at the top level, not under spec; the node
 * driver reads `server-version` in its pre-create check.
 */
import { KindInfo } from '../../api/types';
import { bool, harvesterConditions, kubeObject, obj, str } from '../schema/builders';

/** Registry entry for `settings.harvesterhci.io` (v1beta1). The real CRD has no short names. */
export const settingKind: KindInfo = {
  group: 'harvesterhci.io',
  version: 'v1beta1',
  kind: 'Setting',
  listKind: 'SettingList',
  plural: 'settings',
  singular: 'setting',
  shortNames: [],
  namespaced: false,
  statusSubresource: false,
  hasGeneration: true,
  builtIn: false,
  allowUnconditionalUpdate: false,
  schema: kubeObject({
    value: str(),
    default: str(),
    customized: bool(),
    source: str(),
    status: obj({ conditions: harvesterConditions() }),
  }),
  printerColumns: [{ name: 'VALUE', type: 'string', jsonPath: '.value' }],
};
