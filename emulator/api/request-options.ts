/**
 * Query-string and body options of resource requests, validated the way the apiserver validates
 * CreateOptions/UpdateOptions/PatchOptions/DeleteOptions/ListOptions (422 on `<Kind>Options.meta.k8s.io ""
 * is invalid`).
 *
 * Boolean parameters (`watch`, `allowWatchBookmarks`, `sendInitialEvents`, `force`, `orphanDependents`) are read
 * as apimachinery's query-parameter conversion reads them (pkg/runtime/conversion.go
 * `Convert_Slice_string_To_bool` / `_To_Pointer_bool`, v0.32): absent is unset; otherwise the FIRST value is
 * false only when it is `0` or `false` in any case, and true for anything else, the empty string included
 * (docs/design/kube-api.md §1).
 */
import { fieldManagerRequired, forceNotAllowed } from './apply';
import { optionsInvalid, optionsInvalidCauses } from './errors';
import type { DeleteOptions, WatchOptions, WriteOptions } from './types';

/** A boolean query parameter as kube-apiserver reads it; undefined when the parameter is absent. */
export function queryBool(query: URLSearchParams, name: string): boolean | undefined {
  const values = query.getAll(name);
  if (values.length === 0) return undefined;
  const first = values[0];
  return !(first === '0' || first.toLowerCase() === 'false');
}

/** `?watch=…` read as above (absent: false). */
export function isWatchQuery(query: URLSearchParams): boolean {
  return queryBool(query, 'watch') === true;
}

const NOT_OLDER_THAN = 'NotOlderThan';

/**
 * The watch options of a `?watch` request, validated as apimachinery's `validateWatchOptions`
 * (pkg/apis/meta/internalversion/validation, v0.32) with the WatchList feature on, as it is by default in
 * Kubernetes 1.32: `sendInitialEvents` needs `resourceVersionMatch=NotOlderThan`, which needs it back.
 */
export function parseWatchQuery(query: URLSearchParams): Pick<WatchOptions, 'resourceVersion' | 'allowWatchBookmarks' | 'sendInitialEvents'> {
  const sendInitialEvents = queryBool(query, 'sendInitialEvents');
  const match = query.get('resourceVersionMatch') ?? '';
  const causes: { reason: string; field: string; message: string }[] = [];
  if (sendInitialEvents !== undefined && match !== NOT_OLDER_THAN) {
    causes.push({ reason: 'FieldValueForbidden', field: 'resourceVersionMatch', message: `Forbidden: sendInitialEvents requires setting resourceVersionMatch to ${NOT_OLDER_THAN}` });
  }
  if (match !== '') {
    if (sendInitialEvents === undefined) {
      causes.push({ reason: 'FieldValueForbidden', field: 'resourceVersionMatch', message: 'Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided' });
    }
    if (match !== NOT_OLDER_THAN) {
      causes.push({ reason: 'FieldValueNotSupported', field: 'resourceVersionMatch', message: `Unsupported value: "${match}": supported values: "${NOT_OLDER_THAN}"` });
    }
    if ((query.get('continue') ?? '') !== '') {
      causes.push({ reason: 'FieldValueForbidden', field: 'resourceVersionMatch', message: 'Forbidden: resourceVersionMatch is forbidden when continue is provided' });
    }
  }
  if (causes.length > 0) throw optionsInvalidCauses('ListOptions', causes);
  const options: Pick<WatchOptions, 'resourceVersion' | 'allowWatchBookmarks' | 'sendInitialEvents'> = {
    resourceVersion: query.get('resourceVersion') ?? undefined,
    allowWatchBookmarks: queryBool(query, 'allowWatchBookmarks') === true,
  };
  if (sendInitialEvents !== undefined) options.sendInitialEvents = sendInitialEvents;
  return options;
}

/** ValidateListOptions for a plain list: `sendInitialEvents` belongs to watches only. */
export function checkListQuery(query: URLSearchParams): void {
  if (queryBool(query, 'sendInitialEvents') !== undefined) {
    throw optionsInvalid('ListOptions', 'sendInitialEvents', 'FieldValueForbidden', 'Forbidden: sendInitialEvents is forbidden for list');
  }
}

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

const PRINTABLE = /[\p{L}\p{M}\p{N}\p{P}\p{S} ]/u;
const FIELD_MANAGER_MAX_BYTES = 128;

/**
 * The field manager kube-apiserver derives from the User-Agent when a write names none
 * (handlers/rest.go `prefixFromUserAgent`): the part before the first `/`, without unprintable characters,
 * cut at 128 bytes. A request without a User-Agent gets the empty manager, as upstream.
 */
export function managerFromUserAgent(userAgent: string | undefined): string {
  let out = '';
  for (const ch of (userAgent ?? '').split('/')[0]) {
    if (!PRINTABLE.test(ch)) continue;
    if (Buffer.byteLength(out + ch) > FIELD_MANAGER_MAX_BYTES) break;
    out += ch;
  }
  return out;
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
  const force = queryBool(query, 'force');
  // `force` exists only on PatchOptions; create/update ignore it like any unknown parameter.
  if (force !== undefined && optionsKind === 'PatchOptions') {
    if (!isApply) throw forceNotAllowed();
    options.force = force;
  }
  return options;
}

const PROPAGATION = ['Foreground', 'Background', 'Orphan'] as const;

/** DeleteOptions from the JSON body (kubectl) or the query string (client-node); the body wins per field. */
export function parseDeleteOptions(query: URLSearchParams, body: unknown, user: string): DeleteOptions {
  const b = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const options: DeleteOptions = { user };
  let policy: unknown = b.propagationPolicy ?? query.get('propagationPolicy') ?? undefined;
  const orphan = b.orphanDependents ?? queryBool(query, 'orphanDependents');
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
