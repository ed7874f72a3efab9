/**
 * The checks behind test/unit/design-citations.test.ts: code and docs cite the reasons they rely on in
 * docs/design/ (our own words, with the upstream source), never the research notes kept beside the repository,
 * which a reader of the repository does not have; and every docs/design citation resolves.
 *
 * A citation is `docs/design/<file>.md` in any text (or a relative markdown link into docs/design/), optionally
 * followed by `#anchor` (GitHub's slug of a heading), `§"Heading"` (a heading's exact text), `§N` (a numbered
 * heading, "## 4. …") or `§label` (a heading labelled "## §label: …"), several §s chained with commas. A
 * "trap N" names a trap of docs/design/dynamic-host-contract.md, and the file citing it names that page.
 *
 * This file and the test name the research notes in their patterns, so both are left out of the scan.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, posix, relative, sep } from 'node:path';

/** What a file gets wrong, with the text at fault. */
export interface CitationProblem {
  /** A research note cited, a docs/design citation that does not resolve, or a trap named wrongly. */
  kind: 'research' | 'design' | 'trap';
  file: string;
  line?: number;
  problem: string;
}

/** The research notes beside the repository (`../shared/research/`), by file name. */
export const RESEARCH_NOTES = [
  'pulumi-tech',
  'harvester-api',
  'kube-api-emulator',
  'harvester-supporting-kinds',
  'capacity-at-preview',
  'guest-rke2-cluster',
  'guest-cluster-credentials',
  'anchors',
] as const;

/** The folders scanned (besides the top-level *.md files), and the file kinds read. */
export const SCANNED_DIRS = ['provider', 'runner', 'sdk', 'cdktf', 'scripts', 'bench', 'examples', 'docs', 'test', 'emulator'];
const SCANNED_EXT = /\.(ts|js|mjs|cjs|md|ya?ml)$/;
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.harvester-run', '.git']);
/** The files that name the research notes in patterns. */
const SELF = ['test/support/design-citations.ts', 'test/unit/design-citations.test.ts'];

const NOTE_FILE = new RegExp(`(?<![\\w/.-])(${RESEARCH_NOTES.join('|')})\\.md\\b`, 'g');
/** Research cited without a file name: "research §4.9", "research note", "shared research", "(research)", a §A.5 section. */
const RESEARCH_PHRASES: readonly RegExp[] = [
  /\bresearch\s+(?:note\b|§)/gi,
  /\bshared research\b/gi,
  /\bkube-api-emulator research\b/gi,
  /shared\/research\b/gi,
  /\(research\)/gi,
  /§\s?[A-F]\.\d/g,
];

/** Repository-relative paths (with `/`) of every scanned file. */
export function scannedFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(join(root, dir))) {
      if (SKIPPED_DIRS.has(name)) continue;
      const rel = posix.join(dir, name);
      const st = statSync(join(root, rel));
      if (st.isDirectory()) walk(rel);
      else if (SCANNED_EXT.test(name) && !SELF.includes(rel)) out.push(rel);
    }
  };
  for (const name of readdirSync(root)) if (name.endsWith('.md')) out.push(name);
  for (const dir of SCANNED_DIRS) if (existsSync(join(root, dir))) walk(dir);
  return out.sort();
}

const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length;

/** Research notes cited by `file` (its text `text`). */
export function researchCitations(root: string, file: string, text: string): CitationProblem[] {
  const found: CitationProblem[] = [];
  for (const m of text.matchAll(NOTE_FILE)) {
    // A page of ours with the same name, linked relatively (docs/resources/guest-cluster-credentials.md), is no research.
    if (existsSync(join(root, dirname(file), m[0]))) continue;
    found.push({ kind: 'research', file, line: lineOf(text, m.index), problem: `cites the research note ${m[0]}: state the fact in docs/design/ and cite that` });
  }
  for (const re of RESEARCH_PHRASES) {
    for (const m of text.matchAll(re)) {
      found.push({ kind: 'research', file, line: lineOf(text, m.index), problem: `cites research ("${m[0]}"): state the fact in docs/design/ and cite that` });
    }
  }
  return found;
}

