/**
 * How a webhook denial reaches the client. The apiserver wraps the webhook's Status
 * (k8s.io/apiserver …/webhook/errors/statuserror.go ToStatusErr): the message becomes
 * `admission webhook "<name>" denied the request: <message>` and code/reason/details are the webhook's own.
 * Harvester's `werror.NewInvalidError` answers 422 Invalid with the field as a cause, `NewConflict` 409; the
 * load-balancer webhook's plain errors answer 400 BadRequest.
 */
import { StatusError, admissionDenied } from '../api/errors';

/** Webhook names as the apiserver prints them. */
export const HARVESTER_VALIDATOR = 'validator.harvesterhci.io';
export const HARVESTER_MUTATOR = 'mutator.harvesterhci.io';
export const LB_VALIDATOR = 'validator.harvester-load-balancer-webhook';
export const LB_MUTATOR = 'mutator.harvester-load-balancer-webhook';

/** A denial as the apiserver relays it: the webhook's code, reason and details under the standard prefix. */
export function webhookDenial(hook: string, code: number, reason: string | undefined, message: string, details?: Record<string, unknown>): StatusError {
  return new StatusError(code, reason, `admission webhook "${hook}" denied the request: ${message}`, details);
}

/** 400 BadRequest denial (plain webhook error). */
export function denyBadRequest(hook: string, message: string): StatusError {
  return admissionDenied(hook, message);
}

/** 422 Invalid denial with the offending field (Harvester werror.NewInvalidError). */
export function denyInvalid(hook: string, message: string, fieldPath: string): StatusError {
  const details: Record<string, unknown> = {};
  if (fieldPath) details.causes = [{ reason: 'FieldValueInvalid', message, field: fieldPath }];
  return webhookDenial(hook, 422, 'Invalid', message, details);
}

/** 409 Conflict denial (Harvester werror.NewConflict). */
export function denyConflict(hook: string, message: string): StatusError {
  return webhookDenial(hook, 409, 'Conflict', message, {});
}
