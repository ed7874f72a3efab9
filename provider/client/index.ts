/**
 * The Harvester API client layer. Every provider resource talks to Harvester (and to guest clusters) only
 * through this module; nothing else sees client-node's ApiException.
 *
 * Connecting
 *   `HarvesterClient.connect({ kubeconfig?, context?, logger?, retry?, sleep?, random? }) → Promise<HarvesterClient>`
 *   `kubeconfig` is a path or the YAML itself, plain or base64 (a Pulumi secret); unset: $KUBECONFIG, then ~/.kube/config.
 *   TLS is verified unless the kubeconfig's cluster says insecure-skip-tls-verify (then a warning is logged).
 *   Rancher-issued kubeconfigs (token auth, https://rancher/k8s/clusters/<id>) work as they are.
 *
 * Typed accessors (ResourceClient<T>)
 *   client.virtualMachines, virtualMachineInstances, images, keyPairs, networks, loadBalancers, ipPools,
 *   nodes, services, secrets, persistentVolumeClaims, namespaces, settings, pods, resourceQuotas, events,
 *   longhornNodes, longhornSettings (read only); client.resource(kindSpec) for others.
 *   get(name, namespace?) → T | undefined                     undefined on 404
 *   list({namespace?, labelSelector?, fieldSelector?}) → {items, resourceVersion}
 *   create(obj, {dryRun?, owner?}) → T                        AlreadyExists → our equivalent object, else error
 *   mergePatch(name, patch, {namespace?, resourceVersion?, owner?}) → T
 *   apply(obj, {force?, owner?}) → T                          server-side apply, field manager "harvester-iac"
 *   update(name, namespace, live => desired | undefined, {owner?}) → T   read-modify-write, 409 re-applied,
 *                                                             live status always preserved
 *   delete(name, {namespace?, propagationPolicy?, owner?}) → 'deleted' | 'deleting' | 'absent'
 *   watch(options, onEvent, onClose) → {stop()}               raw; prefer provider/await's waitFor
 *   Calls retry 429/5xx/resets with jittered exponential backoff honouring Retry-After (retry.ts).
 *
 * Errors: HarvesterError{code, object, causes, fix, httpStatus, attempts} and its subclasses (errors.ts).
 * Ownership: ownerLabels / stampOwnership / isOwnedBy / assertOwned / ownerSelector (ownership.ts); pass
 *   `owner` to writes so that nothing we do not own is ever changed (NotOwnedError).
 * Secrets: registerSecret(value) makes redact() (used by every error and log line) remove it.
 */
export { HarvesterClient, type ConnectOptions } from './harvester-client';
export { ResourceClient } from './resource-client';
export {
  FIELD_MANAGER,
  type ClientContext,
  type ListOptions,
  type ListResult,
  type CreateOptions,
  type MergePatchOptions,
  type ApplyOptions,
  type UpdateOptions,
  type DeleteOptions,
  type DeleteResult,
  type WatchOptions,
  type WatchEventType,
  type WatchHandle,
} from './resource-types';
export * from './errors';
export { fromApiException, describeObject, parseStatus, type RequestTarget, type Verb } from './from-api-exception';
export { loadKubeConfig, looksLikeContent, type ConnectionInfo, type AuthKind, type LoadedKubeConfig, type KubeConfigOptions } from './kube-config';
export { KINDS, apiVersionOf, collectionPath, type KindSpec, type KindName } from './kinds';
export * from './objects';
export * from './ownership';
export { redact, redactObject, registerSecret, REDACTED } from './redact';
export { DEFAULT_RETRY_POLICY, backoffDelay, retryDelay, parseRetryAfter, withRetry, resolvePolicy, realSleep, type RetryPolicy, type Sleep, type RetryOptions } from './retry';
export { safeLogger, type Logger, type SafeLogger } from './logger';
export { deepEqual, firstDifference, writableCopy, clone, type Difference } from './object-utils';
