/** Helpers shared by the load-balancer handler suites on the emulator. */
import assert from 'node:assert/strict';
import type { LoadBalancerProvider } from '../../provider/resources/load-balancer/handlers';

type Raw = Record<string, unknown>;

/** The inputs check returns for `raw`, asserting it found nothing wrong. */
export async function checkedBy(lbs: LoadBalancerProvider, raw: Raw): Promise<Raw> {
  const r = await lbs.check({}, raw);
  assert.deepEqual(r.failures ?? [], []);
  return r.inputs!;
}

/** Asserts that `p` rejects with a message matching every pattern. */
export function rejectsWith(p: Promise<unknown>, ...patterns: RegExp[]): Promise<void> {
  return assert.rejects(p, (err: Error) => {
    for (const re of patterns) assert.match(err.message, re);
    return true;
  });
}
