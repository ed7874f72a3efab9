/**
 * Contracts shared by the emulator's parts: the kind registry (emulator/kinds), the object store
 * (emulator/api/store.ts), the HTTP layer (emulator/api/server.ts), the simulated Harvester controllers
 * (emulator/controllers) and admission webhooks (emulator/webhooks).
 *
 * The store is the emulator's apiserver "registry": every write — from an HTTP client or from a simulated
 * controller — goes through it, so resourceVersions, admission, finalizers, garbage collection and watch
 * events behave the same whoever writes.
 */

/** A Kubernetes object as stored and served (JSON). */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  managedFields?: ManagedFieldsEntry[];
  [field: string]: unknown;
}

/** A structural JSON schema (the OpenAPI v3 subset CRDs use: type, properties, items, required, enum,
 * format, minimum/maximum, minLength/maxLength, pattern, additionalProperties,
 * x-kubernetes-preserve-unknown-fields, x-kubernetes-int-or-string). */
export type JsonSchema = Record<string, unknown>;

export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  /** Simple JSONPath such as `.spec.ipam` or `.metadata.creationTimestamp`. */
  jsonPath: string;
  description?: string;
  priority?: number;
}

/** A printer column with a computed cell. */
export interface ComputedColumn extends Omit<PrinterColumn, 'jsonPath'> {
  /** The cell; `date` columns return the timestamp, which table.ts turns into an age. */
  value(object: KubeObject): unknown;
}

/** One served resource. Registry entries live in emulator/kinds/. */
export interface KindInfo {
  /** '' for the core group. */
  group: string;
  version: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  categories?: string[];
  namespaced: boolean;
  /** True where the real resource has a /status subresource (KubeVirt VM/VMI, core Node/Service/Namespace/PVC). */
  statusSubresource: boolean;
  /** True for CRDs (generation starts at 1); false for core kinds that carry no generation. */
  hasGeneration: boolean;
  /** Built-in (core) kinds accept strategic merge patch; CRDs answer 415. */
  builtIn: boolean;
  /** Core kinds such as ConfigMap/Service/Node accept PUT without resourceVersion; CRDs refuse it (422). */
  allowUnconditionalUpdate: boolean;
  /** Validation schema of the whole object (apiVersion/kind/metadata may be left out). */
  schema: JsonSchema;
  printerColumns?: PrinterColumn[];
  /** Strategic-merge list keys by dotted path, e.g. {'spec.ports': 'port'} (built-ins only). */
  smpMergeKeys?: Record<string, string>;
  /**
   * Field labels a field selector may use besides metadata.name/metadata.namespace, with how each reads its
   * value (the kind's `GetAttrs`/field-label conversion upstream: pods' `spec.nodeName`, events' `involvedObject.*`).
   */
  fieldLabels?: Record<string, (object: KubeObject) => string>;
}

/** `apiVersion` of a kind: `v1` or `group/version`. */
export function apiVersionOf(kind: Pick<KindInfo, 'group' | 'version'>): string {
  return kind.group ? `${kind.group}/${kind.version}` : kind.version;
}

/** `plural.group` (or just `plural` for core), the resource name used in Status messages. */
export function qualifiedResource(kind: Pick<KindInfo, 'group' | 'plural'>): string {
  return kind.group ? `${kind.plural}.${kind.group}` : kind.plural;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent {
  type: WatchEventType;
  object: KubeObject | Record<string, unknown>;
}

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

/** Who is writing, and how. HTTP requests fill it from the query string; controllers pass their own. */
export interface WriteOptions {
  /** Field manager; required for apply. Controllers use e.g. 'harvester-lb-controller'. */
  fieldManager?: string;
  /** dryRun=All: run every check, store nothing, emit nothing. */
  dryRun?: boolean;
  /** fieldValidation: Strict (400 on unknown fields), Warn (prune + warning; the default), Ignore (prune). */
  fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
  /** force=true for apply. */
  force?: boolean;
  /** Writes to the status subresource change only .status; `finalize` is the Namespace's spec.finalizers. */
  subresource?: 'status' | 'finalize';
  /** The authenticated user (for admission rules and messages). */
  user?: string;
  /** Warnings collected for the response `Warning` header. */
  warnings?: string[];
}

export interface DeleteOptions {
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
  gracePeriodSeconds?: number;
  user?: string;
}

export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
}

