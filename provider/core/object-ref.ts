/**
 * References to Kubernetes objects, one type and one rule for every resource (docs/design/object-references.md):
 * a reference is `namespace/name` or a bare `name`, and a bare name means the namespace of the resource that
 * writes it (a machine pool's `disks[].image`, a load balancer's `network`, …); for a cluster-scoped resource,
 * and for an id given to import alone, that namespace is "default". References are compared and stored
 * qualified, so `vm-net` and `default/vm-net` are the same object and never show as drift; read-back keeps the
 * user's own spelling (spellLike).
 */
import { z } from 'zod';

/** An object's place: a name, and its namespace when the kind is namespaced. */
export interface ObjectRef {
  namespace?: string;
  name: string;
}

/** The namespace a bare name means when nothing else says (an import's id, a cluster-scoped referrer). */
export const DEFAULT_NAMESPACE = 'default';

/** A DNS-1123 label (a namespace) and subdomain (an object name), as the API server checks them. */
const LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const SUBDOMAIN = `${LABEL}(\\.${LABEL})*`;
/** What a reference input accepts: `name` or `namespace/name`. */
export const REFERENCE_PATTERN = new RegExp(`^(${LABEL}/)?${SUBDOMAIN}$`);

/** The zod field of a reference input; `example` shows both spellings in the error. */
export function referenceInput(kind: string, example: string): z.ZodString {
  return z.string().max(317).regex(REFERENCE_PATTERN, { error: `must name a ${kind} as "name" (in this resource's namespace) or "namespace/name", e.g. "${example}"` });
}

/** parseRef: the object a reference names, a bare name taken in `namespace`. */
export function parseRef(ref: string, namespace: string = DEFAULT_NAMESPACE): Required<ObjectRef> {
  const slash = ref.indexOf('/');
  return slash < 0 ? { namespace, name: ref } : { namespace: ref.slice(0, slash), name: ref.slice(slash + 1) };
}

/** qualify returns `namespace/name` for a reference, using `namespace` when it has none. */
export function qualify(ref: string, namespace: string = DEFAULT_NAMESPACE): string {
  return formatRef(parseRef(ref, namespace));
}

/** The text of a reference: `namespace/name`, or `name` for a cluster-scoped object. */
export function formatRef(ref: ObjectRef): string {
  return ref.namespace ? `${ref.namespace}/${ref.name}` : ref.name;
}

/** sameRef says whether two references name the same object. */
export function sameRef(a: string, b: string, namespace: string = DEFAULT_NAMESPACE): boolean {
  return qualify(a, namespace) === qualify(b, namespace);
}

/**
 * spellLike writes a qualified reference the way the user wrote `previous` when both name the same object (so
 * inputs read back keep the user's spelling), else bare when it is in `namespace` and the user writes bare names,
 * else qualified.
 */
export function spellLike(qualified: string, previous: string | undefined, namespace: string = DEFAULT_NAMESPACE): string {
  if (previous !== undefined && sameRef(previous, qualified, namespace)) return previous;
  const ref = parseRef(qualified, namespace);
  return ref.namespace === namespace && previous !== undefined && !previous.includes('/') ? ref.name : formatRef(ref);
}
