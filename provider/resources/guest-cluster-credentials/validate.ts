/**
 * check's pure rules for GuestClusterCredentials: the model, then the default of serviceAccountName (the
 * clusterName, as Harvester's docs require and Rancher does), filled in so the recorded inputs name the
 * ServiceAccount and a change of it (or of the clusterName it derives from) is a replacement.
 */
import { validateWithModel, type ModelValidation } from '../../core/validate-model';
import { SECRET_INPUTS, guestClusterCredentialsSchema, type GuestClusterCredentialsInputs } from './model';

export function validateInputs(raw: Record<string, unknown>): ModelValidation<GuestClusterCredentialsInputs> {
  const v = validateWithModel(guestClusterCredentialsSchema, raw, { secretInputs: SECRET_INPUTS });
  if (v.inputs) v.inputs = { ...v.inputs, serviceAccountName: v.inputs.serviceAccountName ?? v.inputs.clusterName };
  const preview = v.previewInputs;
  // An unknown clusterName makes the derived name unknown too (the sentinel), not absent.
  if (preview && preview.serviceAccountName === undefined && preview.clusterName !== undefined) {
    v.previewInputs = { ...preview, serviceAccountName: preview.clusterName };
  }
  return v as ModelValidation<GuestClusterCredentialsInputs>;
}
