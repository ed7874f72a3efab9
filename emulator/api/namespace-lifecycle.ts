/**
 * The namespace parts of kube-apiserver and kube-controller-manager the store plays (docs/design/kube-api.md
 * §3): NamespaceLifecycle admission on create (the namespace must exist and not be Terminating;
 * plugin/pkg/admission/namespace/lifecycle), and the namespace controller's last steps for an emptied
 * Terminating namespace (pkg/controller/namespace/deletion): drop its own `kubernetes` finalizer through the
 * `finalize` subresource, then, once spec.finalizers and metadata.finalizers are both empty, the namespace
 * goes. Emptying it is the garbage collector's part (garbage-collector.ts).
 */
import { namespaceNotFound } from './errors';
import { KUBERNETES_FINALIZER, namespaceFinalizers } from './namespace-strategy';
import { namespaceTerminating } from './store-checks';
import { copyJson } from './store-json';
import { KindInfo, KubeObject, WriteOptions } from './types';

/** Who the namespace controller writes as (kube-controller-manager's client). */
const NAMESPACE_CONTROLLER: WriteOptions = { fieldManager: 'kube-controller-manager', user: 'system:serviceaccount:kube-system:namespace-controller' };

/** What the lifecycle needs from the store. */
export interface NamespaceHost {
  /** The served Namespace kind, if any. */
  namespaceKind(): KindInfo | undefined;
  /** The stored Namespace (frozen), if it exists. */
  storedNamespace(name: string): KubeObject | undefined;
  /** How many objects live in the namespace. */
  contentCount(name: string): number;
  update(kind: KindInfo, object: KubeObject, options: WriteOptions): KubeObject;
  removeNow(kind: KindInfo, stored: KubeObject): void;
}

/** NamespaceLifecycle: 404 for a missing namespace, 403 while it is being terminated. */
export function checkNamespaceAccepts(host: NamespaceHost, kind: KindInfo, name: string, namespace: string): void {
  if (!host.namespaceKind()) return;
  const ns = host.storedNamespace(namespace);
  if (!ns) throw namespaceNotFound(namespace);
  if (ns.metadata.deletionTimestamp) throw namespaceTerminating(kind, name, namespace);
}

/** One step of the namespace controller for `name` (called by the GC whenever the namespace may be done). */
export function finalizeNamespace(host: NamespaceHost, name: string): void {
  const nsKind = host.namespaceKind();
  const ns = nsKind && host.storedNamespace(name);
  if (!nsKind || !ns || !ns.metadata.deletionTimestamp || host.contentCount(name) > 0) return;
  const finalizers = namespaceFinalizers(ns);
  if (finalizers.includes(KUBERNETES_FINALIZER)) {
    const finalized = copyJson(ns);
    (finalized.spec as Record<string, unknown>).finalizers = finalizers.filter((f) => f !== KUBERNETES_FINALIZER);
    // The update removes the namespace itself when nothing else holds it (the store's commitUpdate).
    host.update(nsKind, finalized, { ...NAMESPACE_CONTROLLER, subresource: 'finalize' });
    return;
  }
  if (finalizers.length > 0 || ns.metadata.finalizers) return;
  host.removeNow(nsKind, ns);
}
