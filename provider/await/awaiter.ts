/**
 * Waiting for a condition on one object or a label-selected set.
 *
 *  1. A ListWatchSource keeps the current objects (list, watch, resume, re-list on 410 or a dropped stream).
 *  2. After the first list and every change, `check(objects)` runs. Its description is the progress line;
 *     `onProgress` hears each new one (not repeats).
 *  3. The wait ends when check says done (resolves with the objects), when check reports an `error`
 *     (rejects with it: a failure no amount of waiting fixes), when the source hits a fatal API error
 *     (401/403/TLS), at the deadline (WaitTimeoutError), or on abort (WaitCancelledError).
 * The deadline and the source's backoffs run on the injected clock.
 */
import { HarvesterError } from '../client/errors';
import { describeObject } from '../client/from-api-exception';
import { KubeObject } from '../client/objects';
import { ResourceClient } from '../client/resource-client';
import { Clock, systemClock } from './clock';
import { WaitCancelledError, WaitTimeoutError } from './errors';
import { ListWatchSource } from './source';

/** The verdict of a check on the current objects. */
export interface CheckResult {
  done: boolean;
  /** The progress line, e.g. "2/3 VMs running". */
  description: string;
  /** The checks not met yet, each a short phrase (they go into the timeout message). */
  pending?: string[];
  /** A permanent failure (e.g. an image import failed): stop waiting and reject with it. */
  error?: Error;
}

/** Options of waitFor. Give `name` or `labelSelector` (neither: every object of the kind in `namespace`). */
export interface WaitForOptions<T extends KubeObject> {
  resource: ResourceClient<T>;
  namespace?: string;
  name?: string;
  labelSelector?: string;
  /** Judges the current objects (one or none with `name`). */
  check: (objects: T[]) => CheckResult;
  timeoutMs: number;
  /** What is awaited, for messages: "machine pool default/pool-a to be ready". */
  what: string;
  /** The option that sets this timeout, quoted in the timeout message: e.g. `timeouts.create`. */
  timeoutOption?: string;
  onProgress?: (line: string) => void;
  clock?: Clock;
  signal?: AbortSignal;
  /** Passed to the source (tests shorten them). */
  idleTimeoutMs?: number;
  backoffInitialMs?: number;
  backoffMaxMs?: number;
}

/**
 * A set of objects for messages. Without a namespace, a set of a namespaced kind spans every namespace: not the
 * context's default namespace that describe() names for one object.
 */
function describeSet(resource: ResourceClient<KubeObject>, namespace: string | undefined): string {
  const namespaced = resource.namespaceFor(undefined) !== undefined;
  return namespace || !namespaced ? resource.describe(undefined, namespace) : describeObject(resource.kind, undefined);
}

/** Wait until `check` says done; see the file header. Resolves with the objects that satisfied it. */
export function waitFor<T extends KubeObject>(options: WaitForOptions<T>): Promise<T[]> {
  const clock = options.clock ?? systemClock;
  // One object by name lives in one namespace: default it as get() does. A set without one spans all.
  const namespace = options.name ? options.resource.namespaceFor(options.namespace) : options.namespace;
  const object = options.name
    ? options.resource.describe(options.name, namespace)
    : `${describeSet(options.resource, namespace)}${options.labelSelector ? ` with labels ${options.labelSelector}` : ''}`;

  return new Promise<T[]>((resolve, reject) => {
    let lastSeen: T[] = [];
    let lastProgress: string | undefined;
    let pending: string[] | undefined;
    let finished = false;
    let deadline: unknown;

    const finish = (outcome: () => void) => {
      if (finished) return;
      finished = true;
      if (deadline !== undefined) clock.clearTimeout(deadline);
      source.stop();
      options.signal?.removeEventListener('abort', onAbort);
      outcome();
    };
    const onAbort = () => finish(() => reject(new WaitCancelledError(options.what, object)));

    const evaluate = (objects: T[]) => {
      if (finished) return;
      lastSeen = objects;
      let result: CheckResult;
      try {
        result = options.check(objects);
      } catch (err) {
        finish(() => reject(err));
        return;
      }
      pending = result.pending;
      if (result.description !== lastProgress) {
        lastProgress = result.description;
        options.onProgress?.(result.description);
      }
      if (result.error) finish(() => reject(result.error));
      else if (result.done) finish(() => resolve(objects));
    };

    const source = new ListWatchSource<T>({
      resource: options.resource,
      namespace,
      name: options.name,
      labelSelector: options.labelSelector,
      clock,
      idleTimeoutMs: options.idleTimeoutMs,
      backoffInitialMs: options.backoffInitialMs,
      backoffMaxMs: options.backoffMaxMs,
      onChange: evaluate,
      onError: (err: HarvesterError) => finish(() => reject(err)),
    });

    if (options.signal?.aborted) return onAbort();
    options.signal?.addEventListener('abort', onAbort);
    deadline = clock.setTimeout(() => {
      deadline = undefined;
      finish(() =>
        reject(
          new WaitTimeoutError({
            what: options.what,
            object,
            timeoutMs: options.timeoutMs,
            lastProgress,
            pending,
            lastSeen,
            timeoutOption: options.timeoutOption,
          }),
        ),
      );
    }, options.timeoutMs);
    source.start();
  });
}

/** Wait until the named object is gone (404). Resolves at once if it is already absent. */
export async function waitForDeletion<T extends KubeObject>(
  options: Omit<WaitForOptions<T>, 'check' | 'labelSelector'> & { name: string },
): Promise<void> {
  const what = options.resource.describe(options.name, options.resource.namespaceFor(options.namespace));
  await waitFor<T>({
    ...options,
    check: (objects) => {
      const o = objects[0];
      if (!o) return { done: true, description: `${what} is gone` };
      const fin = o.metadata.finalizers ?? [];
      return {
        done: false,
        description: o.metadata.deletionTimestamp
          ? `${what} is being deleted${fin.length ? ` (waiting for finalizers: ${fin.join(', ')})` : ''}`
          : `${what} still exists (not marked for deletion)`,
        pending: fin.length ? fin.map((f) => `finalizer ${f}`) : ['deletion'],
      };
    },
  });
}
