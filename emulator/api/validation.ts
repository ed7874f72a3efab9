/**
 * Schema validation of whole objects, as the apiserver does it for CRDs (apiextensions-apiserver) and, in
 * approximation, for the core kinds: prune unknown fields, drop non-nullable nulls, apply defaults, then
 * validate against the kind's structural schema with ajv. Failures come back as Status causes worded like
 * the real apiserver's (k8s.io/apimachinery field errors over kube-openapi validation messages).
 *
 * Known deviations: composite bad values are printed as JSON (Go prints its %#v form); invalid base64 in
 * Secret/ConfigMap binary data is a 422 cause here where the real server answers a 400 decode error.
 */
import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import { formatPath, normalizeStructure, PathSegment } from '../kinds/schema/structural';
import { JsonSchema, KindInfo, KubeObject, ObjectValidator, ValidationCause } from './types';

const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Register the formats Kubernetes schemas use. The apiserver checks string formats (date-time, byte) and
 * treats numeric widths (int32, int64) as documentation, so those always pass. Exported so the CRD
 * conformance test judges the real CRDs with the same format rules.
 */
export function addKubernetesFormats(ajv: Ajv): void {
  ajv.addFormat('date-time', (s: string) => DATE_TIME.test(s) && !Number.isNaN(Date.parse(s.replace(' ', 'T'))));
  ajv.addFormat('byte', (s: string) => BASE64.test(s.replace(/[\r\n]/g, '')));
  for (const f of ['int32', 'int64']) ajv.addFormat(f, { type: 'number', validate: () => true });
  for (const f of ['float', 'double']) ajv.addFormat(f, { type: 'number', validate: () => true });
}

const ajv = new Ajv({ allErrors: true, strict: false, verbose: true, logger: false });
addKubernetesFormats(ajv);

/** Our schema dialect → what ajv understands: int-or-string becomes a type union; x-kubernetes-* go. */
function toAjvSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toAjvSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key.startsWith('x-kubernetes-') || key === 'default' || key === 'description') continue;
    if (key === 'properties' && typeof value === 'object' && value !== null) {
      out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toAjvSchema(v)]));
    } else if (key === 'items' || key === 'additionalProperties') {
      out[key] = toAjvSchema(value);
    } else {
      out[key] = value;
    }
  }
  const s = schema as JsonSchema;
  if (s['x-kubernetes-int-or-string'] === true && s.type === undefined) out.type = ['integer', 'string'];
  return out;
}

const compiled = new WeakMap<JsonSchema, ValidateFunction>();

function validatorFor(schema: JsonSchema): ValidateFunction {
  let fn = compiled.get(schema);
  if (!fn) {
    fn = ajv.compile(toAjvSchema(schema) as object);
    compiled.set(schema, fn);
  }
  return fn;
}

/** Path segments of a JSON pointer, with array positions as numbers (looked up in the data itself). */
function segmentsOf(pointer: string, data: unknown): PathSegment[] {
  if (pointer === '') return [];
  const out: PathSegment[] = [];
  let node: unknown = data;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) {
      const i = Number(key);
      out.push(i);
      node = node[i];
    } else {
      out.push(key);
      node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined;
    }
  }
  return out;
}

