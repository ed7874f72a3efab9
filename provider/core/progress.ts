/**
 * Progress of a resource's long work (VMs booting, an address being allocated), as the handlers report it: each
 * line with the object it is about, so one sink can serve every resource and every call in flight at once
 * (provider/host/progress.ts prints them from the dynamic-provider host).
 */

/** Receives a progress line and the object it is about ("default/workers", or "pool-a" when cluster-scoped). */
export type ProgressSink = (line: string, object: string) => void;

/** The object a resource's progress is about: `namespace/name`, or `name` for a cluster-scoped object. */
export function progressObject(props: { namespace?: unknown; name?: unknown }): string {
  const name = typeof props.name === 'string' && props.name ? props.name : '-';
  return typeof props.namespace === 'string' && props.namespace ? `${props.namespace}/${name}` : name;
}

/** The `onProgress` of one call's waits: lines about `props`' object go to `sink` (nothing when none is set). */
export function progressFor(sink: ProgressSink | undefined, props: { namespace?: unknown; name?: unknown }): ((line: string) => void) | undefined {
  if (!sink) return undefined;
  const object = progressObject(props);
  return (line) => sink(line, object);
}
