/**
 * Errors of waits. A timeout says what was awaited, what was last seen, what is still pending and how to
 * raise the timeout; it also carries the last objects seen (redacted), so a caller can record a partial
 * create (pulumi-kubernetes PartialError).
 */
import { HarvesterError, TimeoutError } from '../client/errors';
import { KubeObject } from '../client/objects';
import { redactObject } from '../client/redact';
import { formatDuration } from './duration';

/** What a WaitTimeoutError is made from. */
export interface WaitTimeoutInit {
  /** What was awaited, e.g. "machine pool default/pool-a to be ready". */
  what: string;
  /** "Kind namespace/name", or the set (kind, namespace, selector) that was watched. */
  object: string;
  timeoutMs: number;
  /** The last progress line (the check's description), if any was produced. */
  lastProgress?: string;
  pending?: string[];
  lastSeen: KubeObject[];
  /** The option that sets this timeout, e.g. `timeouts.create`. */
  timeoutOption?: string;
}

/** A wait ran out of time. */
export class WaitTimeoutError extends TimeoutError {
  /** What was awaited. */
  readonly what: string;
  /** The objects as last seen (secret fields redacted). */
  readonly lastSeen: KubeObject[];
  /** Checks still not met when time ran out. */
  readonly pending: string[];
  readonly timeoutMs: number;

  constructor(init: WaitTimeoutInit) {
    const seen = init.lastProgress ?? (init.lastSeen.length === 0 ? `no matching ${init.object} existed` : 'no progress was reported');
    // A pending reason may be a sentence of its own: end the list with one full stop, not two.
    const pending = init.pending && init.pending.length > 0 ? ` Still pending: ${init.pending.join('; ').replace(/\.$/, '')}.` : '';
    const option = init.timeoutOption ? `\`${init.timeoutOption}\`` : 'the timeout';
    super({
      code: 'WaitTimeout',
      object: init.object,
      summary: `Timed out after ${formatDuration(init.timeoutMs)} waiting for ${init.what}. Last seen: ${seen}.${pending}`,
      fix:
        `If it is still progressing, raise ${option} (now ${formatDuration(init.timeoutMs)}); ` +
        'otherwise inspect the objects on the cluster (kubectl describe) for the reason it is stuck',
    });
    this.what = init.what;
    this.lastSeen = init.lastSeen.map((o) => redactObject(o));
    this.pending = init.pending ?? [];
    this.timeoutMs = init.timeoutMs;
  }
}

/** A wait was cancelled through its AbortSignal. */
export class WaitCancelledError extends HarvesterError {
  constructor(what: string, object: string) {
    super({ code: 'Cancelled', object, summary: `Stopped waiting for ${what}: the operation was cancelled`, fix: 'Run the operation again' });
  }
}
