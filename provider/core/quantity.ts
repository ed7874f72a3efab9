/**
 * Kubernetes resource quantities ("4Gi", "4096Mi", "1.5G", "500m"). Memory and disk sizes are compared
 * by value, never by spelling, so `4Gi` and `4096Mi` are the same and never show as drift
 * (harvester/harvester#2222 was a provider comparing `2730Mi` with `4Gi`).
 */

const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

/** QUANTITY_PATTERN matches the quantity forms accepted in inputs (no exponent form). */
export const QUANTITY_PATTERN = /^(\d+(\.\d+)?)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?$/;

/** parseQuantity returns the value of a quantity in base units (bytes for memory), or undefined if malformed. */
export function parseQuantity(text: string | number): number | undefined {
  if (typeof text === 'number') return Number.isFinite(text) ? text : undefined;
  const match = QUANTITY_PATTERN.exec(text.trim());
  if (!match) return undefined;
  const suffix = match[3] ?? '';
  const factor = BINARY[suffix] ?? DECIMAL[suffix];
  return Number(match[1]) * factor;
}

/** sameQuantity says whether two quantities have the same value (both must parse). */
export function sameQuantity(a: string | number | undefined, b: string | number | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  const x = parseQuantity(a);
  const y = parseQuantity(b);
  return x !== undefined && y !== undefined && Math.abs(x - y) < 0.5;
}

/** formatBytes renders a byte count in the largest binary unit that divides it exactly (e.g. `4Gi`). */
export function formatBytes(bytes: number): string {
  for (const unit of ['Ei', 'Pi', 'Ti', 'Gi', 'Mi', 'Ki']) {
    const f = BINARY[unit];
    if (bytes >= f && bytes % f === 0) return `${bytes / f}${unit}`;
  }
  return String(Math.round(bytes));
}