export interface ListResult {
  items: KubeObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface WatchOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Unset or '0': synthetic ADDED for current objects first. 'N': every event after N (410 ERROR if too old). */
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  /**
   * Streaming list (WatchList, on by default in Kubernetes 1.32): true → ADDED for the current objects, then
   * (with bookmarks allowed) a BOOKMARK annotated `k8s.io/initial-events-end: "true"`; false → no initial
   * events, even for an unset resourceVersion. Unset: the legacy rule above.
   */
  sendInitialEvents?: boolean;
}

export interface WatchHandle {
  stop(): void;
}

/**
 * Admission, as Harvester's webhooks do it. Mutators run first, then validators; either may throw a
 * StatusError (usually 422 Invalid or 400 BadRequest with the real webhook's message). Hooks must not
 * write to the store; they may read it.
 */
export interface AdmissionRequest {
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  kind: KindInfo;
  /** The object after the write (CREATE/UPDATE); mutators may change it in place. */
  object?: KubeObject;
  /** The stored object before the write (UPDATE/DELETE). */
  oldObject?: KubeObject;
  subresource?: 'status' | 'finalize';
  dryRun: boolean;
  user?: string;
  store: StoreReader;
}

export interface AdmissionHook {
  /** Name shown in errors, like the real webhook's: e.g. 'validator.harvester-load-balancer-webhook'. */
  name: string;
  /** `plural.group` (qualifiedResource) of the kinds this hook sees. */
  resources: string[];
  mutate?(req: AdmissionRequest): void;
  validate?(req: AdmissionRequest): void;
}

export interface StoreReader {
  get(kind: KindInfo, namespace: string | undefined, name: string): KubeObject | undefined;
  list(kind: KindInfo, options?: ListOptions): ListResult;
  /** list() without copies: the frozen stored objects themselves, for readers that never mutate them. */
  listShared(kind: KindInfo, options?: ListOptions): ListResult;
}

/** The store's full surface. Objects passed in are never retained; objects returned are copies. */
export interface Store extends StoreReader {
  readonly registry: KindRegistry;
  /** The current global resourceVersion. */
  resourceVersion(): string;
  create(kind: KindInfo, object: KubeObject, options?: WriteOptions): KubeObject;
  /** PUT semantics (resourceVersion precondition, status rules, unconditional update per kind). */
  update(kind: KindInfo, object: KubeObject, options?: WriteOptions): KubeObject;
  /** Returns the patched object; for apply, `created` says whether it was created (201). */
  patch(
    kind: KindInfo,
    namespace: string | undefined,
    name: string,
    type: PatchType,
    body: unknown,
    options?: WriteOptions,
  ): { object: KubeObject; created: boolean };
  /** Returns the object (still present, marked for deletion) or a Success Status once gone. */
  delete(
    kind: KindInfo,
    namespace: string | undefined,
    name: string,
    options?: DeleteOptions,
  ): { object?: KubeObject; status?: Record<string, unknown> };
  watch(kind: KindInfo, options: WatchOptions, onEvent: (event: WatchEvent) => void): WatchHandle;
  /** Register an admission hook (Harvester webhook simulation). */
  addAdmissionHook(hook: AdmissionHook): void;
  /** Drop the event history so older resourceVersions answer 410 (fault injection). */
  compact(): void;
}

export interface KindRegistry {
  all(): KindInfo[];
  /** By apiVersion ('v1', 'kubevirt.io/v1') and kind ('VirtualMachine'). */
  byKind(apiVersion: string, kind: string): KindInfo | undefined;
  /** By group ('' for core), version and plural. */
  byResource(group: string, version: string, plural: string): KindInfo | undefined;
}

/** One schema violation, in the shape of a Status cause. */
export interface ValidationCause {
  reason:
    | 'FieldValueRequired'
    | 'FieldValueInvalid'
    | 'FieldValueNotSupported'
    | 'FieldValueTypeInvalid'
    | 'FieldValueForbidden'
    | 'FieldValueDuplicate'
    | 'FieldValueTooLong'
    | 'FieldValueTooMany';
  /** Dotted path as the apiserver prints it, e.g. `spec.listeners[0].port`. */
  field: string;
  /** e.g. `Required value`, `Unsupported value: "foo": supported values: "pool", "dhcp"`. */
  message: string;
}

export interface ValidationResult {
  /** The object with fields unknown to the schema pruned (a copy). */
  object: KubeObject;
  causes: ValidationCause[];
  /** Dotted paths of pruned unknown fields, e.g. `spec.foo` (Strict → 400, Warn → Warning header). */
  unknownFields: string[];
}

/** Schema validation of a whole object, provided by emulator/kinds and injected into the store. */
export type ObjectValidator = (kind: KindInfo, object: KubeObject) => ValidationResult;
