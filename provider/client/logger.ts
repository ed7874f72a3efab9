/**
 * The logging seam. Callers pass whatever they log with (pulumi.log, console, a test recorder); the client
 * wraps it so that every line is redacted before it leaves.
 */
import { redact } from './redact';

/** Where the client writes its few log lines. Every method is optional; missing ones drop the line. */
export interface Logger {
  debug?(message: string): void;
  info?(message: string): void;
  warn?(message: string): void;
  error?(message: string): void;
}

/** A logger with every method present, whose lines have gone through `redact`. */
export interface SafeLogger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** Wrap `logger` so that each line is redacted; a missing logger or method drops the line. */
export function safeLogger(logger?: Logger): SafeLogger {
  const emit = (level: keyof Logger) => (message: string) => {
    const fn = logger?.[level];
    if (typeof fn === 'function') fn.call(logger, redact(message));
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}
