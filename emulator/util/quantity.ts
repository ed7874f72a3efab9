/**
 * Kubernetes resource quantities ("2", "125m", "4Gi", "20G", "1.5") as plain numbers, enough for the
 * simulated Harvester's comparisons (PVC sizes). Exact integer amounts for requests and quotas: resources.ts.
 */

const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

/** The value of a quantity in base units (bytes, cores); undefined when it does not parse. */
export function parseQuantity(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const match = /^\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:[eE]([+-]?\d+))?([a-zA-Z]*)\s*$/.exec(value);
  if (!match) return undefined;
  const [, num, exp, suffix] = match;
  let n = Number(num);
  if (exp !== undefined) {
    if (suffix) return undefined;
    n *= 10 ** Number(exp);
  }
  if (suffix in BINARY) return n * BINARY[suffix];
  if (suffix in DECIMAL) return n * DECIMAL[suffix];
  return undefined;
}
