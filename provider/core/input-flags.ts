/**
 * The flags a resource model puts on its inputs with `.meta({ secret: true })` / `.meta({ replaceOnChanges: true })`,
 * read back from the zod schema itself, so the model stays the one source of truth for them.
 */
import type { z } from 'zod';

/** A flag an input can carry. */
export type InputFlag = 'secret' | 'replaceOnChanges';

/** The top-level inputs of `schema` whose field carries `.meta({ [flag]: true })`. */
export function inputsFlagged(schema: z.ZodObject, flag: InputFlag): readonly string[] {
  return Object.entries(schema.shape)
    .filter(([, field]) => ((field as z.ZodType).meta() as Record<string, unknown> | undefined)?.[flag] === true)
    .map(([key]) => key);
}
