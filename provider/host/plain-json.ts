/**
 * Everything a handler returns crosses the dynamic-provider host as a protobuf Struct, which knows only JSON:
 * `undefined` anywhere fails the call ("Unexpected struct type") and, inside a partial failure's
 * properties, hangs it (traps 1 and 12 of docs/design/dynamic-host-contract.md). plainJson makes a value JSON-safe.
 */

/** plainJson: undefined object keys dropped (null in arrays), BigInt as a decimal string, Buffers as base64, Dates as ISO text. */
export function plainJson<T>(value: T): T {
  if (value === undefined) return value;
  const text = JSON.stringify(value, function replacer(this: Record<string, unknown>, key: string, v: unknown) {
    const raw = this[key];
    if (typeof raw === 'bigint') return raw.toString();
    if (Buffer.isBuffer(raw) || raw instanceof Uint8Array) return Buffer.from(raw).toString('base64');
    if (typeof v === 'number' && !Number.isFinite(v)) return null;
    return v;
  });
  return JSON.parse(text) as T;
}

/** withoutNulls drops null-valued keys of objects, recursively: in a program `null` for an optional input means absent (trap 11). */
export function withoutNulls<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => withoutNulls(v)) as T;
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined).map(([k, v]) => [k, withoutNulls(v)])) as T;
  }
  return value;
}
