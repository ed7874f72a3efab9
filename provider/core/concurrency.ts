/**
 * Bounded parallelism: the API server (and Harvester's controllers) should not see a burst of hundreds of
 * writes at once, yet a pool of VMs must not be created one by one.
 */

/**
 * mapLimit runs `fn` over `items` with at most `limit` calls in flight. It waits for every call to
 * settle, then rejects with the first error (so no write is left running unobserved) or resolves with
 * the results in order.
 */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  const errors: unknown[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      try {
        results[i] = await fn(items[i], i);
      } catch (err) {
        errors.push(err);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (errors.length) throw errors[0];
  return results;
}
