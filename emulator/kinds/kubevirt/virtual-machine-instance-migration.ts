/**
 * kubevirt.io/v1 VirtualMachineInstanceMigration: a request to live-migrate one VMI to another host. The
 * Harvester UI's "Migrate" action creates one; so can `kubectl create`. Names, scope, status subresource and
 * printer columns as KubeVirt's virt-operator declares the CRD (components/crds.go); the schema follows its
 * openAPIV3Schema, with the migration state kept opaque (the controller writes it, clients only read it).
 */
import { KindInfo } from '../../api/types';
import { arr, kubeObject, obj, opaque, probeConditions, str, stringMap, time } from '../schema/builders';

const status = obj({
  phase: str(),
  phaseTransitionTimestamps: arr(obj({ phase: str(), phaseTransitionTimestamp: time() })),
  conditions: probeConditions(['lastProbeTime']),
  migrationState: opaque(),
  synchronizationAddresses: arr(str()),
});

/** Registry entry for `virtualmachineinstancemigrations.kubevirt.io` (v1). */
export const virtualMachineInstanceMigrationKind: KindInfo = {
  group: 'kubevirt.io',
  version: 'v1',
  kind: 'VirtualMachineInstanceMigration',
  listKind: 'VirtualMachineInstanceMigrationList',
  plural: 'virtualmachineinstancemigrations',
  singular: 'virtualmachineinstancemigration',
  shortNames: ['vmim', 'vmims'],
  categories: ['all'],
  namespaced: true,
  statusSubresource: true,
  hasGeneration: true,
  builtIn: false,
  allowUnconditionalUpdate: false,
  schema: kubeObject(
    {
      spec: obj({
        vmiName: str(),
        addedNodeSelector: stringMap(),
        receive: obj({ migrationID: str() }, ['migrationID']),
        sendTo: obj({ connectURL: str(), migrationID: str() }, ['connectURL', 'migrationID']),
      }),
      status,
    },
    ['spec'],
  ),
  printerColumns: [
    { name: 'Phase', type: 'string', jsonPath: '.status.phase', description: 'The current phase of VM instance migration' },
    { name: 'VMI', type: 'string', jsonPath: '.spec.vmiName', description: 'The name of the VMI to perform the migration on' },
  ],
};
