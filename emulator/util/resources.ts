/**
 * Resource amounts as the scheduler and the quota admission count them: whole millicores for `cpu` and whole
 * base units (bytes, counts) for everything else, rounded up as apimachinery's Quantity.MilliValue()/Value()
 * round. Quantities are parsed exactly (no floating point), so "0.1" is 100m and "1.5Gi" is 1610612736.
 * Formatting follows Quantity.String()'s canonical forms: DecimalSI ("400m", "4", "35M", "6212160640") and
 * BinarySI ("5461Mi", "4Gi"; a value that is not a whole multiple of 1024, or below 1024, prints in decimal).
 * Design notes: docs/design/capacity.md.
 */

/** Is the resource counted in millicores (`cpu`, `requests.cpu`, `limits.cpu`)? */
export function isCpu(resource: string): boolean {
  return resource === 'cpu' || resource.endsWith('.cpu');
}

/** Amounts per resource name (`cpu` in millicores). */
export type Amounts = Record<string, number>;

/** A quantity's format, from its suffix: BinarySI for Ki…Ei, DecimalSI otherwise. */
export type QuantityFormat = 'DecimalSI' | 'BinarySI';

const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const PATTERN = /^\s*([+-]?)(\d*)(?:\.(\d*))?(?:([eE])([+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]))?\s*$/;

/** The exact value of a quantity as a fraction num/den (den a power of ten), or undefined when malformed. */
function exact(text: string): { num: bigint; den: bigint; format: QuantityFormat } | undefined {
  const m = PATTERN.exec(text);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return undefined;
  const [, sign, whole, frac = '', e, exp, suffix = ''] = m;
  let num = BigInt(`${whole || '0'}${frac}`);
  let den = 10n ** BigInt(frac.length);
  let format: QuantityFormat = 'DecimalSI';
  let power10 = e ? Number(exp) : (DECIMAL[suffix] ?? 0);
  if (suffix in BINARY) {
    num *= 2n ** BigInt(BINARY[suffix]);
    format = 'BinarySI';
    power10 = 0;
  }
  if (power10 >= 0) num *= 10n ** BigInt(power10);
  else den *= 10n ** BigInt(-power10);
  if (sign === '-') num = -num;
  return { num, den, format };
}

function ceilDiv(num: bigint, den: bigint): bigint {
  const q = num / den;
  return num % den !== 0n && num > 0n ? q + 1n : q;
}

/** The amount of `resource` a quantity stands for (cpu: millicores), rounded up; undefined when malformed. */
export function amountOf(resource: string, quantity: unknown): number | undefined {
  if (typeof quantity === 'number') return Number.isFinite(quantity) ? Math.ceil(isCpu(resource) ? quantity * 1000 : quantity) : undefined;
  if (typeof quantity !== 'string') return undefined;
  const q = exact(quantity);
  if (!q) return undefined;
  return Number(ceilDiv(q.num * (isCpu(resource) ? 1000n : 1n), q.den));
}

/** The format a quantity string carries (what apimachinery keeps when it does arithmetic on it). */
export function formatOf(quantity: unknown): QuantityFormat {
  return typeof quantity === 'string' && /(Ki|Mi|Gi|Ti|Pi|Ei)\s*$/.test(quantity) ? 'BinarySI' : 'DecimalSI';
}

function decimal(value: bigint, scale: number): string {
  // value × 10^scale, printed with the largest power-of-1000 suffix that keeps the mantissa whole.
  const suffixes: [number, string][] = [[18, 'E'], [15, 'P'], [12, 'T'], [9, 'G'], [6, 'M'], [3, 'k'], [0, ''], [-3, 'm'], [-6, 'u'], [-9, 'n']];
  if (value === 0n) return '0';
  for (const [p, suffix] of suffixes) {
    const shift = p - scale;
    if (shift >= 0) {
      const unit = 10n ** BigInt(shift);
      if (value % unit === 0n) return `${value / unit}${suffix}`;
    } else {
      return `${value * 10n ** BigInt(-shift)}${suffix}`;
    }
  }
  return `${value}`;
}

/** Quantity.String() of an amount of `resource` (cpu in millicores) in the given format. */
export function formatAmount(resource: string, amount: number, format: QuantityFormat = isCpu(resource) ? 'DecimalSI' : 'BinarySI'): string {
  const value = BigInt(Math.round(amount));
  if (isCpu(resource)) return decimal(value, -3);
  if (format === 'BinarySI' && (value >= 1024n || value <= -1024n)) {
    for (const [suffix, bits] of Object.entries(BINARY).sort((a, b) => b[1] - a[1])) {
      const unit = 2n ** BigInt(bits);
      if (value % unit === 0n) return `${value / unit}${suffix}`;
    }
    return `${value}`;
  }
  return decimal(value, 0);
}

/** Sum of amount maps. */
export function addAmounts(...lists: Amounts[]): Amounts {
  const out: Amounts = {};
  for (const list of lists) for (const [k, v] of Object.entries(list)) out[k] = (out[k] ?? 0) + v;
  return out;
}

/** A ResourceList (name → quantity) as amounts; malformed entries are left out. */
export function amountsOf(list: Record<string, unknown> | undefined): Amounts {
  const out: Amounts = {};
  for (const [k, v] of Object.entries(list ?? {})) {
    const a = amountOf(k, v);
    if (a !== undefined) out[k] = a;
  }
  return out;
}

/** Amounts as a ResourceList in canonical form. */
export function resourceListOf(amounts: Amounts, format: QuantityFormat = 'BinarySI'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(amounts)) out[k] = formatAmount(k, v, isCpu(k) ? 'DecimalSI' : format);
  return out;
}
