/**
 * Errors the provider runtime raises itself (the client layer has its own family for API failures).
 * Every error carries a CamelCase `code`, the object it is about ("Kind namespace/name") and the fix, and
 * its message reads: what failed on which object → why (observed value) → the fix.
 */

/** ProviderError is the base of the runtime's typed errors. */
export class ProviderError extends Error {
  /** CamelCase reason, e.g. `ImageIsIso`, `WaitTimeout`. */
  readonly code: string;
  /** The object concerned, as `Kind namespace/name`, when there is one. */
  readonly object?: string;
  /** The one action that fixes it. */
  readonly fix?: string;
  override readonly cause?: unknown;

  constructor(code: string, message: string, options: { object?: string; fix?: string; cause?: unknown } = {}) {
    // Multi-line messages (one line per VM, per input) get the fix on its own line.
    const text = message.trimEnd();
    super(options.fix ? `${text}${text.includes('\n') ? '\n' : ' '}${options.fix}` : text);
    this.name = code;
    this.code = code;
    this.object = options.object;
    this.fix = options.fix;
    this.cause = options.cause;
  }
}

/**
 * ResourceInitError reports a create (or update) that failed part-way. The Pulumi dynamic host turns an
 * error carrying `id` into ErrorResourceInitFailed and records `properties` as the resource's state, so the
 * next run starts from what exists instead of creating duplicates.
 */
export class ResourceInitError extends Error {
  readonly id: string;
  readonly properties: Record<string, unknown>;
  readonly reasons: string[];
  override readonly cause?: unknown;

  constructor(id: string, properties: Record<string, unknown>, reasons: string[], cause?: unknown) {
    super(reasons.join('\n'));
    this.name = 'ResourceInitError';
    this.id = id;
    this.properties = properties;
    this.reasons = reasons;
    this.cause = cause;
  }
}

/** errorMessage returns the message of anything thrown. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
