/** Helpers shared by the load-balancer handler suites on the emulator. */
import assert from 'node:assert/strict';
import { HarvesterClient } from '../../provider/client/harvester-client';
import type { LoadBalancerProvider } from '../../provider/resources/load-balancer/handlers';

type Raw = Record<string, unknown>;

/** Connects with fast retries, so a test's deliberate failures do not wait out the default backoff. */
export const connectFast = (o: { kubeconfig?: string; context?: string }) => HarvesterClient.connect({ ...o, retry: { maxAttempts: 3, initialDelayMs: 10, maxDelayMs: 50 } });

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
