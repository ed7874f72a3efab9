/** A provider `connect` for tests: the client layer with short retries, so deliberate failures don't wait out the default backoff. */
import { HarvesterClient } from '../../provider/client/harvester-client';

export function fastConnect(maxAttempts = 3) {
  return (o: { kubeconfig?: string; context?: string }) => HarvesterClient.connect({ ...o, retry: { maxAttempts, initialDelayMs: 10, maxDelayMs: 50 } });
}
