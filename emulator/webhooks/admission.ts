/**
 * How a webhook denial reaches the client. The apiserver wraps the webhook's Status
 * (k8s.io/apiserver …/webhook/errors/statuserror.go ToStatusErr): the message becomes
 * `admission webhook "<name>" denied the request: <message>` and code/reason/details are the webhook's own.
 *
 * Which status a denial carries depends on the webhook framework (verified in the upstream sources):
 * - Harvester's own webhook (harvester/harvester pkg/webhook/types/admission.go) puts the validator's
 *   `werror.AdmitError` into the response as is: `NewInvalidError` 422 Invalid with the field as a cause,
 *   `NewConflict` 409, `NewBadRequest` 400; a plain Go error becomes `werror.NewInternalError` 500.
 * - The load-balancer webhook (harvester/load-balancer-harvester on harvester/webhook pkg/types/admission.go)
 *   returns every denial as an error to wrangler's router (rancher/wrangler pkg/webhook/router.go), whose
 *   `sendError` answers `apierrors.NewInternalError(err)`: 500 InternalError, message
 *   `Internal error occurred: <reason>`, the reason again as the one cause. Its webhooks are named
 *   `validator.<namespace>.<name>` (harvester/webhook pkg/server/server.go).
 */
import { StatusError } from '../api/errors';

/** Webhook names as the apiserver prints them. */
export const HARVESTER_VALIDATOR = 'validator.harvesterhci.io';
export const HARVESTER_MUTATOR = 'mutator.harvesterhci.io';
export const LB_VALIDATOR = 'validator.harvester-system.harvester-load-balancer-webhook';
export const LB_MUTATOR = 'mutator.harvester-system.harvester-load-balancer-webhook';

/** A denial as the apiserver relays it: the webhook's code, reason and details under the standard prefix. */
export function webhookDenial(hook: string, code: number, reason: string | undefined, message: string, details?: Record<string, unknown>): StatusError {
  return new StatusError(code, reason, `admission webhook "${hook}" denied the request: ${message}`, details);
}

/**
 * A denial returned as an error through wrangler's webhook router (the load-balancer webhook): 500
 * InternalError, as `apierrors.NewInternalError(err)` builds it.
 */
export function denyInternalError(hook: string, message: string): StatusError {
  return webhookDenial(hook, 500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] });
}

/**
 * 422 Invalid denial with the offending field (Harvester werror.NewInvalidError). The one cause is always there;
 * an empty field is left out of it, as metav1.StatusCause's `field,omitempty` serializes it.
 */
export function denyInvalid(hook: string, message: string, fieldPath: string): StatusError {
  const cause: Record<string, string> = { reason: 'FieldValueInvalid', message };
  if (fieldPath) cause.field = fieldPath;
  return webhookDenial(hook, 422, 'Invalid', message, { causes: [cause] });
}

/** 500 denial of Harvester's own webhook for a plain Go error (werror.NewInternalError: no prefix, no details). */
export function denyHarvesterInternal(hook: string, message: string): StatusError {
  return webhookDenial(hook, 500, 'InternalError', message);
}

/** 409 Conflict denial (Harvester werror.NewConflict: no causes, so the Status has no details). */
export function denyConflict(hook: string, message: string): StatusError {
  return webhookDenial(hook, 409, 'Conflict', message);
}
