/**
 * Just enough of POSIX sh to read the `runcmd` lines a guest-cluster bootstrap uses (docs/design/guest-rke2.md
 * §"Install and start commands"): words with single/double quotes and backslashes, the separators `;`, `&&`,
 * `||`, newlines and `|`, `VAR=value` prefixes and `export VAR=value`. cloud-init runs every `runcmd` entry in one
 * shell script, in order, so an `export` in one entry holds for the entries after it.
 *
 * No expansion is done (`$VAR`, globs, command substitution stay literal): the commands we recognise never need it,
 * and guessing would make the emulator accept what a real shell would run differently.
 */

/** One simple command: its environment prefix and its words. */
export interface SimpleCommand {
  /** `VAR=value` words before the command name (they apply to that command only). */
  assignments: Record<string, string>;
  argv: string[];
}

/** A pipeline: simple commands joined by `|` (one command when there is no pipe). */
export type Pipeline = SimpleCommand[];

type Token = { word: string } | { op: string };

const OPERATORS = ['&&', '||', ';', '|', '\n', '&'];

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let word: string | undefined;
  const flush = (): void => {
    if (word !== undefined) tokens.push({ word });
    word = undefined;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\' && i + 1 < text.length) {
      if (text[i + 1] === '\n') {
        i++; // line continuation
        continue;
      }
      word = (word ?? '') + text[++i];
      continue;
    }
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      const stop = end < 0 ? text.length : end;
      word = (word ?? '') + text.slice(i + 1, stop);
      i = stop;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      let value = '';
      while (j < text.length && text[j] !== '"') {
        if (text[j] === '\\' && j + 1 < text.length && '"\\$`'.includes(text[j + 1])) j++;
        value += text[j++];
      }
      word = (word ?? '') + value;
      i = j;
      continue;
    }
    if (c === '#' && word === undefined) {
      while (i + 1 < text.length && text[i + 1] !== '\n') i++;
      continue;
    }
    const op = OPERATORS.find((o) => text.startsWith(o, i));
    if (op) {
      flush();
      tokens.push({ op });
      i += op.length - 1;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      flush();
      continue;
    }
    word = (word ?? '') + c;
  }
  flush();
  return tokens;
}

const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s;

function simpleCommand(words: string[]): SimpleCommand {
  const assignments: Record<string, string> = {};
  let i = 0;
  for (; i < words.length; i++) {
    const m = ASSIGNMENT.exec(words[i]);
    if (!m) break;
    assignments[m[1]] = m[2];
  }
  return { assignments, argv: words.slice(i) };
}

/** Pipelines of a shell text, in order (empty commands dropped). */
export function parsePipelines(text: string): Pipeline[] {
  const pipelines: Pipeline[] = [];
  let pipeline: Pipeline = [];
  let words: string[] = [];
  const endCommand = (): void => {
    if (words.length > 0) pipeline.push(simpleCommand(words));
    words = [];
  };
  const endPipeline = (): void => {
    endCommand();
    if (pipeline.length > 0) pipelines.push(pipeline);
    pipeline = [];
  };
  for (const token of tokenize(text)) {
    if ('word' in token) words.push(token.word);
    else if (token.op === '|') endCommand();
    else endPipeline();
  }
  endPipeline();
  return pipelines;
}

/** A `runcmd` list entry as cloud-init runs it: a string is shell text, a list is one command's argv. */
export function runcmdPipelines(runcmd: unknown): Pipeline[] {
  if (!Array.isArray(runcmd)) return [];
  const out: Pipeline[] = [];
  for (const entry of runcmd) {
    if (typeof entry === 'string') out.push(...parsePipelines(entry));
    else if (Array.isArray(entry) && entry.length > 0) out.push([{ assignments: {}, argv: entry.map(String) }]);
  }
  return out;
}

/**
 * Strips the wrappers that run a command with a changed environment or privileges (`sudo`, `env`, and their
 * `VAR=value` arguments), returning the command underneath with those variables added to its assignments.
 */
export function unwrap(command: SimpleCommand): SimpleCommand {
  let argv = command.argv;
  const assignments = { ...command.assignments };
  for (;;) {
    const name = argv[0]?.split('/').pop();
    if (name !== 'sudo' && name !== 'env') break;
    argv = argv.slice(1);
    while (argv.length > 0 && (argv[0].startsWith('-') || ASSIGNMENT.test(argv[0]))) {
      const m = ASSIGNMENT.exec(argv[0]);
      if (m) assignments[m[1]] = m[2];
      argv = argv.slice(1);
    }
  }
  return { assignments, argv };
}
