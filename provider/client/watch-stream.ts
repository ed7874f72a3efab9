/**
 * One watch stream through client-node's Watch: GET <collection>?watch=true from a resourceVersion. The
 * stream ends exactly once: cleanly (server timeout) or with an error — an ERROR event (e.g. 410 Expired)
 * closes it with that Status mapped to a HarvesterError. Resuming and re-listing are provider/await's job.
 */
import { KubeConfig, Watch } from '@kubernetes/client-node';
import { HarvesterError } from './errors';
import type { WatchEventType, WatchHandle, WatchOptions } from './resource-types';

/** Callbacks of one stream. */
export interface WatchCallbacks {
  onEvent: (type: WatchEventType, object: never) => void;
  /** Once: undefined on a clean end, else the mapped error. Not called after stop(). */
  onClose: (err?: HarvesterError) => void;
  mapError: (err: unknown) => HarvesterError;
}

/** Open a watch on `path` (a collection path); see the file header. */
export function openWatch(kubeConfig: KubeConfig, path: string, options: WatchOptions, cb: WatchCallbacks): WatchHandle {
  let controller: AbortController | undefined;
  let closed = false;
  const close = (err?: HarvesterError) => {
    if (closed) return;
    closed = true;
    controller?.abort();
    cb.onClose(err);
  };
  const params: Record<string, string | number | boolean | undefined> = {
    labelSelector: options.labelSelector,
    fieldSelector: options.fieldSelector,
    resourceVersion: options.resourceVersion,
    allowWatchBookmarks: options.allowBookmarks,
    // The server ends the stream cleanly after this; the caller then resumes from its last resourceVersion.
    timeoutSeconds: options.timeoutSeconds ?? 300,
  };
  new Watch(kubeConfig)
    .watch(
      path,
      params,
      (type: string, object: unknown) => {
        if (closed) return;
        if (type === 'ERROR') {
          const status = object as { code?: number };
          close(cb.mapError({ code: status?.code ?? 500, body: object }));
          return;
        }
        cb.onEvent(type as WatchEventType, object as never);
      },
      (err: unknown) => close(err ? cb.mapError(err) : undefined),
    )
    .then((c) => {
      controller = c;
      if (closed) c.abort();
    })
    .catch((err: unknown) => close(cb.mapError(err)));
  return {
    stop: () => {
      closed = true;
      controller?.abort();
    },
  };
}
