/**
 * The shape of every resource's pure `check` validation: the zod model plus the rules it cannot state, every
 * failure named by its input path with the fix, all at once. Unknown values (preview) are never judged; secret
 * inputs are never quoted.
 */
import type { z } from 'zod';
import type { CheckFailure } from './types';
import { inputErrorMap, issuesToFailures, schemaKeys } from './input-errors';
import { containsUnknown } from './unknowns';

type Obj = Record<string, unknown>;

export interface ModelValidation<T> {
  /** Inputs with defaults applied, when valid and fully known. */
  inputs?: T;
  failures: CheckFailure[];
  hasUnknowns: boolean;
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
  return { inputs, failures, hasUnknowns };
}