/** A heading of a markdown page: its text and GitHub's anchor for it. */
export interface Heading {
  text: string;
  anchor: string;
}

/** GitHub's slug of a heading text (before de-duplication). */
export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The headings of a markdown text, outside code fences, with GitHub's de-duplicated anchors. */
export function headingsOf(markdown: string): Heading[] {
  const seen = new Map<string, number>();
  const out: Heading[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.push({ text: m[1], anchor: n ? `${base}-${n}` : base });
  }
  return out;
}

/**
 * Resolves one `§…` reference (the text right after the `§`) against `headings`: returns how many characters of
 * `after` it used, or an error. `"Heading"` must be a heading's exact text; a number, a heading numbered so; a word,
 * a heading labelled `§word`.
 */
export function resolveSection(after: string, headings: readonly Heading[]): { used: number } | { error: string } {
  const quoted = /^"([^"]*)"/.exec(after);
  if (quoted) {
    return headings.some((h) => h.text === quoted[1]) ? { used: quoted[0].length } : { error: `has no heading "${quoted[1]}"` };
  }
  const numbered = /^\d+(?:\.\d+)*/.exec(after);
  if (numbered) {
    const n = numbered[0];
    return headings.some((h) => h.text === n || h.text.startsWith(`${n}. `) || h.text.startsWith(`${n} `)) ? { used: n.length } : { error: `has no heading numbered ${n}` };
  }
  const labels = headings.map((h) => /^§([^:]+)/.exec(h.text)?.[1].trim()).filter((l): l is string => !!l);
  const label = labels.filter((l) => after.startsWith(l) && !/^[\p{L}\p{N}_-]/u.test(after.slice(l.length))).sort((a, b) => b.length - a.length)[0];
  if (label) return { used: label.length };
  const word = /^[^\s,;)]*/.exec(after)?.[0] ?? '';
  return { error: `has no heading labelled §${word} (cite §"<heading>" or #<anchor>)` };
}

/** The text with comment markers at line starts removed and line breaks joined, so a citation may wrap. */
function joined(text: string): { flat: string; lineAt: (i: number) => number } {
  const starts: number[] = [];
  let flat = '';
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    const line = i === 0 ? raw : raw.replace(/^\s*(?:\*(?!\/)|\/\/)?\s*/, '');
    starts.push(flat.length);
    flat += (i === 0 ? '' : ' ') + line;
  });
  const lineAt = (index: number) => {
    let n = 0;
    while (n + 1 < starts.length && starts[n + 1] <= index) n++;
    return n + 1;
  };
  return { flat, lineAt };
}

/** Reads a docs/design page's headings once. */
export class DesignPages {
  private readonly cache = new Map<string, Heading[] | null>();
  constructor(private readonly root: string) {}

  /** Headings of `page` (repository-relative), or null when the page does not exist. */
  headings(page: string): Heading[] | null {
    if (!this.cache.has(page)) {
      const path = join(this.root, page);
      this.cache.set(page, existsSync(path) ? headingsOf(readFileSync(path, 'utf8')) : null);
    }
    return this.cache.get(page)!;
  }
}