/** A bad value as Go's field errors print it: strings quoted, numbers and booleans bare. */
function showValue(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

/** The JSON type name the apiserver reports for a value of the wrong type. */
function jsonType(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function causeOf(e: ErrorObject, root: unknown): ValidationCause {
  const segments = segmentsOf(e.instancePath, root);
  const field = formatPath(segments);
  const p = e.params as Record<string, unknown>;
  const v = e.data;
  switch (e.keyword) {
    case 'required':
      return { reason: 'FieldValueRequired', field: formatPath([...segments, String(p.missingProperty)]), message: 'Required value' };
    case 'enum': {
      const allowed = (p.allowedValues as unknown[]).map((a) => JSON.stringify(typeof a === 'string' ? a : JSON.stringify(a)));
      return { reason: 'FieldValueNotSupported', field, message: `Unsupported value: ${showValue(v)}: supported values: ${allowed.join(', ')}` };
    }
    case 'type': {
      const actual = jsonType(v);
      const expected = Array.isArray(p.type) ? p.type.filter((t) => t !== 'null').join(',') : String(p.type);
      return {
        reason: 'FieldValueTypeInvalid',
        field,
        message: `Invalid value: "${actual}": ${field} in body must be of type ${expected}: "${actual}"`,
      };
    }
    case 'format':
      return {
        reason: 'FieldValueTypeInvalid',
        field,
        message: `Invalid value: ${showValue(v)}: ${field} in body must be of type ${String(p.format)}: ${JSON.stringify(String(v))}`,
      };
    case 'maxLength':
      return { reason: 'FieldValueTooLong', field, message: `Too long: may not be more than ${String(p.limit)} bytes` };
    case 'maxItems':
    case 'maxProperties': {
      const actual = Array.isArray(v) ? v.length : Object.keys(v as object).length;
      const unit = e.keyword === 'maxItems' ? 'items' : 'properties';
      return { reason: 'FieldValueTooMany', field, message: `Too many: ${actual}: must have at most ${String(p.limit)} ${unit}` };
    }
    default:
      return { reason: 'FieldValueInvalid', field, message: `Invalid value: ${showValue(v)}: ${field} in body ${detailOf(e)}` };
  }
}

/** kube-openapi's wording for the remaining keywords. */
function detailOf(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'minimum':
      return `should be greater than or equal to ${String(p.limit)}`;
    case 'exclusiveMinimum':
      return `should be greater than ${String(p.limit)}`;
    case 'maximum':
      return `should be less than or equal to ${String(p.limit)}`;
    case 'exclusiveMaximum':
      return `should be less than ${String(p.limit)}`;
    case 'minLength':
      return `should be at least ${String(p.limit)} chars long`;
    case 'pattern':
      return `should match '${String(p.pattern)}'`;
    case 'minItems':
      return `should have at least ${String(p.limit)} items`;
    case 'uniqueItems':
      return "shouldn't contain duplicates";
    case 'minProperties':
      return `should have at least ${String(p.limit)} properties`;
    case 'multipleOf':
      return `should be a multiple of ${String(p.multipleOf)}`;
    default:
      return e.message ?? `failed ${e.keyword} validation`;
  }
}

/**
 * Validate `object` against `kind.schema`. Returns the pruned, defaulted copy; `causes` is empty when the
 * object is valid; `unknownFields` lists what was pruned (the caller decides Strict/Warn/Ignore).
 */
export const validateObject: ObjectValidator = (kind: KindInfo, object: KubeObject) => {
  const { value, unknownFields } = normalizeStructure(object, kind.schema);
  const validate = validatorFor(kind.schema);
  const causes: ValidationCause[] = [];
  if (!validate(value)) {
    const seen = new Set<string>();
    for (const e of validate.errors ?? []) {
      const cause = causeOf(e, value);
      const key = `${cause.reason}|${cause.field}|${cause.message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      causes.push(cause);
    }
  }
  return { object: value as KubeObject, causes, unknownFields };
};

/**
 * The OpenAPI v3 components entry for a kind: our schema plus the `x-kubernetes-group-version-kind`
 * extension kubectl uses to match documents to kinds. A fresh copy each call.
 */
export function openApiSchemaFor(kind: KindInfo): JsonSchema {
  const schema = structuredClone(kind.schema);
  schema['x-kubernetes-group-version-kind'] = [{ group: kind.group, kind: kind.kind, version: kind.version }];
  return schema;
}

/**
 * The components key the real apiserver uses for a kind: reversed group + version + kind, e.g.
 * `io.harvesterhci.loadbalancer.v1beta1.LoadBalancer`; built-ins read `io.k8s.api.core.v1.Service`,
 * `io.k8s.api.storage.v1.StorageClass`.
 */
export function openApiComponentName(kind: KindInfo): string {
  let prefix: string;
  if (!kind.group) prefix = 'io.k8s.api.core';
  else if (kind.builtIn) prefix = `io.k8s.api.${kind.group.split('.')[0]}`; // storage.k8s.io -> io.k8s.api.storage
  else prefix = kind.group.split('.').reverse().join('.');
  return `${prefix}.${kind.version}.${kind.kind}`;
}
