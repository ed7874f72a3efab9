/**
 * Renders a resource's inputs and outputs as Markdown tables from its zod model (the model's `.describe()` texts
 * are the single source); scripts/resource-pages.ts puts them into the resource pages under docs/resources/.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';

type JsonSchema = Record<string, any>;

function typeOf(s: JsonSchema): string {
  // A schema shared by reference (e.g. Kubernetes affinity types) is named by its definition.
  if (s.$ref) return String(s.$ref).split('/').pop()!;
  if (s.enum) return s.enum.map((v: unknown) => JSON.stringify(v)).join(' | ');
  if (s.anyOf) return s.anyOf.map(typeOf).join(' | ');
  if (s.type === 'array') return `${typeOf(s.items ?? {})}[]`;
  if (s.type === 'object' && s.additionalProperties && !s.properties) return `map of ${typeOf(s.additionalProperties)}`;
  if (Array.isArray(s.type)) return s.type.join(' | ');
  return s.type ?? 'any';
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function rows(schema: JsonSchema, prefix: string, required: Set<string>, markRequired: boolean): string[] {
  const out: string[] = [];
  for (const [key, prop] of Object.entries<JsonSchema>(schema.properties ?? {})) {
    const path = `${prefix}${key}`;
    const flags = [markRequired && required.has(key) ? 'required' : '', prop.secret ? 'secret' : '', prop.replaceOnChanges ? 'replaces' : '']
      .filter(Boolean)
      .join(', ');
    out.push(`| \`${path}\` | ${cell(typeOf(prop))} | ${flags} | ${cell(prop.description ?? '')} |`);
    // Lists document their items as `path[].x`, maps of objects their values as `path.*.x`.
    const map = prop.type === 'object' && !prop.properties && prop.additionalProperties?.properties;
    // A nullable object (`object | null`) documents the object's fields too.
    const orNull = prop.anyOf?.length === 2 && prop.anyOf.some((a: JsonSchema) => a.type === 'null') ? prop.anyOf.find((a: JsonSchema) => a.type !== 'null') : undefined;
    const nested = prop.type === 'array' ? prop.items : map ? prop.additionalProperties : (orNull ?? prop);
    if (nested?.type === 'object' && nested.properties) {
      out.push(...rows(nested, `${path}${prop.type === 'array' ? '[]' : map ? '.*' : ''}.`, new Set(nested.required ?? []), markRequired));
    }
  }
  return out;
}

/**
 * A Markdown table of a JSON schema's properties (nested objects, list items and map values as their own rows).
 * Outputs are not marked "required": that is a promise about inputs.
 */
export function renderPropertiesTable(json: JsonSchema, header: 'Input' | 'Output'): string {
  return [`| ${header} | Type | Flags | Description |`, '|---|---|---|---|', ...rows(json, '', new Set(json.required ?? []), header === 'Input')].join('\n');
}

/** The Markdown input table of a zod object model. */
export function renderInputsTable(model: z.ZodType): string {
  return renderPropertiesTable(z.toJSONSchema(model, { io: 'input', unrepresentable: 'any' }) as JsonSchema, 'Input');
}

/** The repository root: the nearest folder above `from` whose package.json is this package's. */
export function repoRoot(from = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    try {
      if (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name === 'harvester-iac') return dir;
    } catch {
      // no package.json here: keep walking up
    }
    if (dirname(dir) === dir) throw new Error(`no harvester-iac package.json above ${from}`);
  }
}
