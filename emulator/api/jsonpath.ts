/**
 * The JSONPath subset printer columns use (CRD additionalPrinterColumns): `.a.b`, `.a['b.c']`, `.a[0]`,
 * `.a[*]`, `.a[-1]` and filters `[?(@.type=="Ready")]` with `==`/`!=` against a string, number or boolean,
 * and escaped dots in keys (`.metadata.labels.kubernetes\.io/hostname`).
 */

type Step =
  | { type: 'key'; key: string }
  | { type: 'index'; index: number }
  | { type: 'wildcard' }
  | { type: 'filter'; path: string[]; op: '==' | '!='; value: unknown; exists: boolean };

function parseFilter(expr: string): Step {
  const m = /^\?\(@((?:\.[A-Za-z0-9_\-]+)+)\s*(?:(==|!=)\s*(.+?))?\s*\)$/.exec(expr.trim());
  if (!m) throw new Error(`unsupported JSONPath filter [${expr}]`);
  const path = m[1].split('.').filter((s) => s !== '');
  if (m[2] === undefined) return { type: 'filter', path, op: '!=', value: undefined, exists: true };
  const raw = m[3].trim();
  let value: unknown;
  if (/^(["']).*\1$/.test(raw)) value = raw.slice(1, -1);
  else if (raw === 'true' || raw === 'false') value = raw === 'true';
  else if (!Number.isNaN(Number(raw))) value = Number(raw);
  else value = raw;
  return { type: 'filter', path, op: m[2] as '==' | '!=', value, exists: false };
}

/** Parse a JSONPath expression (optionally wrapped in `{}`) into steps. Throws on unsupported syntax. */
export function parseJsonPath(expression: string): Step[] {
  let expr = expression.trim();
  if (expr.startsWith('{') && expr.endsWith('}')) expr = expr.slice(1, -1).trim();
  if (expr.startsWith('$')) expr = expr.slice(1);
  const steps: Step[] = [];
  let i = 0;
  while (i < expr.length) {
    const ch = expr[i];
    if (ch === '.') {
      i++;
      let key = '';
      while (i < expr.length && expr[i] !== '.' && expr[i] !== '[') {
        if (expr[i] === '\\' && i + 1 < expr.length) {
          key += expr[i + 1];
          i += 2;
        } else {
          key += expr[i++];
        }
      }
      if (key === '*') steps.push({ type: 'wildcard' });
      else if (key !== '') steps.push({ type: 'key', key });
    } else if (ch === '[') {
      const end = findClosing(expr, i);
      const inner = expr.slice(i + 1, end).trim();
      i = end + 1;
      if (inner === '*') steps.push({ type: 'wildcard' });
      else if (/^-?\d+$/.test(inner)) steps.push({ type: 'index', index: Number(inner) });
      else if (/^(["']).*\1$/.test(inner)) steps.push({ type: 'key', key: inner.slice(1, -1) });
      else if (inner.startsWith('?')) steps.push(parseFilter(inner));
      else throw new Error(`unsupported JSONPath subscript [${inner}] in ${expression}`);
    } else {
      throw new Error(`unexpected "${ch}" at offset ${i} in JSONPath ${expression}`);
    }
  }
  return steps;
}

function findClosing(expr: string, open: number): number {
  let depth = 0;
  let quote: string | undefined;
  for (let j = open; j < expr.length; j++) {
    const c = expr[j];
    if (quote) {
      if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '[') depth++;
    else if (c === ']' && --depth === 0) return j;
  }
  throw new Error(`unterminated [ in JSONPath ${expr}`);
}

function get(value: unknown, path: string[]): unknown {
  let cur = value;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/** Evaluate a JSONPath against a value; returns every match (empty when nothing matches). */
export function evaluateJsonPath(value: unknown, expression: string | Step[]): unknown[] {
  const steps = typeof expression === 'string' ? parseJsonPath(expression) : expression;
  let current: unknown[] = [value];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of current) {
      if (step.type === 'key') {
        if (v !== null && typeof v === 'object' && !Array.isArray(v) && step.key in (v as object)) next.push((v as Record<string, unknown>)[step.key]);
      } else if (step.type === 'index') {
        if (Array.isArray(v)) {
          const idx = step.index < 0 ? v.length + step.index : step.index;
          if (idx >= 0 && idx < v.length) next.push(v[idx]);
        }
      } else if (step.type === 'wildcard') {
        if (Array.isArray(v)) next.push(...v);
        else if (v !== null && typeof v === 'object') next.push(...Object.values(v as object));
      } else {
        const items = Array.isArray(v) ? v : v !== null && typeof v === 'object' ? Object.values(v as object) : [];
        for (const item of items) {
          const field = get(item, step.path);
          if (step.exists ? field !== undefined : step.op === '==' ? field === step.value : field !== undefined && field !== step.value) next.push(item);
        }
      }
    }
    current = next;
  }
  return current;
}
