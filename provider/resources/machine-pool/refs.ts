/**
 * References to objects as users write them: `name` (in the pool namespace) or `namespace/name`. Compared
 * and stored fully qualified, so `vm-net` and `default/vm-net` are the same thing and never show as drift.
 */

/** qualify returns `namespace/name` for a reference, using `namespace` when the reference has none. */
export function qualify(ref: string, namespace: string): string {
  return ref.includes('/') ? ref : `${namespace}/${ref}`;
}

/** splitRef returns [namespace, name] of a reference. */
export function splitRef(ref: string, namespace: string): [string, string] {
  const q = qualify(ref, namespace);
  const slash = q.indexOf('/');
  return [q.slice(0, slash), q.slice(slash + 1)];
}

/** sameRef says whether two references name the same object. */
export function sameRef(a: string, b: string, namespace: string): boolean {
  return qualify(a, namespace) === qualify(b, namespace);
}

/**
 * spellLike writes a qualified reference the way the user wrote `previous` when they name the same object
 * (so reconstructed inputs keep the user's spelling), else qualified.
 */
export function spellLike(qualified: string, previous: string | undefined, namespace: string): string {
  if (previous !== undefined && sameRef(previous, qualified, namespace)) return previous;
  const [ns, name] = splitRef(qualified, namespace);
  return ns === namespace && previous !== undefined && !previous.includes('/') ? name : qualified;
}
