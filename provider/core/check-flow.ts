/**
 * The shape of `check` and of input parsing shared by the resources built on validateWithModel: the pure rules
 * first; then, only when they pass and the connection is known (not a preview unknown), the rules that need the
 * cluster, whose failures are left for read to report only when no input changed since the last run (trap 10).
 */
import { ProviderError, errorMessage } from './errors';
import { unchangedReferencesDropped } from './input-errors';
import type { CheckFailure, CheckResult, DiffResult } from './types';
import { isUnknown } from './unknowns';
import type { ModelValidation } from './validate-model';
import { declaredInProgram } from './program-refs';

type Raw = Record<string, unknown>;

/** The user's inputs: keys starting with "__" (such as `__provider`) dropped. */
export function userInputs(raw: Raw | undefined): Raw {
  return Object.fromEntries(Object.entries(raw ?? {}).filter(([k]) => !k.startsWith('__')));
}

/** What the cluster-side rules of check know besides the inputs. */
export interface CheckContext {
  /** Reference inputs whose object another resource of the same program creates (core/program-refs.ts). */
  inProgram: ReadonlySet<string>;
}

/** check: pure validation, then `cluster(inputs)` when possible; every failure at once. */
export async function checkInputs<T>(
  olds: Raw,
  news: Raw,
  validate: (raw: Raw) => ModelValidation<T>,
  cluster: (inputs: T, context: CheckContext) => Promise<CheckFailure[]>,
): Promise<CheckResult<Raw>> {
  const raw = userInputs(news);
  const v = validate(raw);
  const failures = [...v.failures];
  if (!failures.length && v.inputs && !isUnknown(raw.kubeconfig) && !isUnknown(raw.context)) {
    try {
      const recorded = userInputs(olds);
      const parsedOlds = (validate(recorded).inputs ?? recorded) as Raw;
      failures.push(...unchangedReferencesDropped(await cluster(v.inputs, { inProgram: declaredInProgram(news) }), parsedOlds, v.inputs as unknown as Raw));
    } catch (err) {
      failures.push({ property: '', reason: `cannot check the inputs against the Harvester cluster: ${errorMessage(err)}` });
    }
  }
  if (failures.length) return { inputs: news, failures };
  return { inputs: (v.inputs as unknown as Raw) ?? v.previewInputs ?? raw };
}

/** The handlers' inputs (already checked by the engine) with defaults; a clear error if they are not valid. */
export function parseChecked<T>(resource: string, raw: Raw, validate: (raw: Raw) => ModelValidation<T>): T {
  const v = validate(userInputs(raw));
  if (v.inputs) return v.inputs;
  throw new ProviderError('InvalidInputs', `The ${resource} inputs are invalid:\n${v.failures.map((f) => `  - ${f.reason}`).join('\n')}\n`, {
    fix: 'Fix the inputs above and run again.',
  });
}

/**
 * The diff of an object whose replacement takes over its name (every resource here names its objects): Kubernetes
 * refuses a second object of that name, so the old one must be deleted before the new one is made.
 */
export function deleteBeforeReplaceDiff(d: { changes: boolean; replaces: string[] }): DiffResult {
  return { changes: d.changes, replaces: d.replaces, deleteBeforeReplace: d.replaces.length > 0 };
}
