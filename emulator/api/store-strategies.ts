/**
 * Per-kind preparation the real apiserver does while decoding a built-in object, before validation:
 * - Secret: `stringData` is merged into `data` (base64, stringData winning) and dropped; `type` defaults to
 *   `Opaque` (k8s.io/kubernetes pkg/apis/core/v1 conversion `Convert_v1_Secret_To_core_Secret` and defaults).
 */
import { KindInfo, KubeObject } from './types';

/** Mutates `obj` in place as the apiserver's conversion and defaulting would. */
export function prepareForStorage(kind: KindInfo, obj: KubeObject): void {
  if (kind.group === '' && kind.kind === 'Secret') prepareSecret(obj);
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
