/**
 * Progress lines of the exported providers, printed on the dynamic-provider host's standard output: after its
 * port line, the Pulumi CLI shows what the host prints as messages (pulumi/pulumi#18253; the host,
 * @pulumi/pulumi/cmd/dynamic-provider, leaves stdout to the provider), and the local runner shows them under
 * the resource being worked on. So a 15-minute pool create says what it waits for while it waits.
 *
 * Each line reads `<Resource> <namespace/name>: <text>`, redacted (no registered secret, no secret shape),
 * on one line. Per object at most one line every interval (HARVESTER_PROGRESS_INTERVAL seconds, default 10)
 * unless its news changed (the text with its numbers blanked differs: "VM scheduling" → "waiting for an IP",
 * not "2/3" → "3/3"); a line held back is printed when the interval is over or when the call ends, so the
 * last one is always shown.
 */
import { redact } from '../client/redact';
import type { ProgressSink } from '../core/progress';

/** Seconds between two lines of unchanged news about one object. */
export const PROGRESS_INTERVAL_ENV = 'HARVESTER_PROGRESS_INTERVAL';
const DEFAULT_INTERVAL_MS = 10_000;

/** One printed line, taken apart (the runner routes it to its resource). */
export interface ProgressLine {
  /** The resource type, e.g. "HarvesterMachinePool". */
  resource: string;
  /** The object, e.g. "default/workers". */
  object: string;
  text: string;
}

const prefixOf = (resource: string, object: string) => `${resource} ${object}: `;

export function formatProgressLine(line: ProgressLine): string {
  return `${prefixOf(line.resource, line.object)}${line.text}`;
}

const LINE = /^([A-Z][A-Za-z0-9]*) (\S+): (.*)$/;

/** parseProgressLine: a line of formatProgressLine's shape, else undefined (other output of the host). */
export function parseProgressLine(line: string): ProgressLine | undefined {
  const m = LINE.exec(line);
  return m ? { resource: m[1], object: m[2], text: m[3] } : undefined;
}

/** The news of a line: numbers blanked, so counts and percentages moving on are not news by themselves. */
function newsOf(text: string): string {
  return text.replace(/\d+/g, '#');
}

function intervalFromEnv(): number {
  const seconds = Number(process.env[PROGRESS_INTERVAL_ENV]);
  return process.env[PROGRESS_INTERVAL_ENV] && Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : DEFAULT_INTERVAL_MS;
}

export interface ProgressPrinterOptions {
  /** Where lines go. @default standard output */
  write?: (line: string) => void;
  /** @default HARVESTER_PROGRESS_INTERVAL seconds, else 10 s */
  intervalMs?: number;
  /** @default Date.now */
  now?: () => number;
  /** Runs `print` after `ms` (a held-back line); returns its cancel. @default an unref'd timer */
  schedule?: (print: () => void, ms: number) => () => void;
}

interface ObjectProgress {
  news?: string;
  printedAt: number;
  held?: string;
  cancel?: () => void;
}

const unrefTimer = (print: () => void, ms: number) => {
  const timer = setTimeout(print, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

/** ProgressPrinter: the rate-limited, redacted sink of every resource in one host process. */
export class ProgressPrinter {
  private readonly objects = new Map<string, ObjectProgress>();
  private readonly write: (line: string) => void;
  private readonly intervalMs: number;
  private readonly now: () => number;
  private readonly schedule: (print: () => void, ms: number) => () => void;

  constructor(options: ProgressPrinterOptions = {}) {
    this.write = options.write ?? ((line) => process.stdout.write(`${line}\n`));
    this.intervalMs = options.intervalMs ?? intervalFromEnv();
    this.now = options.now ?? Date.now;
    this.schedule = options.schedule ?? unrefTimer;
  }

  /** The sink a resource's handlers report to (their `onProgress`). */
  sinkFor(resource: string): ProgressSink {
    return (line, object) => this.report(resource, object, line);
  }

  report(resource: string, object: string, line: string): void {
    const key = prefixOf(resource, object);
    const text = redact(line).replace(/\s*\n\s*/g, ' ').trim();
    if (!text) return;
    const state = this.objects.get(key) ?? { printedAt: -Infinity };
    this.objects.set(key, state);
    if (newsOf(text) !== state.news || this.now() - state.printedAt >= this.intervalMs) return this.print(key, state, text);
    state.held = text;
    state.cancel ??= this.schedule(() => this.print(key, state, state.held), Math.max(0, state.printedAt + this.intervalMs - this.now()));
  }

  /** The call about `object` ended: print its held-back line (the last news) and forget it. */
  flush(resource: string, object: string): void {
    const key = prefixOf(resource, object);
    const state = this.objects.get(key);
    if (!state) return;
    this.print(key, state, state.held);
    this.objects.delete(key);
  }

  private print(key: string, state: ObjectProgress, text: string | undefined): void {
    state.cancel?.();
    state.cancel = undefined;
    state.held = undefined;
    if (text === undefined) return;
    state.news = newsOf(text);
    state.printedAt = this.now();
    this.write(`${key}${text}`);
  }
}
