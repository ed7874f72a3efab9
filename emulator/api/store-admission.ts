/**
 * Admission and schema validation, in the apiserver's order: mutating admission, then validation (object
 * meta + the kind's schema, with fieldValidation handling of unknown fields), then validating admission.
 */
import { StatusError, internalError, invalid, badRequest } from './errors';
import { prepareForStorage, strategyCauses, StrategyContext } from './store-strategies';
import { AdmissionHook, AdmissionRequest, KindInfo, KubeObject, ObjectValidator, StoreReader, ValidationCause, WriteOptions, qualifiedResource } from './types';

/** The registered admission hooks. */
export class AdmissionChain {
  private readonly hooks: AdmissionHook[] = [];

  /** Register a hook; hooks run in registration order. */
  add(hook: AdmissionHook): void {
    this.hooks.push(hook);
  }

  private matching(kind: KindInfo): AdmissionHook[] {
    const resource = qualifiedResource(kind);
    return this.hooks.filter((h) => h.resources.includes(resource));
  }

  private call(hook: AdmissionHook, fn: (req: AdmissionRequest) => void, req: AdmissionRequest): void {
    try {
      fn.call(hook, req);
    } catch (err) {
      if (err instanceof StatusError) throw err;
      const why = err instanceof Error ? err.message : String(err);
      throw internalError(`failed calling webhook "${hook.name}": ${why}`);
    }
  }

  /** Mutating hooks (CREATE/UPDATE only); they may change `req.object` in place. */
  mutate(req: Omit<AdmissionRequest, 'store'>, store: StoreReader): void {
    if (req.operation === 'DELETE') return;
    for (const h of this.matching(req.kind)) if (h.mutate) this.call(h, h.mutate, { ...req, store });
  }

  /** Validating hooks (all operations). */
  validate(req: Omit<AdmissionRequest, 'store'>, store: StoreReader): void {
    for (const h of this.matching(req.kind)) if (h.validate) this.call(h, h.validate, { ...req, store });
  }
}

/**
 * Validate an object about to be stored: the kind's built-in strategy (store-strategies.ts), then metadata
 * causes plus the kind's schema (when a validator is configured). Unknown fields: Strict → 400, Warn
 * (default) → warnings + pruned, Ignore → pruned.
 * Returns the object to store (pruned copy, or `obj` itself without a validator).
 */
export function validateForStorage(
  kind: KindInfo,
  obj: KubeObject,
  metaCauses: ValidationCause[],
  validate: ObjectValidator | undefined,
  options: WriteOptions,
  strategy: StrategyContext = {},
): KubeObject {
  prepareForStorage(kind, obj, strategy);
  const name = obj.metadata.name ?? obj.metadata.generateName ?? '';
  let result = obj;
  const causes = [...metaCauses, ...strategyCauses(kind, obj, strategy)];
  if (validate) {
    const r = validate(kind, obj);
    const mode = options.fieldValidation ?? 'Warn';
    if (r.unknownFields.length > 0) {
      if (mode === 'Strict') {
        throw badRequest(`strict decoding error: ${r.unknownFields.map((f) => `unknown field "${f}"`).join(', ')}`);
      }
      if (mode === 'Warn' && options.warnings) {
        for (const f of r.unknownFields) options.warnings.push(`unknown field "${f}"`);
      }
    }
    causes.push(...r.causes);
    result = r.object;
  }
  if (causes.length > 0) throw invalid(kind, name, causes);
  return result;
}