/** Checks one cited page with its optional `#anchor` and the `§` references in `after`. */
function checkCitation(pages: DesignPages, page: string, anchor: string | undefined, after: string): string[] {
  const headings = pages.headings(page);
  if (!headings) return [`cites ${page}, which does not exist`];
  const problems: string[] = [];
  if (anchor !== undefined && !headings.some((h) => h.anchor === anchor)) problems.push(`cites ${page}#${anchor}: ${page} has no such heading anchor`);
  let rest = after;
  let lead = /^\s*\(?\s*§\s*/.exec(rest);
  while (lead) {
    rest = rest.slice(lead[0].length);
    const r = resolveSection(rest, headings);
    if ('error' in r) {
      problems.push(`cites ${page} §${rest.slice(0, 40)}…: ${page} ${r.error}`);
      break;
    }
    rest = rest.slice(r.used);
    lead = /^\s*(?:,|and)\s*§\s*/.exec(rest);
  }
  return problems;
}

const DESIGN_PATH = /(?<![\w/.-])(docs\/design\/[A-Za-z0-9_.-]+?\.md)(?:#([\w-]+))?/g;
const MD_LINK = /\]\(([^)\s#]*\.md)(?:#([^)\s]+))?\)/g;
/** A link to a heading of the same page. */
const SELF_LINK = /\]\(#([^)\s]+)\)/g;

/** docs/design citations of `file` that do not resolve. */
export function designCitationProblems(root: string, pages: DesignPages, file: string, text: string): CitationProblem[] {
  const { flat, lineAt } = joined(text);
  const found: CitationProblem[] = [];
  for (const m of flat.matchAll(DESIGN_PATH)) {
    for (const problem of checkCitation(pages, m[1], m[2], flat.slice(m.index + m[0].length, m.index + m[0].length + 400))) found.push({ kind: 'design', file, line: lineAt(m.index), problem });
  }
  if (file.endsWith('.md')) {
    for (const m of flat.matchAll(MD_LINK)) {
      if (/^[a-z]+:/.test(m[1])) continue;
      const target = relative(root, normalize(join(root, dirname(file), m[1]))).split(sep).join('/');
      if (!target.startsWith('docs/design/')) continue;
      for (const problem of checkCitation(pages, target, m[2], '')) found.push({ kind: 'design', file, line: lineAt(m.index), problem });
    }
  }
  if (file.startsWith('docs/design/')) {
    for (const m of flat.matchAll(SELF_LINK)) {
      for (const problem of checkCitation(pages, file, m[1], '')) found.push({ kind: 'design', file, line: lineAt(m.index), problem });
    }
  }
  return found;
}

/** The trap numbers of docs/design/dynamic-host-contract.md: the numbered list under "## Traps". */
export function trapNumbers(contract: string): Set<number> {
  const section = contract.split(/^## Traps\s*$/m)[1]?.split(/^## /m)[0] ?? '';
  return new Set([...section.matchAll(/^(\d+)\. /gm)].map((m) => Number(m[1])));
}

const CONTRACT = 'docs/design/dynamic-host-contract.md';
const TRAP_REF = /\btraps?\s+(\d+)((?:\s*(?:,|and|-|–)\s*\d+)*)/gi;

/** "trap N" mentions of `file` naming no trap, or in a file that does not name the page the traps are on. */
export function trapProblems(file: string, text: string, traps: ReadonlySet<number>): CitationProblem[] {
  const found: CitationProblem[] = [];
  const citesContract = text.includes('dynamic-host-contract.md');
  for (const m of text.matchAll(TRAP_REF)) {
    const numbers = [Number(m[1])];
    for (const part of m[2].matchAll(/(,|and|-|–)\s*(\d+)/g)) {
      const n = Number(part[2]);
      if (part[1] === '-' || part[1] === '–') for (let i = numbers[numbers.length - 1] + 1; i < n; i++) numbers.push(i);
      numbers.push(n);
    }
    const line = lineOf(text, m.index);
    for (const n of numbers.filter((x) => !traps.has(x))) found.push({ kind: 'trap', file, line, problem: `names trap ${n}, which ${CONTRACT} does not list` });
    if (!citesContract) found.push({ kind: 'trap', file, line, problem: `names "${m[0]}" without citing ${CONTRACT}, where the traps are` });
  }
  return found;
}

/** Every problem of every scanned file. */
export function citationProblems(root: string): CitationProblem[] {
  const pages = new DesignPages(root);
  const traps = trapNumbers(readFileSync(join(root, CONTRACT), 'utf8'));
  return scannedFiles(root).flatMap((file) => {
    const text = readFileSync(join(root, file), 'utf8');
    return [...researchCitations(root, file, text), ...designCitationProblems(root, pages, file, text), ...trapProblems(file, text, traps)];
  });
}

/** One line per problem, for an assertion message. */
export function formatProblems(problems: readonly CitationProblem[]): string {
  return problems.map((p) => `  ${p.file}${p.line ? `:${p.line}` : ''}: ${p.problem}`).join('\n');
}
