/**
 * Waiting on the cluster: `waitFor` (a condition on one object or a label-selected set, by list + watch with
 * resume and re-list, a deadline and progress lines) and `waitForDeletion`. Timeouts reject with
 * WaitTimeoutError{what, object, lastSeen, pending, timeoutMs}; the message names the option to raise.
 *
 * @example
 *   const [vm] = await waitFor({
 *     resource: client.virtualMachines, namespace: 'default', name: 'pool-a-0',
 *     check: ([vm]) => ({ done: vm?.status?.ready === true, description: `VM is ${vm?.status?.printableStatus ?? 'absent'}` }),
 *     timeoutMs: 600_000, what: 'VM default/pool-a-0 to be ready', timeoutOption: 'timeouts.create',
 *     onProgress: (line) => pulumi.log.info(line),
 *   });
 */
export { waitFor, waitForDeletion, type CheckResult, type WaitForOptions } from './awaiter';
export { ListWatchSource, isFatalForWatch, type SourceOptions } from './source';
export { WaitTimeoutError, WaitCancelledError, type WaitTimeoutInit } from './errors';
export { systemClock, type Clock } from './clock';
export { formatDuration, parseDuration, DURATION_PATTERN } from './duration';
