/**
 * Turns zod validation issues into Pulumi CheckFailures: one failure per problem, named by the input path
 * the user wrote (`disks[0].size`), saying what is wrong with the observed value and what to write instead.
 * Issues at paths holding Pulumi's unknown sentinel are dropped (the value is only known at `pulumi up`).
 */
import type { z } from 'zod';
import { connectionInputs } from './connection-inputs';
import { stableStringify } from './hash';
import type { CheckFailure } from './types';
import { unknownAlong } from './unknowns';

type Issue = z.core.$ZodIssue;
type RawIssue = z.core.$ZodRawIssue;

/** formatPath renders a zod path as the user writes it: `disks[0].size`, `labels["app"]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z_$][\w$]*$/.test(key)) out += out ? `.${key}` : key;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

/** describeValue names a value for a message without echoing long or secret-looking strings. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return value.length <= 64 && !/\s{2,}|\n/.test(value) ? JSON.stringify(value) : `a string of ${value.length} characters`;
  if (Array.isArray(value)) return `a list of ${value.length}`;
  return 'an object';
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value} (${describeValue(value)})`;
}

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
  record: 'an object of string keys',
};

/**
 * inputErrorMap is passed to `safeParse` so issues without a field-specific message still read as
 * "what is wrong (observed value)". Field-specific messages in the model take precedence over it.
 */
export function inputErrorMap(issue: RawIssue): string | undefined {
  const input = issue.input;
  switch (issue.code) {
    case 'invalid_type':
      if (input === undefined) return 'is required';
      return `must be ${EXPECTED[issue.expected] ?? issue.expected} (got ${typeName(input)})`;
    case 'too_small': {
      const min = Number(issue.minimum);
      if (issue.origin === 'array') return `needs at least ${min} item${min === 1 ? '' : 's'} (got ${Array.isArray(input) ? input.length : 0})`;
      if (issue.origin === 'string') return min <= 1 ? 'must not be empty' : `must be at least ${min} characters long`;
      return `must be ${issue.inclusive === false ? 'greater than' : 'at least'} ${min} (got ${describeValue(input)})`;
    }
    case 'too_big': {
      const max = Number(issue.maximum);
      if (issue.origin === 'array') return `allows at most ${max} items (got ${Array.isArray(input) ? input.length : '?'})`;
      if (issue.origin === 'string') return `must be at most ${max} characters long (got ${typeof input === 'string' ? input.length : '?'})`;
      return `must be ${issue.inclusive === false ? 'less than' : 'at most'} ${max} (got ${describeValue(input)})`;
    }
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')} (got ${describeValue(input)})`;
    case 'invalid_format':
      return `has an invalid format (got ${describeValue(input)})`;
    case 'invalid_union':
      return `has an unsupported form (got ${typeName(input)})`;
    default:
      return undefined;
  }
}

/** Options for {@link issuesToFailures}. */
export interface FailureOptions {
  /** Top-level inputs whose values must never be quoted (userData, kubeconfig, …). */
  secretInputs?: readonly string[];
  /** Known property names at a path, for "did you mean" hints on unknown properties. */
  knownKeys?: (path: readonly PropertyKey[]) => readonly string[];
}

type Def = { type: string; shape?: Record<string, z.ZodType>; innerType?: z.ZodType; in?: z.ZodType; element?: z.ZodType; valueType?: z.ZodType };

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

/** The schema with its wrappers (optional, default, nullable, pipe, …) removed. */
function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (let def = defOf(s); ; def = defOf(s)) {
    const inner = def.innerType ?? (def.type === 'pipe' ? def.in : undefined);
    if (!inner) return s;
    s = inner;
  }
}

/**
 * schemaKeys returns, for a zod model, the function giving the property names an object at `path` may have
 * (for "did you mean" hints): it follows objects, arrays and records through optional/default wrappers.
 */
export function schemaKeys(model: z.ZodType): (path: readonly PropertyKey[]) => readonly string[] {
  return (path) => {
    let s: z.ZodType | undefined = unwrap(model);
    for (const key of path) {
      const def: Def = defOf(s);
      if (def.type === 'object') s = def.shape?.[String(key)];
      else if (def.type === 'array') s = def.element;
      else if (def.type === 'record') s = def.valueType;
      else s = undefined;
      if (!s) return [];
      s = unwrap(s);
    }
    const def = defOf(s);
    return def.type === 'object' ? Object.keys(def.shape ?? {}) : [];
  };
}

