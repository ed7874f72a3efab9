/**
 * The Harvester store as a client holding a bearer token sees it: every call authenticates the token (401 once
 * it is revoked, its Secret or ServiceAccount deleted) and, for RBAC-governed users, is authorized like an
 * HTTP request with the same verb (403 with kube-apiserver's message). The guest cluster's simulated cloud
 * provider uses it when it is given credentials, so it is subject to RBAC like the real CCM.
 */
import { unauthorized } from '../api/errors';
import type { DeleteOptions, KindInfo, KubeObject, ListOptions, PatchType, Store, WatchEvent, WatchOptions, WriteOptions } from '../api/types';
import { authorize, forbiddenStatus, RbacKinds } from './authorizer';

/** Who a token is: the admin (no groups: never restricted) or an RBAC-governed user. */
export type TokenIdentity = (token: string) => { user: string; groups?: string[] } | undefined;

/** `store` seen through `token`. */
export function credentialedStore(store: Store, kinds: RbacKinds, identify: TokenIdentity, token: string): Store {
  const check = (verb: string, kind: KindInfo, namespace: string | undefined, name?: string, subresource?: string): string => {
    const who = identify(token);
    if (!who) throw unauthorized();
    if (!who.groups) return who.user;
    const attributes = { user: who.user, groups: who.groups, verb, apiGroup: kind.group, resource: kind.plural, subresource, namespace, name };
    const d = authorize(store, kinds, attributes);
    if (!d.allowed) throw forbiddenStatus(attributes, d.reason);
    return who.user;
  };
  return {
    registry: store.registry,
    resourceVersion: () => store.resourceVersion(),
    get(kind, namespace, name) {
      check('get', kind, namespace, name);
      return store.get(kind, namespace, name);
    },
    list(kind, options?: ListOptions) {
      check('list', kind, options?.namespace);
      return store.list(kind, options);
    },
    listShared(kind, options?: ListOptions) {
      check('list', kind, options?.namespace);
      return store.listShared(kind, options);
    },
    create(kind, object: KubeObject, options?: WriteOptions) {
      const user = check('create', kind, object.metadata.namespace);
      return store.create(kind, object, { ...options, user });
    },
    update(kind, object: KubeObject, options?: WriteOptions) {
      const user = check('update', kind, object.metadata.namespace, object.metadata.name, options?.subresource);
      return store.update(kind, object, { ...options, user });
    },
    patch(kind, namespace, name, type: PatchType, body: unknown, options?: WriteOptions) {
      const user = check('patch', kind, namespace, name);
      return store.patch(kind, namespace, name, type, body, { ...options, user });
    },
    delete(kind, namespace, name, options?: DeleteOptions) {
      const user = check('delete', kind, namespace, name);
      return store.delete(kind, namespace, name, { ...options, user });
    },
    watch(kind, options: WatchOptions, onEvent: (event: WatchEvent) => void) {
      check('watch', kind, options.namespace);
      return store.watch(kind, options, onEvent);
    },
    addAdmissionHook: (hook) => store.addAdmissionHook(hook),
    compact: () => store.compact(),
  };
}
