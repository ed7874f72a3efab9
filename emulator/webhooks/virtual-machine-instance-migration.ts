/**
 * KubeVirt's admission webhooks for VirtualMachineInstanceMigration (virt-api):
 *
 * - mutator (mutators/migration-create-mutator.go): label `kubevirt.io/vmi-name=<spec.vmiName>` (how the
 *   migration of a VMI is found) and finalizer `kubevirt.io/migrationJobFinalize`;
 * - create validator (admitters/migration-create-admitter.go): `spec.vmiName` required (422 Invalid); the VMI must
 *   exist, must not be final (Succeeded/Failed), must not have LiveMigratable=False, and no other migration of
 *   it may still be in flight (400);
 * - update validator (admitters/migration-update-admitter.go): the spec is immutable, and the selector label
 *   stays while the migration is in flight (422). Status writes go through /status and are not reviewed.
 *
 * KubeVirt's plain denials carry no reason (kubectl prints `Error from server: admission webhook ...`).
 */
import { StatusError } from '../api/errors';
import { AdmissionHook, AdmissionRequest, KubeObject } from '../api/types';
import { HarvesterKinds } from '../controllers/kinds';
import { FINAL_MIGRATION_PHASES, migrationInFlight } from '../controllers/migration-stages';
import { FINALIZER_MIGRATION, LABEL_MIGRATION_VMI } from '../util/names';
import { addFinalizer, deepEqual, field, findCondition, isDeleting, labelsOf } from '../util/objects';
import { webhookDenial } from './admission';

const MUTATOR = 'migrations-mutator.kubevirt.io';
const CREATE_VALIDATOR = 'migration-create-validator.kubevirt.io';
const UPDATE_VALIDATOR = 'migration-update-validator.kubevirt.io';

function denied(hook: string, message: string): StatusError {
  return webhookDenial(hook, 400, undefined, message);
}

function invalid(hook: string, causes: { reason: string; message: string; field?: string }[]): StatusError {
  return webhookDenial(hook, 422, 'Invalid', causes.map((c) => c.message).join(', '), { causes });
}

function vmiNameOf(migration: KubeObject | undefined): string {
  return String(field(migration, 'spec', 'vmiName') ?? '');
}

function mutate(req: AdmissionRequest): void {
  const migration = req.object;
  if (!migration || req.operation !== 'CREATE') return;
  const vmiName = vmiNameOf(migration);
  const labels = labelsOf(migration, true);
  if (vmiName && labels[LABEL_MIGRATION_VMI] === undefined) labels[LABEL_MIGRATION_VMI] = vmiName;
  addFinalizer(migration, FINALIZER_MIGRATION);
}

function validateCreate(req: AdmissionRequest, kinds: HarvesterKinds, migration: KubeObject): void {
  const vmiName = vmiNameOf(migration);
  if (!vmiName) throw invalid(CREATE_VALIDATOR, [{ reason: 'FieldValueRequired', message: 'vmiName is missing', field: 'spec.vmiName' }]);
  const ns = String(migration.metadata.namespace);
  const vmi = req.store.get(kinds.vmi, ns, vmiName);
  if (!vmi) throw denied(CREATE_VALIDATOR, `the VMI "${ns}/${vmiName}" does not exist`);
  if (FINAL_MIGRATION_PHASES.includes(String(field(vmi, 'status', 'phase') ?? ''))) {
    throw denied(CREATE_VALIDATOR, 'Cannot migrate VMI in finalized state.');
  }
  const migratable = findCondition(vmi, 'LiveMigratable');
  if (migratable?.status === 'False') {
    throw denied(CREATE_VALIDATOR, `Cannot migrate VMI, Reason: ${migratable.reason ?? ''}, Message: ${migratable.message ?? ''}`);
  }
  const others = req.store.list(req.kind, { namespace: ns, labelSelector: `${LABEL_MIGRATION_VMI} in (${vmiName})` }).items;
  const active = others.find(migrationInFlight);
  if (active) {
    throw denied(
      CREATE_VALIDATOR,
      `in-flight migration detected. Active migration job (${active.metadata.uid}) is currently already in progress for VMI ${vmiNameOf(active)}.`,
    );
  }
}

function validateUpdate(migration: KubeObject, old: KubeObject): void {
  if (!deepEqual(migration.spec ?? {}, old.spec ?? {})) {
    throw invalid(UPDATE_VALIDATOR, [{ reason: 'FieldValueNotSupported', message: "update of Migration object's spec is restricted" }]);
  }
  const oldLabel = old.metadata.labels?.[LABEL_MIGRATION_VMI];
  if (!migrationInFlight(migration) || oldLabel === undefined) return;
  const labels = migration.metadata.labels;
  if (labels === undefined) {
    throw invalid(UPDATE_VALIDATOR, [{ reason: 'FieldValueNotSupported', message: "selector label can't be removed from an in-flight migration" }]);
  }
  if (labels[LABEL_MIGRATION_VMI] !== oldLabel) {
    throw invalid(UPDATE_VALIDATOR, [{ reason: 'FieldValueNotSupported', message: "selector label can't be modified on an in-flight migration" }]);
  }
}

/** The VirtualMachineInstanceMigration mutating + validating webhooks. */
export function migrationWebhooks(kinds: HarvesterKinds): AdmissionHook[] {
  const resources = ['virtualmachineinstancemigrations.kubevirt.io'];
  return [
    { name: MUTATOR, resources, mutate },
    {
      name: CREATE_VALIDATOR,
      resources,
      validate: (req) => {
        if (req.operation === 'CREATE' && req.object) validateCreate(req, kinds, req.object);
      },
    },
    {
      name: UPDATE_VALIDATOR,
      resources,
      validate: (req) => {
        // The webhook's rule names the main resource only: /status writes and finalizer removal pass.
        if (req.operation !== 'UPDATE' || req.subresource === 'status' || !req.object || !req.oldObject || isDeleting(req.object)) return;
        validateUpdate(req.object, req.oldObject);
      },
    },
  ];
}
