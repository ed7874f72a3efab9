/**
 * Resource amounts as kube-scheduler and the quota admission count them: whole millicores for cpu
 * (`cpu`, `requests.cpu`, `limits.cpu`) and whole bytes or counts for the rest, rounded up as apimachinery's
 * Quantity.MilliValue()/Value() round. Quantities are parsed exactly (BigInt), never through floating point,
 * so "0.1" is 100m and "1.5Gi" is 1610612736 (docs/design/capacity.md §quantities).
 */

/** Is the resource counted in millicores? */
export function isCpu(resource: string): boolean {
  return resource === 'cpu' || resource.endsWith('.cpu');
}

const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const PATTERN = /^\s*([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]))?\s*$/;

/** The amount of `resource` a quantity stands for (cpu: millicores), rounded up; undefined when malformed. */
export function amountOf(resource: string, quantity: unknown): number | undefined {
  if (typeof quantity === 'number') return Number.isFinite(quantity) ? Math.ceil(isCpu(resource) ? quantity * 1000 : quantity) : undefined;
  if (typeof quantity !== 'string') return undefined;
  const m = PATTERN.exec(quantity);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return undefined;
  const [, sign, whole, frac = '', exp, suffix = ''] = m;
  let num = BigInt(`${whole || '0'}${frac}`) * (isCpu(resource) ? 1000n : 1n);
  let den = 10n ** BigInt(frac.length);
  if (suffix in BINARY) num *= 2n ** BigInt(BINARY[suffix]);
  else {
    const p = exp !== undefined ? Number(exp) : DECIMAL[suffix];
    if (p >= 0) num *= 10n ** BigInt(p);
    else den *= 10n ** BigInt(-p);
  }
  let q = num / den;
  if (num % den !== 0n && num > 0n) q += 1n;
  return Number(sign === '-' ? -q : q);
}

/** Amounts per resource name. */
export type Amounts = Record<string, number>;

/** A ResourceList as amounts (malformed entries left out). */
export function amountsOf(list: Record<string, unknown> | undefined): Amounts {
  const out: Amounts = {};
  for (const [k, v] of Object.entries(list ?? {})) {
    const a = amountOf(k, v);
    if (a !== undefined) out[k] = a;
  }
  return out;
}

/** Sum of amount maps. */
export function sum(...lists: Amounts[]): Amounts {
  const out: Amounts = {};
  for (const list of lists) for (const [k, v] of Object.entries(list)) out[k] = (out[k] ?? 0) + v;
  return out;
}

/** a − b, per resource. */
export function minus(a: Amounts, b: Amounts): Amounts {
  const out: Amounts = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) - v;
  return out;
}

const GIB = 2 ** 30;

function trimmed(value: number, digits: number): string {
  return value.toFixed(digits).replace(/\.?0+$/, '');
}

/** Bytes as "5.8 GiB" (one decimal; MiB below 1 GiB). */
export function gib(bytes: number): string {
  if (Math.abs(bytes) < GIB && bytes !== 0) return `${Math.round(bytes / 2 ** 20)} MiB`;
  return `${trimmed(bytes / GIB, 1)} GiB`;
}

/** Millicores as a Kubernetes CPU quantity: "405m", "4", "2.5" is written "2500m". */
export function cpuQuantity(milli: number): string {
  return milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`;
}

/** Millicores as cores for prose: "2.2 cores", "1 core". */
export function cores(milli: number): string {
  const text = trimmed(milli / 1000, 3);
  return `${text} ${text === '1' ? 'core' : 'cores'}`;
}
