/**
 * The flags a resource model puts on its inputs with `.meta({ secret: true })` / `.meta({ replaceOnChanges: true })`,
 * read back from the zod schema itself, so the model stays the one source of truth for them.
 */
import type { z } from 'zod';

/** A flag an input can carry. `.meta({ references: "<Class>" })` is read by {@link inputReferences}. */
export type InputFlag = 'secret' | 'replaceOnChanges';

/** The top-level inputs of `schema` whose field carries `.meta({ [flag]: true })`. */
export function inputsFlagged(schema: z.ZodObject, flag: InputFlag): readonly string[] {
  return Object.entries(schema.shape)
    .filter(([, field]) => ((field as z.ZodType).meta() as Record<string, unknown> | undefined)?.[flag] === true)
    .map(([key]) => key);
}

/** The wrappers whose inner schema is the value's own (a default, an optional, …). */
const WRAPPERS = new Set(['optional', 'default', 'prefault', 'nullable', 'readonly', 'catch', 'nonoptional']);

/** The `references` meta of a field, looked for on it and on every wrapper inside it; and the unwrapped schema. */
function unwrap(field: z.ZodType): { references?: string; inner: z.ZodType } {
  let current = field;
  let references: string | undefined;
  for (;;) {
    const target = (current.meta() as Record<string, unknown> | undefined)?.references;
    if (typeof target === 'string') references ??= target;
    const def = (current as unknown as { def: { type: string; innerType?: z.ZodType } }).def;
    if (!WRAPPERS.has(def.type) || !def.innerType) return { references, inner: current };
    current = def.innerType;
  }
}

/**
 * The inputs of `schema` that name an object another resource of the package manages, with that resource's class:
 * `.meta({ references: 'HarvesterIPPool' })` (see core/program-refs.ts for why). Keys are paths, top-level inputs
 * by name (`ipPool`), nested ones with `[]` for every element of a list: `disks[].image`, `sshKeys[]`.
 */
export function inputReferences(schema: z.ZodObject): Readonly<Record<string, string>> {
  const out: Record<string, string> = {};
  const visit = (field: z.ZodType, path: string) => {
    const { references, inner } = unwrap(field);
    if (references) out[path] = references;
    const def = (inner as unknown as { def: { type: string; element?: z.ZodType } }).def;
    if (def.type === 'array' && def.element) visit(def.element, `${path}[]`);
    if (def.type === 'object') for (const [key, child] of Object.entries((inner as z.ZodObject).shape)) visit(child as z.ZodType, `${path}.${key}`);
  };
  for (const [key, field] of Object.entries(schema.shape)) visit(field as z.ZodType, key);
  return out;
}

/**
 * A model whose inputs come in variants chosen by one input (a load balancer's `workloadType`, marked
 * `.meta({ discriminator: true })`): each variant's own inputs carry `.meta({ variant: '<value>' })`, those the variant needs `.meta({ variant: '<value>', required: true })`.
 * check refuses a variant's required input missing and another variant's input given; the SDK's Args type is a union
 * on the discriminator, so TypeScript asks for the required inputs too (scripts/codegen/typescript.ts).
 */
export interface InputVariants {
  /** The input that chooses, e.g. "workloadType". */
  discriminator: string;
  /** Its default (the variant when it is left out). */
  defaultValue?: string;
  /** Per value: the inputs only that variant takes, and which of them it needs. */
  variants: Record<string, { only: string[]; required: string[] }>;
}

/** The variants of `schema` (undefined when it has none): the input marked `.meta({ discriminator: true })` chooses. */
export function inputVariants(schema: z.ZodObject): InputVariants | undefined {
  const discriminator = Object.keys(schema.shape).find((k) => ((schema.shape[k] as z.ZodType).meta() as { discriminator?: boolean } | undefined)?.discriminator);
  if (!discriminator) return undefined;
  const field = schema.shape[discriminator] as z.ZodType;
  const def = (field as unknown as { def: { type: string; defaultValue?: unknown } }).def;
  const variants: InputVariants['variants'] = {};
  for (const [key, f] of Object.entries(schema.shape)) {
    const meta = (f as z.ZodType).meta() as { variant?: string; required?: boolean } | undefined;
    if (!meta?.variant) continue;
    const v = (variants[meta.variant] ??= { only: [], required: [] });
    v.only.push(key);
    if (meta.required) v.required.push(key);
  }
  if (!Object.keys(variants).length) return undefined;
  const defaultValue = def.type === 'default' ? String(typeof def.defaultValue === 'function' ? (def.defaultValue as () => unknown)() : def.defaultValue) : undefined;
  return { discriminator, defaultValue, variants };
}
