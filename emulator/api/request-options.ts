/**
 * Query-string and body options of resource requests, validated the way the apiserver validates
 * CreateOptions/UpdateOptions/PatchOptions/DeleteOptions (422 on `<Kind>Options.meta.k8s.io "" is invalid`).
 */
import { fieldManagerRequired, forceNotAllowed } from './apply';
import { optionsInvalid } from './errors';
import type { DeleteOptions, WriteOptions } from './types';

const FIELD_VALIDATION = ['Ignore', 'Warn', 'Strict'] as const;

/** dryRun: only `All` is valid (it may repeat). */
function parseDryRun(values: string[], optionsKind: string): boolean {
  if (values.length === 0) return false;
  for (const v of values) {
    if (v !== 'All') {
      throw optionsInvalid(optionsKind, 'dryRun', 'FieldValueNotSupported', `Unsupported value: "${v}": supported values: "All"`);
    }
  }
  return true;
}

/** The field manager an apiserver derives from the User-Agent: the part before the first `/`. */
export function managerFromUserAgent(userAgent: string | undefined): string | undefined {
  if (!userAgent) return undefined;
  const prefix = userAgent.split('/')[0].trim();
  return prefix === '' ? undefined : prefix.slice(0, 128);
}

/** WriteOptions from the query string of a POST, PUT or PATCH. */
export function parseWriteOptions(
  query: URLSearchParams,
  optionsKind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions',
  userAgent: string | undefined,
  user: string,
  isApply = false,
): WriteOptions {
  const options: WriteOptions = { user, warnings: [] };
  options.dryRun = parseDryRun(query.getAll('dryRun'), optionsKind);
  const fv = query.get('fieldValidation');
  if (fv !== null && fv !== '') {
    if (!(FIELD_VALIDATION as readonly string[]).includes(fv)) {
      throw optionsInvalid(optionsKind, 'fieldValidation', 'FieldValueNotSupported', `Unsupported value: "${fv}": supported values: "Ignore", "Warn", "Strict"`);
    }
    options.fieldValidation = fv as WriteOptions['fieldValidation'];
  } else {
    options.fieldValidation = 'Warn';
  }
  const manager = query.get('fieldManager');
  if (manager !== null && manager !== '') {
    if (manager.length > 128) {
      throw optionsInvalid(optionsKind, 'fieldManager', 'FieldValueTooLong', 'Too long: may not be more than 128 bytes');
    }
    options.fieldManager = manager;
  } else if (isApply) {
    throw fieldManagerRequired();
  } else {
    options.fieldManager = managerFromUserAgent(userAgent);
  }
  const force = query.get('force');
  // `force` exists only on PatchOptions; create/update ignore it like any unknown parameter.
  if (force !== null && optionsKind === 'PatchOptions') {
    if (!isApply) throw forceNotAllowed();
    options.force = force === 'true' || force === '1';
  }
  return options;
}

const PROPAGATION = ['Foreground', 'Background', 'Orphan'] as const;

/** DeleteOptions from the JSON body (kubectl) or the query string (client-node); the body wins per field. */
export function parseDeleteOptions(query: URLSearchParams, body: unknown, user: string): DeleteOptions {
  const b = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const options: DeleteOptions = { user };
  let policy: unknown = b.propagationPolicy ?? query.get('propagationPolicy') ?? undefined;
  const orphan = b.orphanDependents ?? (query.get('orphanDependents') === null ? undefined : query.get('orphanDependents') === 'true');
  if (policy === undefined && orphan !== undefined) policy = orphan === true ? 'Orphan' : 'Background';
  if (policy !== undefined && policy !== null) {
    if (!(PROPAGATION as readonly unknown[]).includes(policy)) {
      throw optionsInvalid('DeleteOptions', 'propagationPolicy', 'FieldValueNotSupported', `Unsupported value: "${String(policy)}": supported values: "Foreground", "Background", "Orphan"`);
    }
    options.propagationPolicy = policy as DeleteOptions['propagationPolicy'];
  }
  const grace = b.gracePeriodSeconds ?? (query.get('gracePeriodSeconds') === null ? undefined : Number(query.get('gracePeriodSeconds')));
  if (grace !== undefined && grace !== null) {
    if (typeof grace !== 'number' || !Number.isInteger(grace) || grace < 0) {
      throw optionsInvalid('DeleteOptions', 'gracePeriodSeconds', 'FieldValueInvalid', `Invalid value: ${String(grace)}: must be greater than or equal to 0`);
    }
    options.gracePeriodSeconds = grace;
  }
  const bodyDry = Array.isArray(b.dryRun) ? (b.dryRun as unknown[]).map(String) : [];
  options.dryRun = parseDryRun([...bodyDry, ...query.getAll('dryRun')], 'DeleteOptions');
  if (b.preconditions !== undefined && b.preconditions !== null && typeof b.preconditions === 'object') {
    const p = b.preconditions as Record<string, unknown>;
    options.preconditions = {};
    if (typeof p.uid === 'string') options.preconditions.uid = p.uid;
    if (typeof p.resourceVersion === 'string') options.preconditions.resourceVersion = p.resourceVersion;
  }
  return options;
}

/** A non-negative integer query parameter, or undefined when absent or unparsable. */
export function intParam(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}
