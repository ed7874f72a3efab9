/**
 * Pulumi's "unknown" sentinel. During `pulumi preview`, inputs computed from resources not yet created reach
 * `check` and `diff` as this exact string (docs/design/dynamic-host-contract.md §"Unknown values"), so validators
 * and diffs must treat it as "any value" rather than as a bad string.
 */
export const UNKNOWN = '04da6b54-80e4-46f7-96ec-b56ff0331ba9';

/** isUnknown says whether a value is Pulumi's unknown sentinel. */
export function isUnknown(value: unknown): boolean {
  return value === UNKNOWN;
}

/** containsUnknown says whether a value is, or anywhere contains, the unknown sentinel. */
export function containsUnknown(value: unknown): boolean {
  if (isUnknown(value)) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (value !== null && typeof value === 'object') return Object.values(value).some(containsUnknown);
  return false;
}

/**
 * unknownAlong says whether the value at `path`, or any value on the way to it, is unknown. A validation
 * issue at such a path is not a real failure: the value will only be known at `pulumi up`. Issues that
 * span several fields (refinements) must check their own operands with `containsUnknown`.
 */
export function unknownAlong(root: unknown, path: readonly PropertyKey[]): boolean {
  let current: unknown = root;
  if (isUnknown(current)) return true;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return false;
    current = (current as Record<PropertyKey, unknown>)[key];
    if (isUnknown(current)) return true;
  }
  return false;
}
