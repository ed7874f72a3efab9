/**
 * Per-kind preparation the real apiserver does to a built-in object before validation (conversion, defaulting
 * and the REST storage's allocations):
 * - Secret: `stringData` is merged into `data` (base64, stringData winning) and dropped; `type` defaults to
 *   `Opaque` (k8s.io/kubernetes pkg/apis/core/v1 conversion `Convert_v1_Secret_To_core_Secret` and defaults).
 * - Service: defaults, cluster IP and node ports (service-strategy.ts).
 * Status-subresource writes are left alone: they cannot change what these rules touch.
 */
import { prepareService } from './service-strategy';
import { KindInfo, KubeObject } from './types';

/** What a strategy may look at besides the object: the stored version and the kind's other objects. */
export interface StrategyContext {
  old?: KubeObject;
  siblings?: () => KubeObject[];
  subresource?: 'status';
}

/** Mutates `obj` in place as the apiserver's conversion, defaulting and allocation would. */
export function prepareForStorage(kind: KindInfo, obj: KubeObject, ctx: StrategyContext = {}): void {
  if (kind.group !== '' || ctx.subresource === 'status') return;
  if (kind.kind === 'Secret') prepareSecret(obj);
  else if (kind.kind === 'Service') prepareService(obj, { old: ctx.old, siblings: ctx.siblings ?? (() => []) });
}

function prepareSecret(obj: KubeObject): void {
  const stringData = obj.stringData;
  if (stringData && typeof stringData === 'object') {
    const data: Record<string, unknown> = { ...((obj.data as Record<string, unknown> | undefined) ?? {}) };
    for (const [key, value] of Object.entries(stringData as Record<string, unknown>)) {
      if (typeof value === 'string') data[key] = Buffer.from(value, 'utf8').toString('base64');
    }
    obj.data = data;
  }
  delete obj.stringData;
  if (obj.type === undefined || obj.type === '') obj.type = 'Opaque';
}
