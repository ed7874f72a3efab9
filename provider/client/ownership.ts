/**
 * Which objects are ours. Every object a harvester-iac resource creates carries:
 *
 *   labels:
 *     app.kubernetes.io/managed-by: harvester-iac
 *     harvester-iac.io/resource-type: <type>     e.g. machine-pool, load-balancer, ip-pool
 *     harvester-iac.io/resource-name: <name>     the resource's name, made label-safe (≤ 63 chars)
 *   annotations:
 *     harvester-iac.io/resource-name: <name>     the exact name, when the label had to be shortened
 *
 * A resource may change or delete an object only if all three labels match its own identity; anything else
 * is a NotOwnedError that names the object and says how to adopt it (add the labels) or avoid it (rename).
 * Labels rather than ownerReferences, because the owner is not a Kubernetes object, and because a
 * label selector (`ownerSelector`) is how observe lists "everything this resource made" in one request.
 */
import { createHash } from 'node:crypto';
import { NotOwnedError } from './errors';
import { KubeObject } from './objects';

/** `app.kubernetes.io/managed-by` value of objects we manage. */
export const MANAGED_BY = 'harvester-iac';
/** Label keys (and the annotation key) that carry an object's owner. */
export const OWNERSHIP_LABELS = {
  managedBy: 'app.kubernetes.io/managed-by',
  resourceType: 'harvester-iac.io/resource-type',
  resourceName: 'harvester-iac.io/resource-name',
} as const;
/** Annotation holding the exact resource name when the label value had to be shortened. */
export const RESOURCE_NAME_ANNOTATION = 'harvester-iac.io/resource-name';

/** Identity of one harvester-iac resource. */
export interface OwnerIdentity {
  /** Kebab-case resource type, e.g. `machine-pool`. */
  resourceType: string;
  /** The resource's name (any string; shortened for the label when needed). */
  resourceName: string;
}

/** The characters of a Kubernetes label value (its length, at most 63, is checked apart). */
export const LABEL_VALUE_PATTERN = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** True when `value` is a valid Kubernetes label value. */
export function isLabelValue(value: string): boolean {
  return value.length <= 63 && LABEL_VALUE_PATTERN.test(value);
}

/** A valid label value for `value`: itself if valid, else a cleaned prefix plus a short hash (stable). */
export function labelSafe(value: string): string {
  if (isLabelValue(value)) return value;
  const hash = createHash('sha256').update(value).digest('hex').slice(0, 10);
  const cleaned = value.replace(/[^-A-Za-z0-9_.]/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 63 - hash.length - 1).replace(/[^A-Za-z0-9]+$/, '');
  return cleaned ? `${cleaned}-${hash}` : hash;
}

/** The labels that mark an object as owned by `owner`. */
export function ownerLabels(owner: OwnerIdentity): Record<string, string> {
  return {
    [OWNERSHIP_LABELS.managedBy]: MANAGED_BY,
    [OWNERSHIP_LABELS.resourceType]: labelSafe(owner.resourceType),
    [OWNERSHIP_LABELS.resourceName]: labelSafe(owner.resourceName),
  };
}

/** A label selector matching every object owned by `owner` (for list and watch). */
export function ownerSelector(owner: OwnerIdentity): string {
  return Object.entries(ownerLabels(owner))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

/** A copy of `obj` with the ownership labels (and, if shortened, the name annotation) of `owner` added. */
export function stampOwnership<T extends KubeObject>(obj: T, owner: OwnerIdentity): T {
  const labels = { ...(obj.metadata.labels ?? {}), ...ownerLabels(owner) };
  const metadata = { ...obj.metadata, labels };
  if (labelSafe(owner.resourceName) !== owner.resourceName) {
    metadata.annotations = { ...(obj.metadata.annotations ?? {}), [RESOURCE_NAME_ANNOTATION]: owner.resourceName };
  }
  return { ...obj, metadata };
}

/** The owner recorded on `obj`, if it is managed by harvester-iac at all. */
export function ownerOf(obj: KubeObject): { resourceType?: string; resourceName?: string } | undefined {
  const labels = obj.metadata?.labels ?? {};
  if (labels[OWNERSHIP_LABELS.managedBy] !== MANAGED_BY) return undefined;
  return {
    resourceType: labels[OWNERSHIP_LABELS.resourceType],
    resourceName: obj.metadata.annotations?.[RESOURCE_NAME_ANNOTATION] ?? labels[OWNERSHIP_LABELS.resourceName],
  };
}

/** True when `obj` carries exactly `owner`'s identity. */
export function isOwnedBy(obj: KubeObject, owner: OwnerIdentity): boolean {
  const labels = obj.metadata?.labels ?? {};
  const expected = ownerLabels(owner);
  if (!Object.entries(expected).every(([k, v]) => labels[k] === v)) return false;
  // A shortened label could in theory collide: the annotation, when present, settles it.
  const exact = obj.metadata.annotations?.[RESOURCE_NAME_ANNOTATION];
  return exact === undefined || exact === owner.resourceName;
}

function objectName(obj: KubeObject, kind?: string): string {
  const k = kind ?? obj.kind ?? 'Object';
  const ns = obj.metadata.namespace;
  return ns ? `${k} ${ns}/${obj.metadata.name}` : `${k} ${obj.metadata.name}`;
}

/** A NotOwnedError for `obj`, explaining who owns it (if anyone) and how to adopt it or avoid it. */
export function notOwnedError(obj: KubeObject, owner: OwnerIdentity, action: string, kind?: string): NotOwnedError {
  const name = objectName(obj, kind);
  const actual = ownerOf(obj);
  const who = actual
    ? `it belongs to another harvester-iac resource (${actual.resourceType ?? '?'} "${actual.resourceName ?? '?'}")`
    : `it is not managed by harvester-iac (label ${OWNERSHIP_LABELS.managedBy} is ${JSON.stringify(obj.metadata.labels?.[OWNERSHIP_LABELS.managedBy] ?? null)})`;
  const labels = Object.entries(ownerLabels(owner))
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  const kindArg = (kind ?? obj.kind ?? 'object').toLowerCase();
  const nsArg = obj.metadata.namespace ? ` -n ${obj.metadata.namespace}` : '';
  const annotate =
    labelSafe(owner.resourceName) !== owner.resourceName
      ? ` and \`kubectl annotate${nsArg} ${kindArg} ${obj.metadata.name} --overwrite ${RESOURCE_NAME_ANNOTATION}=${JSON.stringify(owner.resourceName)}\``
      : '';
  return new NotOwnedError({
    code: 'NotOwned',
    object: name,
    summary: `Refusing to ${action} ${name}: ${who}, so ${owner.resourceType} "${owner.resourceName}" must not change it`,
    fix:
      `Choose another name for the new object; or, to adopt this one, label it: ` +
      `\`kubectl label${nsArg} ${kindArg} ${obj.metadata.name} --overwrite ${labels}\`${annotate}`,
  });
}

/** Throw NotOwnedError unless `obj` is owned by `owner`. */
export function assertOwned(obj: KubeObject, owner: OwnerIdentity, action: string, kind?: string): void {
  if (!isOwnedBy(obj, owner)) throw notOwnedError(obj, owner, action, kind);
}
