/**
 * The shape of every resource's pure `check` validation: the zod model plus the rules it cannot state, every
 * failure named by its input path with the fix, all at once. Unknown values (preview) are never judged; secret
 * inputs are never quoted.
 */
import type { z } from 'zod';
import type { CheckFailure } from './types';
import { inputErrorMap, issuesToFailures, schemaKeys } from './input-errors';
import { containsUnknown, isUnknown } from './unknowns';

type Obj = Record<string, unknown>;

export interface ModelValidation<T> {
  /** Inputs with defaults applied, when valid and fully known. */
  inputs?: T;
  failures: CheckFailure[];
  hasUnknowns: boolean;
  /** Preview with unknown top-level inputs: the known ones with defaults applied, the unknown ones as they are. */
  previewInputs?: Obj;
}

/**
 * The known top-level inputs with the model's defaults applied and the unknown ones put back, so a preview's
 * old-vs-new comparison (the engine's display, and diff's replace decision) sees only what really changes rather
 * than every defaulted field as removed. Undefined when an unknown sits deeper than the top level.
 */
export function withDefaultsAroundUnknowns(model: z.ZodType, user: Obj): Obj | undefined {
  const unknownKeys = Object.keys(user).filter((k) => isUnknown(user[k]));
  const known = Object.fromEntries(Object.entries(user).filter(([k]) => !unknownKeys.includes(k)));
  if (containsUnknown(known)) return undefined;
  // The unknown inputs may be required ones: they are left out of this parse (and put back below).
  const partial = (model as unknown as { partial?: (mask: Record<string, true>) => z.ZodType }).partial;
  const schema = partial && unknownKeys.length ? partial.call(model, Object.fromEntries(unknownKeys.map((k) => [k, true as const]))) : model;
  const parsed = schema.safeParse(known);
  if (!parsed.success) return undefined;
  return { ...(parsed.data as Obj), ...Object.fromEntries(unknownKeys.map((k) => [k, user[k]])) };
}

export function validateWithModel<S extends z.ZodType>(
  model: S,
  raw: Record<string, unknown>,
  options: { secretInputs: readonly string[]; crossField?: (user: Obj) => CheckFailure[] },
): ModelValidation<z.output<S>> {
  const user: Obj = Object.fromEntries(Object.entries(raw ?? {}).filter(([k]) => !k.startsWith('__')));
  const hasUnknowns = containsUnknown(user);
  const parsed = model.safeParse(user, { error: inputErrorMap });
  const failures = parsed.success ? [] : issuesToFailures(parsed.error.issues, user, { secretInputs: options.secretInputs, knownKeys: schemaKeys(model) });
  const seen = new Set(failures.map((f) => f.property));
  for (const f of options.crossField?.(user) ?? []) if (!seen.has(f.property)) failures.push(f);
  const inputs = parsed.success && failures.length === 0 && !hasUnknowns ? (parsed.data as z.output<S>) : undefined;
  const previewInputs = hasUnknowns && failures.length === 0 ? withDefaultsAroundUnknowns(model, user) : undefined;
  return { inputs, failures, hasUnknowns, previewInputs };
}
