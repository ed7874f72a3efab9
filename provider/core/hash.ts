/**
 * Content hashes. Secret inputs (userData, networkData) are kept in outputs and annotations only as a keyed
 * digest, so changes are detected without the secret being stored in plain text, and no digest can be matched
 * against a table of precomputed hashes of common user data (the outputs are Pulumi secrets as well).
 */
import { createHash, createHmac } from 'node:crypto';

/** sha256Hex hashes a string (UTF-8) and returns the hex digest, optionally shortened. */
export function sha256Hex(text: string, length = 64): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, length);
}

/**
 * secretDigest is an HMAC-SHA256 of a secret keyed with `salt` (the owning resource's identity, e.g.
 * "default/workers"), or undefined for undefined (so "unset" stays distinct from "").
 */
export function secretDigest(text: string | undefined, salt: string): string | undefined {
  return text === undefined ? undefined : `hmac-sha256:${createHmac('sha256', `harvester-iac/${salt}`).update(text, 'utf8').digest('hex')}`;
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

/** A value as a drift line shows it: stable JSON, or "unset" when the field is absent. */
export function driftValue(value: unknown): string {
  return value === undefined ? 'unset' : stableStringify(value);
}
