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

/**
 * The top-level inputs of `schema` that name an object another resource of the package manages, with that
 * resource's class: `.meta({ references: 'HarvesterIPPool' })` (see core/program-refs.ts for why).
 */
export function inputReferences(schema: z.ZodObject): Readonly<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [key, field] of Object.entries(schema.shape)) {
    const target = ((field as z.ZodType).meta() as Record<string, unknown> | undefined)?.references;
    if (typeof target === 'string') out[key] = target;
  }
  return out;
}
