/**
 * ObjectMeta validation (apimachinery `ValidateObjectMeta` / `ValidateObjectMetaUpdate`): name, generateName,
 * labels, annotations, finalizers and ownerReferences. Returns causes; the store turns them into one 422.
 */
import { dns1123LabelErrors, dns1123SubdomainErrors, labelValueErrors, pathSegmentNameErrors, qualifiedNameErrors } from './store-names';
import { isPlainObject } from './store-json';
import { KindInfo, KubeObject, ValidationCause } from './types';

const TOTAL_ANNOTATION_SIZE = 256 * 1024;
const GENERATE_NAME_SUFFIX = 5;
const MAX_GENERATED_PREFIX = 63 - GENERATE_NAME_SUFFIX;
const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** True for the core Namespace kind, whose names are DNS-1123 labels and whose deletion is special. */
export function isNamespaceKind(kind: Pick<KindInfo, 'group' | 'kind'>): boolean {
  return kind.group === '' && kind.kind === 'Namespace';
}

function quote(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v) ?? String(v);
}

function invalid(field: string, value: unknown, detail: string): ValidationCause {
  return { reason: 'FieldValueInvalid', field, message: `Invalid value: ${quote(value)}: ${detail}` };
}

/** A name from `generateName` plus 5 characters of the apiserver's alphabet (no vowels, no look-alikes). */
export function generateName(prefix: string, random: () => number): string {
  const base = prefix.length > MAX_GENERATED_PREFIX ? prefix.slice(0, MAX_GENERATED_PREFIX) : prefix;
  let suffix = '';
  for (let i = 0; i < GENERATE_NAME_SUFFIX; i++) {
    suffix += NAME_ALPHABET[Math.floor(random() * NAME_ALPHABET.length) % NAME_ALPHABET.length];
  }
  return base + suffix;
}

function nameErrors(kind: KindInfo, name: string): string[] {
  if (kind.group === 'rbac.authorization.k8s.io') return pathSegmentNameErrors(name);
  return isNamespaceKind(kind) ? dns1123LabelErrors(name) : dns1123SubdomainErrors(name);
}

function validateStringMap(field: string, value: unknown, keyCheck: (k: string) => string[], valueCheck?: (v: string) => string[]): ValidationCause[] {
  if (value === undefined || value === null) return [];
  if (!isPlainObject(value)) {
    return [{ reason: 'FieldValueTypeInvalid', field, message: `Invalid value: ${quote(value)}: must be a map of string keys to string values` }];
  }
  const causes: ValidationCause[] = [];
  for (const [k, v] of Object.entries(value)) {
    for (const msg of keyCheck(k)) causes.push(invalid(field, k, msg));
    if (typeof v !== 'string') {
      causes.push({ reason: 'FieldValueTypeInvalid', field: `${field}.${k}`, message: `Invalid value: ${quote(v)}: must be a string` });
    } else if (valueCheck) {
      for (const msg of valueCheck(v)) causes.push(invalid(field, v, msg));
    }
  }
  return causes;
}

/**
 * Validate metadata of an object about to be stored. `old` is the stored object for updates (then name and
 * generateName are not re-checked, and a deleting object may not gain finalizers).
 */
export function validateObjectMeta(kind: KindInfo, obj: KubeObject, old?: KubeObject): ValidationCause[] {
  const causes: ValidationCause[] = [];
  const meta = obj.metadata;
  if (!old) {
    if (meta.generateName) {
      // A trailing dash is fine in a prefix, so mask it before checking as a name.
      const masked = meta.generateName.replace(/-$/, 'a');
      for (const msg of nameErrors(kind, masked)) causes.push(invalid('metadata.generateName', meta.generateName, msg));
    }
    if (!meta.name) {
      causes.push({ reason: 'FieldValueRequired', field: 'metadata.name', message: 'Required value: name or generateName is required' });
    } else {
      for (const msg of nameErrors(kind, meta.name)) causes.push(invalid('metadata.name', meta.name, msg));
    }
  }

  causes.push(...validateStringMap('metadata.labels', meta.labels, qualifiedNameErrors, labelValueErrors));
  causes.push(...validateStringMap('metadata.annotations', meta.annotations, (k) => qualifiedNameErrors(k.toLowerCase())));
  if (isPlainObject(meta.annotations)) {
    let size = 0;
    for (const [k, v] of Object.entries(meta.annotations)) size += k.length + (typeof v === 'string' ? v.length : 0);
    if (size > TOTAL_ANNOTATION_SIZE) {
      causes.push({ reason: 'FieldValueTooLong', field: 'metadata.annotations', message: `Too long: may not be more than ${TOTAL_ANNOTATION_SIZE} bytes` });
    }
  }

  const finalizers = meta.finalizers;
  if (finalizers !== undefined && finalizers !== null) {
    if (!Array.isArray(finalizers) || finalizers.some((f) => typeof f !== 'string')) {
      causes.push({ reason: 'FieldValueTypeInvalid', field: 'metadata.finalizers', message: `Invalid value: ${quote(finalizers)}: must be a list of strings` });
    } else {
      for (const f of finalizers) for (const msg of qualifiedNameErrors(f)) causes.push(invalid('metadata.finalizers', f, msg));
      if (finalizers.includes('orphan') && finalizers.includes('foregroundDeletion')) {
        causes.push(invalid('metadata.finalizers', finalizers, 'finalizer orphan and foregroundDeletion cannot be both set'));
      }
      if (old?.metadata.deletionTimestamp) {
        const before = new Set(old.metadata.finalizers ?? []);
        const added = [...new Set(finalizers)].filter((f) => !before.has(f)).sort();
        if (added.length > 0) {
          causes.push({
            reason: 'FieldValueForbidden',
            field: 'metadata.finalizers',
            message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`,
          });
        }
      }
    }
  }

  const refs = meta.ownerReferences;
  if (refs !== undefined && refs !== null) {
    if (!Array.isArray(refs)) {
      causes.push({ reason: 'FieldValueTypeInvalid', field: 'metadata.ownerReferences', message: `Invalid value: ${quote(refs)}: must be a list` });
    } else {
      let controllers = 0;
      refs.forEach((r, i) => {
        const f = `metadata.ownerReferences[${i}]`;
        if (!isPlainObject(r)) {
          causes.push({ reason: 'FieldValueTypeInvalid', field: f, message: 'Invalid value: must be an object' });
          return;
        }
        for (const k of ['apiVersion', 'kind', 'name', 'uid'] as const) {
          if (typeof r[k] !== 'string' || r[k] === '') {
            causes.push({ reason: 'FieldValueRequired', field: `${f}.${k}`, message: 'Required value' });
          }
        }
        if (r.controller === true) controllers++;
      });
      if (controllers > 1) {
        causes.push(invalid('metadata.ownerReferences', `${controllers} controllers`, 'Only one reference can have Controller set to true'));
      }
    }
  }
  return causes;
}
