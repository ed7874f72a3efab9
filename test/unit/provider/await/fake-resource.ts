/**
 * A ResourceClient stand-in for the pure tests of provider/await: every list and watch call is recorded, and
 * the test decides when (and how) each list answers and what each watch delivers. Messages use the real
 * describeObject of the LoadBalancer kind, so the wording asserted is the wording users see.
 */
import { ManualClock } from '../../../../emulator/clock';
import { HarvesterError } from '../../../../provider/client/errors';
import { describeObject } from '../../../../provider/client/from-api-exception';
import { KINDS } from '../../../../provider/client/kinds';
import { KubeObject } from '../../../../provider/client/objects';
import { ResourceClient } from '../../../../provider/client/resource-client';
import { ListOptions, ListResult, WatchEventType, WatchOptions } from '../../../../provider/client/resource-types';

/** One list call; answer it with `resolve` or `reject`. */
export interface ListCall {
  options: ListOptions;
  resolve(result: ListResult<KubeObject>): void;
  reject(err: unknown): void;
}

/** One watch call; drive it with `emit` and `close` (both still reach the callbacks after stop, like a late stream). */
export interface WatchCall {
  options: WatchOptions;
  stopped: boolean;
  emit(type: WatchEventType, object: KubeObject): void;
  close(err?: HarvesterError): void;
}

export class FakeResource {
  readonly lists: ListCall[] = [];
  readonly watches: WatchCall[] = [];
  readonly kind = KINDS.LoadBalancer;

  readonly client = {
    kind: this.kind,
    namespaceFor: (namespace?: string) => namespace || 'default',
    describe: (name?: string, namespace?: string) => describeObject(this.kind, namespace || 'default', name),
    list: (options: ListOptions) =>
      new Promise<ListResult<KubeObject>>((resolve, reject) => {
        this.lists.push({ options, resolve, reject });
      }),
    watch: (options: WatchOptions, onEvent: (type: WatchEventType, object: KubeObject) => void, onClose: (err?: HarvesterError) => void) => {
      const call: WatchCall = { options, stopped: false, emit: onEvent, close: onClose };
      this.watches.push(call);
      return { stop: () => (call.stopped = true) };
    },
  } as unknown as ResourceClient<KubeObject>;

  /** The latest list call (fails when there is none). */
  lastList(): ListCall {
    const call = this.lists[this.lists.length - 1];
    if (!call) throw new Error('no list call yet');
    return call;
  }

  /** The latest watch call (fails when there is none). */
  lastWatch(): WatchCall {
    const call = this.watches[this.watches.length - 1];
    if (!call) throw new Error('no watch call yet');
    return call;
  }
}

/** A LoadBalancer-shaped object in namespace default. */
export function obj(name: string, metadata: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'loadbalancer.harvesterhci.io/v1beta1', kind: 'LoadBalancer', metadata: { name, namespace: 'default', resourceVersion: '1', ...metadata }, ...extra };
}

/** Let pending promise callbacks run (one turn of the event loop; no time passes on any clock). */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The outcome of `p` if it has settled by the next turn of the event loop, else 'pending'. */
export async function outcome<T>(p: Promise<T>): Promise<{ value: T } | { error: unknown } | 'pending'> {
  let result: { value: T } | { error: unknown } | 'pending' = 'pending';
  p.then(
    (value) => (result = { value }),
    (error) => (result = { error }),
  );
  await flush();
  return result;
}

/** A ManualClock that also records every delay armed on it, in order. */
export class RecordingClock extends ManualClock {
  readonly armed: number[] = [];
  override setTimeout(fn: () => void, ms: number) {
    this.armed.push(ms);
    return super.setTimeout(fn, ms);
  }
}
