/**
 * References to objects the same program creates.
 *
 * During `pulumi preview` a resource the program creates does not exist yet, but its known inputs (a pool's
 * `name`) already flow into the resources that reference it. A check that looked the name up on the cluster
 * would refuse at preview what `up` accepts (by then the referenced object exists: the engine checks a
 * resource only once the outputs it takes are resolved). The SDK, which sees the program, names the inputs
 * whose value comes from one of our resources of the referenced kind (sdk/runtime.ts) under this hidden key;
 * check skips the "does not exist" refusal for exactly those, and returns its inputs without the key, so it
 * never reaches the state or the diff.
 *
 * The names are input paths as check failures spell them: `ipPool`, `disks[0].image`, `sshKeys[1]`. When the
 * SDK can only see an Output around a whole list or element (`sshKeys: pulumi.all([...])`), it names that
 * (`sshKeys`), and every reference inside counts as declared: nothing finer is known before the values resolve.
 *
 * An optional top-level reference left unset is named too when the program declares a resource of its class: a load
 * balancer without `ipPool` takes the pool Harvester chooses, which may be one this program creates, so check does
 * not refuse it for want of a pool on the cluster (resources/load-balancer/pool-choice.ts).
 */

/** The hidden input listing the inputs whose value comes from a resource of this program. */
export const PROGRAM_REFS_KEY = '__inProgram';

/** The inputs `news` says come from resources of the same program (empty when none, or malformed). */
export function declaredInProgram(news: Record<string, unknown> | undefined): ReadonlySet<string> {
  const value = news?.[PROGRAM_REFS_KEY];
  return new Set(Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
}

/** True when the reference at `path` (e.g. `disks[0].image`), or a list or element holding it, is declared. */
export function isDeclared(declared: ReadonlySet<string>, path: string): boolean {
  for (let p = path; ; ) {
    if (declared.has(p)) return true;
    const parent = p.replace(/(\[\d+\]|\.[^.[\]]+)$/, '');
    if (parent === p) return false;
    p = parent;
  }
}
