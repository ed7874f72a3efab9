/** The zod models as JSON Schema (2020-12), the common form every generator reads. */
import { z } from 'zod';

export type JsonSchema = Record<string, any>;

/** A model's JSON Schema for inputs (defaults optional) or outputs (defaults applied). */
export function jsonSchemaOf(model: z.ZodType, io: 'input' | 'output'): JsonSchema {
  return z.toJSONSchema(model, { io, unrepresentable: 'any' }) as JsonSchema;
}

/** resolve follows a local `$ref` (`#/$defs/X`) into `defs`. */
export function resolve(schema: JsonSchema, defs: JsonSchema): JsonSchema {
  if (typeof schema.$ref === 'string' && schema.$ref.startsWith('#/$defs/')) return defs[schema.$ref.slice('#/$defs/'.length)] ?? {};
  return schema;
}

/** withoutNull: the schema minus a `null` alternative (nullable outputs are optional in Pulumi and TypeScript alike), and whether it had one. */
export function withoutNull(schema: JsonSchema): { schema: JsonSchema; nullable: boolean } {
  if (Array.isArray(schema.anyOf)) {
    const rest = schema.anyOf.filter((s: JsonSchema) => s.type !== 'null');
    if (rest.length < schema.anyOf.length) {
      const { anyOf: _drop, ...meta } = schema;
      return { schema: rest.length === 1 ? { ...meta, ...rest[0] } : { ...meta, anyOf: rest }, nullable: true };
    }
  }
  if (Array.isArray(schema.type) && schema.type.includes('null')) {
    const types = schema.type.filter((t: string) => t !== 'null');
    return { schema: { ...schema, type: types.length === 1 ? types[0] : types }, nullable: true };
  }
  return { schema, nullable: false };
}

/** isObjectWithProperties: a fixed-shape object (not a map). */
export function isObjectWithProperties(schema: JsonSchema): boolean {
  return schema.type === 'object' && schema.properties !== undefined;
}

/** pascal("disks") → "Disks"; singular("disks") → "Disk" (names of nested types). */
export function pascal(text: string): string {
  return text.replace(/(^|[-_ ])(\w)/g, (_m, _s, c: string) => c.toUpperCase());
}
export function singular(text: string): string {
  return text.endsWith('ies') ? `${text.slice(0, -3)}y` : text.endsWith('ses') ? text.slice(0, -2) : text.endsWith('s') ? text.slice(0, -1) : text;
}
