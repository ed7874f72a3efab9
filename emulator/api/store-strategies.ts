/**
 * Per-kind preparation the real apiserver does to a built-in object before validation (conversion, defaulting
 * and the REST storage's allocations):
 * - Secret: `stringData` is merged into `data` (base64, stringData winning) and dropped; `type` defaults to
 *   `Opaque` (k8s.io/kubernetes pkg/apis/core/v1 conversion `Convert_v1_Secret_To_core_Secret` and defaults).
 * - Service: defaults, cluster IP and node ports (service-strategy.ts).
 * - Namespace: status, spec.finalizers and the name label (namespace-strategy.ts).
 * Status-subresource writes are left alone: they cannot change what these rules touch.
 *
 * And the built-in validation rules that are not schema rules (strategyCauses):
 * - a `kubernetes.io/service-account-token` Secret must name its ServiceAccount (pkg/apis/core/validation);
 * - a RoleBinding's or ClusterRoleBinding's roleRef cannot change (pkg/apis/rbac/validation): clients delete
 *   and recreate the binding instead.
 */
import { namespaceCauses, NamespaceWrite, prepareNamespace } from './namespace-strategy';
import { prepareService } from './service-strategy';
import { isNamespaceKind } from './store-meta';
import { KindInfo, KubeObject, ValidationCause } from './types';

/** What a strategy may look at besides the object: the stored version and the kind's other objects. */
export interface StrategyContext {
  old?: KubeObject;
  siblings?: () => KubeObject[];
  subresource?: 'status' | 'finalize';
}

/** Which namespace write a strategy context describes. */
function namespaceWrite(ctx: StrategyContext): NamespaceWrite {
  return ctx.subresource ?? (ctx.old ? 'update' : 'create');
}

/** Mutates `obj` in place as the apiserver's conversion, defaulting and allocation would. */
export function prepareForStorage(kind: KindInfo, obj: KubeObject, ctx: StrategyContext = {}): void {
  if (isNamespaceKind(kind)) return prepareNamespace(obj, namespaceWrite(ctx), ctx.old);
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

const SA_NAME_ANNOTATION = 'kubernetes.io/service-account.name';

/** Go's %#v of an rbac.RoleRef, as the apiserver prints the invalid value. */
function roleRefText(ref: unknown): string {
  const r = (ref ?? {}) as Record<string, unknown>;
  return `rbac.RoleRef{APIGroup:${JSON.stringify(String(r.apiGroup ?? ''))}, Kind:${JSON.stringify(String(r.kind ?? ''))}, Name:${JSON.stringify(String(r.name ?? ''))}}`;
}

/** Built-in validation causes beyond the schema (see the header). */
export function strategyCauses(kind: KindInfo, obj: KubeObject, ctx: StrategyContext = {}): ValidationCause[] {
  if (isNamespaceKind(kind)) return namespaceCauses(obj, namespaceWrite(ctx));
  if (ctx.subresource === 'status') return [];
  if (kind.group === '' && kind.kind === 'Secret' && obj.type === 'kubernetes.io/service-account-token' && !obj.metadata.annotations?.[SA_NAME_ANNOTATION]) {
    return [{ reason: 'FieldValueRequired', field: `metadata.annotations[${SA_NAME_ANNOTATION}]`, message: 'Required value' }];
  }
  if (kind.group === 'rbac.authorization.k8s.io' && (kind.kind === 'RoleBinding' || kind.kind === 'ClusterRoleBinding') && ctx.old) {
    const a = (ctx.old.roleRef ?? {}) as Record<string, unknown>;
    const b = (obj.roleRef ?? {}) as Record<string, unknown>;
    if (a.apiGroup !== b.apiGroup || a.kind !== b.kind || a.name !== b.name) {
      return [{ reason: 'FieldValueInvalid', field: 'roleRef', message: `Invalid value: ${roleRefText(obj.roleRef)}: cannot change roleRef` }];
    }
  }
  return [];
}
