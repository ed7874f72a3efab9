/**
 * What the apiserver does to an object with a structural schema before validating it, in its order:
 * 1. prune fields the schema does not know (recording their paths for fieldValidation Strict/Warn),
 *    except under `x-kubernetes-preserve-unknown-fields`;
 * 2. drop `null` values of fields that are neither nullable nor defaulted;
 * 3. apply `default` values to absent fields.
 * (apiextensions-apiserver pkg/apiserver/schema/{pruning,defaulting}.) The result then goes to the
 * schema validator.
 */
import { JsonSchema } from '../../api/types';

/** A path into an object: property names and array indexes. */
export type PathSegment = string | number;

/** The object after pruning, null-dropping and defaulting, and where unknown fields were removed. */
export interface StructuralResult {
  value: unknown;
  /** Dotted paths of pruned fields, e.g. `spec.listeners[0].foo`. */
  unknownFields: string[];
}

/** `spec.listeners[0].port` from ['spec', 'listeners', 0, 'port'], as apiserver field paths read. */
export function formatPath(segments: PathSegment[]): string {
  let out = '';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else out += out === '' ? s : `.${s}`;
  }
  return out;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function asSchema(v: unknown): JsonSchema | undefined {
  return isPlainObject(v) ? v : undefined;
}

/** The schema of property `key` of an object described by `schema`, if the schema knows it. */
function childSchema(schema: JsonSchema, key: string): JsonSchema | undefined {
  const props = asSchema(schema.properties);
  if (props && Object.prototype.hasOwnProperty.call(props, key)) return asSchema(props[key]);
  return asSchema(schema.additionalProperties);
}

/** True where unknown keys are kept: preserve-unknown-fields, or `additionalProperties: true`. */
function keepsUnknown(schema: JsonSchema): boolean {
  return schema['x-kubernetes-preserve-unknown-fields'] === true || schema.additionalProperties === true;
}

function walk(value: unknown, schema: JsonSchema, path: PathSegment[], unknown: string[]): void {
  if (Array.isArray(value)) {
    const items = asSchema(schema.items);
    if (items) value.forEach((item, i) => walk(item, items, [...path, i], unknown));
    return;
  }
  if (!isPlainObject(value)) return;
  // A schema that says nothing about objects (int-or-string, a typo'd type) leaves the type error to validation.
  const describesObject = schema.type === 'object' || schema.properties !== undefined;
  if (!describesObject) return;

  for (const key of Object.keys(value)) {
    const child = childSchema(schema, key);
    if (child) {
      if (value[key] === null && child.nullable !== true) delete value[key];
      continue;
    }
    if (keepsUnknown(schema)) continue;
    delete value[key];
    unknown.push(formatPath([...path, key]));
  }

  const props = asSchema(schema.properties);
  if (props) {
    for (const [key, raw] of Object.entries(props)) {
      const child = asSchema(raw);
      if (child && value[key] === undefined && child.default !== undefined) value[key] = structuredClone(child.default);
    }
  }

  for (const key of Object.keys(value)) {
    const child = childSchema(schema, key);
    if (child) walk(value[key], child, [...path, key], unknown);
  }
}

/**
 * Prune, drop nulls and default a deep copy of `object` against `schema`. The input is never changed.
 */
export function normalizeStructure(object: unknown, schema: JsonSchema): StructuralResult {
  const value = structuredClone(object);
  const unknownFields: string[] = [];
  walk(value, schema, [], unknownFields);
  return { value, unknownFields };
}
