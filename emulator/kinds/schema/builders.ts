/**
 * Small constructors for structural JSON schemas (the OpenAPI v3 subset CRDs use), so the per-kind schema
 * files read like the API they describe instead of like nested object literals.
 *
 * Conventions follow the apiserver's structural-schema rules:
 * - an object with `properties` prunes fields it does not list (unless `x-kubernetes-preserve-unknown-fields`);
 * - `opaque()` marks a subtree whose content we deliberately do not model (kept verbatim, never rejected);
 * - `nullable` keeps an explicit `null`; otherwise the validator drops nulls before validating, as the real
 *   apiserver does.
 */
import { JsonSchema } from '../../api/types';

type Extra = Record<string, unknown>;

/** A string, optionally with extra keywords (enum, pattern, format, maxLength...). */
export function str(extra: Extra = {}): JsonSchema {
  return { type: 'string', ...extra };
}

/** A string restricted to the given values (an apiserver FieldValueNotSupported when violated). */
export function oneOf(values: string[], extra: Extra = {}): JsonSchema {
  return { type: 'string', enum: values, ...extra };
}

/** An RFC 3339 timestamp; nullable because KubeVirt and core conditions serialise unset times as null. */
export function time(nullable = false): JsonSchema {
  return nullable ? { type: 'string', format: 'date-time', nullable: true } : { type: 'string', format: 'date-time' };
}

/** A 32-bit integer (the format is informative: the apiserver does not range-check it for CRDs). */
export function int32(extra: Extra = {}): JsonSchema {
  return { type: 'integer', format: 'int32', ...extra };
}

/** A 64-bit integer. */
export function int64(extra: Extra = {}): JsonSchema {
  return { type: 'integer', format: 'int64', ...extra };
}

/** An integer without a declared width (Harvester's CRDs often leave the format out). */
export function int(extra: Extra = {}): JsonSchema {
  return { type: 'integer', ...extra };
}

/** A boolean. */
export function bool(): JsonSchema {
  return { type: 'boolean' };
}

/** A value that may be an integer or a string (ports by name, percentages). */
export function intOrString(extra: Extra = {}): JsonSchema {
  return { 'x-kubernetes-int-or-string': true, ...extra };
}

/**
 * The regular expression Kubernetes uses for resource quantities (`4Gi`, `125m`, `1e3`), as the generated
 * CRDs of KubeVirt carry it.
 */
export const QUANTITY_PATTERN =
  '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';

/** A resource quantity: int-or-string matching the quantity grammar. */
export function quantity(): JsonSchema {
  return { 'x-kubernetes-int-or-string': true, pattern: QUANTITY_PATTERN };
}

/** A map of resource name to quantity (`limits`, `requests`, `capacity`). */
export function resourceList(): JsonSchema {
  return { type: 'object', additionalProperties: quantity() };
}

/** An object with the given properties; `required` lists the properties the apiserver insists on. */
export function obj(properties: Record<string, JsonSchema>, required: string[] = [], extra: Extra = {}): JsonSchema {
  const schema: JsonSchema = { type: 'object', properties, ...extra };
  if (required.length > 0) schema.required = required;
  return schema;
}

/** An object that lists its known properties but keeps unknown ones (never pruned, never reported). */
export function openObj(properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema {
  return obj(properties, required, { 'x-kubernetes-preserve-unknown-fields': true });
}

/** An object we do not model: its content is kept as sent. */
export function opaque(extra: Extra = {}): JsonSchema {
  return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, ...extra };
}

/** An object whose only valid content is `{}` (KubeVirt's `bridge: {}`, `masquerade: {}`). */
export function empty(): JsonSchema {
  return { type: 'object' };
}

/** An array of the given item schema. */
export function arr(items: JsonSchema, extra: Extra = {}): JsonSchema {
  return { type: 'array', items, ...extra };
}

/** A map of string keys to the given value schema (labels, selectors, allocation tables). */
export function mapOf(values: JsonSchema): JsonSchema {
  return { type: 'object', additionalProperties: values };
}

/** map[string]string. */
export function stringMap(): JsonSchema {
  return mapOf(str());
}

/** `{name}`: a LocalObjectReference (its generated schema defaults name to ""). */
export function localRef(): JsonSchema {
  return obj({ name: str({ default: '' }) });
}

/** The condition shape Harvester's own CRDs share (wrangler's genericcondition.GenericCondition). */
export function harvesterConditions(): JsonSchema {
  return arr(
    obj(
      {
        type: str(),
        status: str(),
        lastUpdateTime: str(),
        lastTransitionTime: str(),
        reason: str(),
        message: str(),
      },
      ['status', 'type'],
    ),
  );
}

/** metav1.Condition, as core Service status and many newer APIs use it. */
export function metaConditions(): JsonSchema {
  return arr(
    obj(
      {
        type: str(),
        status: oneOf(['True', 'False', 'Unknown']),
        observedGeneration: int64(),
        lastTransitionTime: time(),
        reason: str(),
        message: str(),
      },
      ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
    ),
  );
}

/** The older per-API condition shape (Node, Namespace, PVC, KubeVirt): probe and transition times may be null. */
export function probeConditions(extraTimes: string[] = ['lastProbeTime']): JsonSchema {
  const properties: Record<string, JsonSchema> = {
    type: str(),
    status: str(),
    lastTransitionTime: time(true),
    reason: str(),
    message: str(),
  };
  for (const t of extraTimes) properties[t] = time(true);
  return arr(obj(properties, ['type', 'status']));
}

/**
 * ObjectMeta of a top-level object. Known fields are typed so a malformed label map is caught; the
 * object keeps unknown fields because the store owns metadata semantics (name rules, immutability).
 */
export function objectMeta(): JsonSchema {
  return openObj({
    name: str(),
    generateName: str(),
    namespace: str(),
    uid: str(),
    resourceVersion: str(),
    generation: int64(),
    // Not nullable: a client's `creationTimestamp: null` (kubectl create --dry-run output) is dropped.
    creationTimestamp: time(),
    deletionTimestamp: time(),
    deletionGracePeriodSeconds: int64(),
    labels: stringMap(),
    annotations: stringMap(),
    finalizers: arr(str()),
    ownerReferences: arr(
      obj(
        {
          apiVersion: str(),
          kind: str(),
          name: str(),
          uid: str(),
          controller: bool(),
          blockOwnerDeletion: bool(),
        },
        ['apiVersion', 'kind', 'name', 'uid'],
      ),
    ),
    managedFields: arr(opaque()),
  });
}

/** The whole-object schema: apiVersion, kind, metadata plus the kind's own top-level fields. */
export function kubeObject(properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema {
  return obj({ apiVersion: str(), kind: str(), metadata: objectMeta(), ...properties }, required);
}
