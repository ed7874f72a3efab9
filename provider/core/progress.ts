/**
 * Progress of a resource's long work (VMs booting, an address being allocated), as the handlers report it: each
 * line with the object it is about, so one sink can serve every resource and every call in flight at once
 * (provider/host/progress.ts prints them from the dynamic-provider host).
 */

import { AsyncLocalStorage } from 'node:async_hooks';

/** Receives a progress line and the object it is about ("default/workers", or "pool-a" when cluster-scoped). */
export type ProgressSink = (line: string, object: string) => void;

/** The object a resource's progress is about: `namespace/name`, or `name` for a cluster-scoped object. */
export function progressObject(props: { namespace?: unknown; name?: unknown; clusterName?: unknown }): string {
  // Resources named by their guest cluster (GuestClusterCredentials, GuestClusterIdentity, …) have no `name` input.
  const given = typeof props.name === 'string' && props.name ? props.name : props.clusterName;
  const name = typeof given === 'string' && given ? given : '-';
  return typeof props.namespace === 'string' && props.namespace ? `${props.namespace}/${name}` : name;
}

/**
 * The object of the handler call in progress, as the host wrapper stamps it from the call's own id or inputs
 * (host/host-safe.ts): every progress line of the call lands on its resource, whatever object a wait names.
 */
const callObject = new AsyncLocalStorage<string>();

/** Runs `work` with every progress line it reports stamped with `object`. */
export function withCallObject<T>(object: string, work: () => Promise<T>): Promise<T> {
  return callObject.run(object, work);
}

/**
 * The `onProgress` of one call's waits: lines go to `sink` (nothing when none is set) about the call's object,
 * else (a handler called directly, as tests do) about `props`' object.
 */
export function progressFor(sink: ProgressSink | undefined, props: { namespace?: unknown; name?: unknown }): ((line: string) => void) | undefined {
  if (!sink) return undefined;
  const object = callObject.getStore() ?? progressObject(props);
  return (line) => sink(line, object);
}
