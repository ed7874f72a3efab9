/**
 * What kube-apiserver does to a Namespace besides the generic rules (docs/design/kube-api.md §3, from
 * kubernetes pkg/apis/core/v1/defaults.go `SetDefaults_Namespace`, pkg/registry/core/namespace/strategy.go,
 * pkg/apis/core/validation `ValidateNamespace`/`ValidateNamespaceFinalizeUpdate`, plugin/pkg/admission/
 * namespace/lifecycle, v1.32):
 *
 * - defaulting, before anything reads the request (so the writer's field manager owns it): the label
 *   `kubernetes.io/metadata.name: <name>` whenever the name is known;
 * - on create: `status.phase: Active`, and `kubernetes` appended to `spec.finalizers` when missing;
 * - on update of the object: `spec.finalizers` and `status` stay as stored (only the `finalize` and
 *   `status` subresources change them);
 * - canonicalisation after every write: the label forced to the name again (also for generateName names);
 * - validation: each `spec.finalizers` entry a qualified name, and without a `/` one of the standard
 *   finalizers (`kubernetes`, `orphan`, `foregroundDeletion`);
 * - NamespaceLifecycle: `default`, `kube-system` and `kube-public` may not be deleted (403).
 *
 * The namespace controller's part (emptying a Terminating namespace, then dropping `kubernetes` through
 * `finalize`) is in garbage-collector.ts and the store.
 */
import { StatusError } from './errors';
import { isPlainObject } from './store-json';
import { qualifiedNameErrors } from './store-names';
import { KubeObject, ValidationCause } from './types';

/** The label every namespace carries, holding its own name. */
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';
/** The finalizer of the namespace controller (`api.FinalizerKubernetes`). */
export const KUBERNETES_FINALIZER = 'kubernetes';
const STANDARD_FINALIZERS = new Set([KUBERNETES_FINALIZER, 'orphan', 'foregroundDeletion']);
/** Namespaces NamespaceLifecycle refuses to delete. */
export const IMMORTAL_NAMESPACES: ReadonlySet<string> = new Set(['default', 'kube-system', 'kube-public']);

/** Which write a namespace goes through. */
export type NamespaceWrite = 'create' | 'update' | 'status' | 'finalize';

function specOf(ns: KubeObject): Record<string, unknown> {
  if (!isPlainObject(ns.spec)) ns.spec = {};
  return ns.spec as Record<string, unknown>;
}

/** `spec.finalizers` as stored (strings only). */
export function namespaceFinalizers(ns: KubeObject): string[] {
  const list = isPlainObject(ns.spec) ? (ns.spec as Record<string, unknown>).finalizers : undefined;
  return Array.isArray(list) ? list.filter((f): f is string => typeof f === 'string') : [];
}

/** SetDefaults_Namespace: the name label, when the name is known. Mutates `ns`. */
export function defaultNamespace(ns: KubeObject): void {
  const name = ns.metadata.name;
  if (!name) return;
  ns.metadata.labels = { ...(isPlainObject(ns.metadata.labels) ? ns.metadata.labels : {}), [NAMESPACE_NAME_LABEL]: name };
}

/** The strategy's PrepareForCreate / PrepareForUpdate and Canonicalize for one write. Mutates `ns`. */
export function prepareNamespace(ns: KubeObject, write: NamespaceWrite, old?: KubeObject): void {
  if (write === 'create') {
    ns.status = { phase: 'Active' };
    const finalizers = namespaceFinalizers(ns);
    if (!finalizers.includes(KUBERNETES_FINALIZER)) specOf(ns).finalizers = [...finalizers, KUBERNETES_FINALIZER];
  } else if (write === 'update' && old) {
    const kept = namespaceFinalizers(old);
    if (kept.length > 0) specOf(ns).finalizers = kept;
    else if (isPlainObject(ns.spec)) delete (ns.spec as Record<string, unknown>).finalizers;
  }
  if (isPlainObject(ns.spec) && Object.keys(ns.spec).length === 0) delete ns.spec;
  defaultNamespace(ns);
}

/** ValidateNamespace / ValidateNamespaceFinalizeUpdate causes for `spec.finalizers`. */
export function namespaceCauses(ns: KubeObject, write: NamespaceWrite): ValidationCause[] {
  if (write === 'status') return [];
  const causes: ValidationCause[] = [];
  namespaceFinalizers(ns).forEach((f, i) => {
    const field = write === 'finalize' ? `spec.finalizers[${i}]` : 'spec.finalizers';
    for (const msg of qualifiedNameErrors(f)) causes.push({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${JSON.stringify(f)}: ${msg}` });
    if (!f.includes('/') && !STANDARD_FINALIZERS.has(f)) {
      causes.push({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${JSON.stringify(f)}: name is neither a standard finalizer name nor is it fully qualified` });
    }
  });
  return causes;
}

/** NamespaceLifecycle's 403 for deleting an immortal namespace. */
export function immortalNamespace(name: string): StatusError {
  return new StatusError(403, 'Forbidden', `namespaces "${name}" is forbidden: this namespace may not be deleted`, { name, kind: 'namespaces' });
}
