/**
 * What the runner prints, shaped like `pulumi`'s own output: one line per resource step with its sign, the changed
 * properties under it, progress while an operation waits, the stack outputs and a summary. Secret values are
 * printed as [secret]. Without --diff a changed property's value is cut at 100 characters and at most 20 lines are
 * shown per resource (the summary view); with --diff, and in the outputs, values are never cut.
 */
import { UNKNOWN_VALUE } from './dynamic-host';

type Raw = Record<string, unknown>;

/**
 * A step's kind. A refresh tells two outcomes apart: `refresh`, the cluster differs from the program's inputs
 * (drift), and `outputs`, only outputs moved on (an IP pool's allocations, a VM's address) with no drift.
 */
export type StepOp = 'create' | 'update' | 'replace' | 'delete' | 'same' | 'refresh' | 'outputs' | 'read';

export const STEP_SIGN: Record<StepOp, string> = { create: '+', update: '~', replace: '+-', delete: '-', same: ' ', refresh: '~', outputs: '~', read: '>' };

/** What the summary counts: the steps done (or planned), and the steps that failed (never counted as done). */
export type CountKey = StepOp | 'failed';

/** A resource whose step failed, with the provider's message: one diagnostic under the resource. */
export interface ResourceFailure {
  type: string;
  name: string;
  message: string;
}

/** Properties never shown: the serialized provider is noise to a reader. */
const HIDDEN = new Set(['__provider']);

/** How long a value may be in the summary view (without --diff) before it is cut. */
export const VALUE_LIMIT = 100;

/** A value as one line of JSON; cut to `limit` characters when given (the summary view), whole otherwise. */
export function formatValue(value: unknown, secret = false, limit?: number): string {
  if (secret) return '[secret]';
  if (value === UNKNOWN_VALUE) return '[unknown]';
  if (value === undefined) return 'undefined';
  const text = typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value, (_k, v) => (v === UNKNOWN_VALUE ? '[unknown]' : v));
  return limit !== undefined && text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

const isPlainObject = (v: unknown): v is Raw => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Most lines shown per resource in the summary view; the rest is counted. */
export const CHANGE_LINES = 20;

export interface ChangeOptions {
  /** Top-level properties that are secret: compared, never printed. */
  secretKeys?: readonly string[];
  /** Top-level properties whose change forces a replacement. */
  replaceKeys?: readonly string[];
  /** --diff: whole values and every line. */
  full?: boolean;
}

/**
 * The properties that differ between two property bags, down to the leaves that changed
 * ("~ hosts.harvester-node-2.zone: \"moved\" => \"eu-west-c\""), as `pulumi preview --diff` shows them.
 */
export function propertyChanges(olds: Raw, news: Raw, options: ChangeOptions = {}): string[] {
  const { secretKeys = [], replaceKeys = [], full = false } = options;
  const limit = full ? undefined : VALUE_LIMIT;
  const lines: string[] = [];
  const walk = (path: string, o: unknown, n: unknown, secret: boolean, tag: string): void => {
    if (same(o, n)) return;
    if (!secret && o !== UNKNOWN_VALUE && n !== UNKNOWN_VALUE) {
      if (isPlainObject(o) && isPlainObject(n)) {
        for (const k of [...new Set([...Object.keys(o), ...Object.keys(n)])].sort()) walk(`${path}.${k}`, o[k], n[k], false, tag);
        return;
      }
      if (Array.isArray(o) && Array.isArray(n) && o.length === n.length) {
        o.forEach((x, i) => walk(`${path}[${i}]`, x, n[i], false, tag));
        return;
      }
    }
    if (o === undefined) lines.push(`+ ${path}: ${formatValue(n, secret, limit)}${tag}`);
    else if (n === undefined) lines.push(`- ${path}: ${formatValue(o, secret, limit)}${tag}`);
    else lines.push(`~ ${path}: ${formatValue(o, secret, limit)} => ${formatValue(n, secret, limit)}${tag}`);
  };
  const keys = [...new Set([...Object.keys(olds), ...Object.keys(news)])].filter((k) => !HIDDEN.has(k)).sort();
  for (const key of keys) walk(key, olds[key], news[key], secretKeys.includes(key), replaceKeys.includes(key) ? ' (forces replacement)' : '');
  return !full && lines.length > CHANGE_LINES ? [...lines.slice(0, CHANGE_LINES), `… and ${lines.length - CHANGE_LINES} more (--diff shows all)`] : lines;
}

/** Where output goes; tests collect the lines. */
export type Sink = (line: string) => void;

export const stdoutSink: Sink = (line) => process.stdout.write(`${line}\n`);

/** Display: formats steps for one operation. */
export class Display {
  constructor(private readonly sink: Sink = stdoutSink) {}

  line(text = ''): void {
    this.sink(text);
  }

  step(op: StepOp, type: string, name: string, status: string, details: string[] = []): void {
    this.sink(`  ${STEP_SIGN[op].padEnd(2)} ${shortType(type).padEnd(34)} ${name.padEnd(16)} ${status}`);
    for (const d of details) this.sink(`        ${d}`);
  }

  outputs(outputs: Raw, secretKeys: readonly string[]): void {
    const keys = Object.keys(outputs).sort();
    if (!keys.length) return;
    this.sink('Outputs:');
    for (const key of keys) this.sink(`    ${key}: ${formatValue(outputs[key], secretKeys.includes(key))}`);
    this.sink('');
  }

  /** The failed resources, each under its own heading with its message once, as in Pulumi's Diagnostics. */
  diagnostics(failures: readonly ResourceFailure[]): void {
    if (!failures.length) return;
    this.sink('Diagnostics:');
    for (const f of failures) {
      this.sink(`  ${shortType(f.type)} (${f.name}):`);
      const [first, ...rest] = f.message.trimEnd().split('\n');
      this.sink(`    error: ${first}`);
      for (const line of rest) this.sink(`    ${line}`);
      this.sink('');
    }
  }

  summary(counts: Partial<Record<CountKey, number>>, verb: 'to' | 'done'): void {
    const words: Record<CountKey, [string, string]> = {
      create: ['to create', 'created'],
      update: ['to update', 'updated'],
      replace: ['to replace', 'replaced'],
      delete: ['to delete', 'deleted'],
      same: ['unchanged', 'unchanged'],
      refresh: ['to refresh', 'refreshed'],
      outputs: ['outputs to refresh', 'outputs refreshed'],
      read: ['to read', 'read'],
      failed: ['failed', 'failed'],
    };
    this.sink('Resources:');
    const keys = (Object.keys(words) as CountKey[]).filter((key) => counts[key]);
    if (!keys.length) this.sink('    no resources');
    const sign = (key: CountKey) => (key === 'same' || key === 'failed' ? '' : `${STEP_SIGN[key]} `);
    for (const key of keys) this.sink(`    ${sign(key)}${counts[key]} ${words[key][verb === 'to' ? 0 : 1]}`);
    this.sink('');
  }
}

/** "pulumi-nodejs:dynamic/harvester:HarvesterMachinePool" → "harvester:HarvesterMachinePool". */
export function shortType(type: string): string {
  return type.replace(/^pulumi-nodejs:dynamic\//, '');
}