/**
 * issuesToFailures converts zod issues to CheckFailures against the raw inputs: drops issues on unknown
 * values, splits unknown-key issues per key (with a "did you mean" hint), and never quotes the value of a secret
 * input. A reason never repeats its property: the edges print both (formatFailure).
 */
export function issuesToFailures(issues: readonly Issue[], raw: unknown, options: FailureOptions = {}): CheckFailure[] {
  const failures: CheckFailure[] = [];
  const secrets = new Set(options.secretInputs ?? []);
  for (const issue of issues) {
    if (unknownAlong(raw, issue.path)) continue;
    if (issue.code === 'unrecognized_keys') {
      const known = options.knownKeys?.(issue.path) ?? [];
      for (const key of issue.keys) {
        const property = formatPath([...issue.path, key]);
        const hint = closest(key, known);
        failures.push({
          property,
          reason: `unknown property${hint ? `; did you mean "${hint}"?` : '. Remove it'}${known.length && !hint ? ` (known: ${known.join(', ')})` : ''}`,
        });
      }
      continue;
    }
    const property = formatPath(issue.path);
    let message = issue.message;
    if (secrets.has(String(issue.path[0])) && issue.code !== 'custom') message = 'is invalid (value not shown: it is secret)';
    failures.push({ property, reason: message });
  }
  return dedupe(failures);
}

function dedupe(failures: CheckFailure[]): CheckFailure[] {
  const seen = new Set<string>();
  return failures.filter((f) => {
    const key = `${f.property}\u0000${f.reason}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** closest returns the known name within edit distance 2 of `name` (case-insensitive), if any. */
export function closest(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of known) {
    const d = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length];
}

/** A check failure of `property` (its reason never repeats the property: formatFailure prints both). */
export const failure = (property: string, reason: string): CheckFailure => ({ property, reason });

/**
 * A check failure as a user reads it, "property: reason", formatted here once for every edge that prints one (the
 * runner, an error thrown at apply, a failure moved to property "" by the host wrapper). A reason that is a sentence
 * about its input ("userData is not valid YAML") already names it and is printed as it is.
 */
export function formatFailure(f: CheckFailure): string {
  if (!f.property) return f.reason;
  const top = f.property.split(/[.[]/, 1)[0];
  return f.reason.startsWith(`${top} `) || f.reason.startsWith(`${top}'`) ? f.reason : `${f.property}: ${f.reason}`;
}

/**
 * Connection settings: how to reach the cluster, not part of the resource (a change of them updates nothing: trap 9
 * of docs/design/dynamic-host-contract.md).
 */
const CONNECTION_KEYS = new Set(Object.keys(connectionInputs));

/**
 * sameUserInputs: the user's inputs are the same as last time (both with defaults applied; connection settings,
 * `__` keys and absent values aside). Never true for a create (no old inputs).
 */
export function sameUserInputs(olds: Record<string, unknown>, news: Record<string, unknown>): boolean {
  const resourceInputs = (o: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(o).filter(([k, v]) => !k.startsWith('__') && !CONNECTION_KEYS.has(k) && v !== undefined && v !== null));
  const old = resourceInputs(olds);
  return Object.keys(old).length > 0 && stableStringify(old) === stableStringify(resourceInputs(news));
}

/**
 * unchangedReferencesDropped: cluster-side failures (a referenced KeyPair, image or host zone that no longer
 * exists) are dropped from `check` only when the user's inputs are all unchanged since the last deployment:
 * nothing is then updated from inputs, so `up` does nothing that needs the reference, and an object deleted
 * later must not block every preview of the stack (trap 10 of docs/design/dynamic-host-contract.md); read reports
 * it instead. As soon as any input changes, every failure `up` would raise is raised here too. `olds` and `news`
 * carry their defaults (parse both), so leaving a field at its default is no change; `olds` is {} on create.
 */
export function unchangedReferencesDropped(failures: CheckFailure[], olds: Record<string, unknown>, news: Record<string, unknown>): CheckFailure[] {
  return sameUserInputs(olds, news) ? failures.filter((f) => f.property === '') : failures;
}
