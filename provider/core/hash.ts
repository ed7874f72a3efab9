/**
 * Content hashes. Secret inputs (userData, networkData) are kept in outputs and annotations only as a
 * hash, so changes are detected without the secret ever being stored in plain text.
 */
import { createHash } from 'node:crypto';

/** sha256Hex hashes a string (UTF-8) and returns the hex digest, optionally shortened. */
export function sha256Hex(text: string, length = 64): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, length);
}

/** hashOptional hashes a value, or returns undefined for undefined (so "unset" stays distinct from ""). */
export function hashOptional(text: string | undefined): string | undefined {
  return text === undefined ? undefined : `sha256:${sha256Hex(text)}`;
}

/** stableStringify serialises JSON with object keys sorted, so equal values hash equally. */
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
