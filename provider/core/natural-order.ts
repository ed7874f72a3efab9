/**
 * Natural order of names: "pool-a-2" before "pool-a-10". The same order as
 * `a.localeCompare(b, 'en', { numeric: true })`, but with one collator for every comparison: localeCompare
 * with options builds a collator per call, which dominated sorting the VMs of a large pool.
 */
const collator = new Intl.Collator('en', { numeric: true });

/** naturalCompare orders two names naturally (digit runs by value). */
export function naturalCompare(a: string, b: string): number {
  return collator.compare(a, b);
}
