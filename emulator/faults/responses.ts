/**
 * The Status errors a fault rule answers with, in the exact shapes of the real apiserver (see errors.ts and
 * docs/design/kube-api-errors.md §"Status shapes"), so clients react as they would to the real thing.
 */
import {
  StatusError,
  alreadyExists,
  applyConflict,
  conflict,
  internalError,
  retryAfterHeaders,
  serviceUnavailable,
  tooManyRequests,
  unauthorized,
} from '../api/errors';
import type { KindInfo } from '../api/types';
import type { ConflictAction, ErrorAction } from './rules';

/** The error for an `error` or `unauthorized` action. */
export function faultError(action: ErrorAction | { type: 'unauthorized' }): StatusError {
  if (action.type === 'unauthorized') return unauthorized();
  const retry = action.retryAfterSeconds;
  switch (action.code) {
    case 429:
      return tooManyRequests(retry, action.format === 'plain');
    case 500:
      return internalError(action.message ?? 'injected fault: etcdserver: request timed out', retry);
    case 503:
      return serviceUnavailable(retry);
    case 504:
      return new StatusError(
        504,
        'Timeout',
        'Timeout: request did not complete within requested timeout - context deadline exceeded',
        {},
        retryAfterHeaders(retry),
      );
  }
}

/** The 409 for a `conflict` action on a write to `kind` named `name`. */
export function faultConflict(action: ConflictAction, kind: KindInfo, name: string): StatusError {
  switch (action.reason ?? 'Conflict') {
    case 'AlreadyExists':
      return alreadyExists(kind, name);
    case 'FieldManagerConflict':
      return applyConflict([{ manager: action.manager ?? 'harvester-emulator', field: action.field ?? '.spec' }]);
    default:
      return conflict(kind, name);
  }
}
