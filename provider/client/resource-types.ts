/**
 * Option and result types of ResourceClient (resource-client.ts), and the context its instances share.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { ConnectionInfo } from './kube-config';
import { SafeLogger } from './logger';
import { OwnerIdentity } from './ownership';
import { RetryPolicy, Sleep } from './retry';

/** Our field manager for server-side apply and for updates. */
export const FIELD_MANAGER = 'harvester-iac';

/** Shared by every ResourceClient of one HarvesterClient. */
export interface ClientContext {
  connection: ConnectionInfo;
  kubeConfig: KubeConfig;
  policy: RetryPolicy;
  sleep: Sleep;
  random?: () => number;
  logger: SafeLogger;
  /** Namespace used when a namespaced call names none (the context's, else "default"). */
  defaultNamespace: string;
}

/** Options of `list`. Without namespace a namespaced kind is listed across all namespaces. */
export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

/** Items plus the list's resourceVersion (the point a watch resumes from). */
export interface ListResult<T> {
  items: T[];
  resourceVersion: string;
}

/** Options of `create`. */
export interface CreateOptions {
  /** Validate and admit, store nothing. */
  dryRun?: boolean;
  /** Stamp these ownership labels, and accept an existing object only if it carries them. */
  owner?: OwnerIdentity;
}

/** Options of `mergePatch`. */
export interface MergePatchOptions {
  namespace?: string;
  /** Precondition: fail with Conflict unless the object is still at this version. */
  resourceVersion?: string;
  /** Refuse (NotOwnedError) unless the object carries these ownership labels. */
  owner?: OwnerIdentity;
  dryRun?: boolean;
}

/** Options of `apply`. */
export interface ApplyOptions {
  /** Take over fields other managers own instead of failing with Conflict. @default false */
  force?: boolean;
  owner?: OwnerIdentity;
  dryRun?: boolean;
}

/** Options of `update`. */
export interface UpdateOptions {
  owner?: OwnerIdentity;
  /** How many times to re-read and re-apply on 409 Conflict. @default 5 */
  maxConflictRetries?: number;
  dryRun?: boolean;
}

/** Options of `delete`. */
export interface DeleteOptions {
  namespace?: string;
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  owner?: OwnerIdentity;
  dryRun?: boolean;
}

/** 'deleted': gone now; 'deleting': still there (finalizers, foreground); 'absent': was not there. */
export type DeleteResult = 'deleted' | 'deleting' | 'absent';

/** Options of a raw watch. */
export interface WatchOptions extends ListOptions {
  /** Resume after this version; unset = synthetic ADDED for everything first. */
  resourceVersion?: string;
  allowBookmarks?: boolean;
  /** Ask the server to end the stream cleanly after this long. @default 300 */
  timeoutSeconds?: number;
}

/** Watch event types, as the API sends them. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

/** Stops a watch; `onClose` is not called after stop(). */
export interface WatchHandle {
  stop(): void;
}
