/**
 * The Markdown the project publishes (README.md and docs/**), read the way the snippet and link tests need it:
 * fenced code blocks with their info string and line, links outside code, and GitHub's heading anchors.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * README.md and every .md under docs/, repository-relative, except the page sources under docs/src: their links are
 * written relative to the generated page (docs/resources/) and their examples are checked there, once.
 */
export function markdownFiles(root: string): string[] {
  const out = ['README.md'];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const rel = relative(root, path).split('\\').join('/');
      if (statSync(path).isDirectory()) {
        if (rel !== 'docs/src') walk(path);
      } else if (name.endsWith('.md')) out.push(rel);
    }
  };
  walk(join(root, 'docs'));
  return out;
}

export interface CodeBlock {
  /** Info string after the fence, e.g. "ts" or "ts fragment". */
  info: string;
  /** 1-based line of the first line of code (after the fence). */
  line: number;
  code: string;
}

/** Fenced code blocks (``` or ~~~) of a Markdown text. */
export function codeBlocks(text: string): CodeBlock[] {
  const out: CodeBlock[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(```+|~~~+)\s*(.*)$/.exec(lines[i]);
    if (!open) continue;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !lines[j].startsWith(open[1])) body.push(lines[j++]);
    out.push({ info: open[2].trim(), line: i + 2, code: body.join('\n') });
    i = j;
  }
  return out;
}

/**
 * The text with fenced blocks blanked (line numbers kept), so links and headings in code are not seen; inline code
 * too unless `keepInline` (a heading's `code` is part of its anchor).
 */
function withoutCode(text: string, keepInline = false): string {
  let fenced = '';
  return text
    .split('\n')
    .map((line) => {
      const fence = /^(```+|~~~+)/.exec(line)?.[1];
      if (fence && (!fenced || line.startsWith(fenced))) {
        fenced = fenced ? '' : fence;
        return '';
      }
      return fenced ? '' : keepInline ? line : line.replace(/`[^`]*`/g, '');
    })
    .join('\n');
}

/** Relative links `[text](target)` with their line (absolute URLs and mailto left out). */
export function relativeLinks(text: string): { target: string; line: number }[] {
  const out: { target: string; line: number }[] = [];
  withoutCode(text)
    .split('\n')
    .forEach((line, i) => {
      for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
        if (!/^[a-z][a-z0-9+.-]*:/i.test(m[1])) out.push({ target: m[1], line: i + 1 });
      }
    });
  return out;
}

/** GitHub's anchors for the headings of a Markdown text (lower-cased, punctuation dropped, spaces to "-", repeats numbered). */
export function headingAnchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of withoutCode(text, true).split('\n')) {
    const m = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = m[1]
      .replace(/<[^>]+>/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n ? `${base}-${n}` : base);
  }
  return anchors;
}

export const readText = (root: string, rel: string) => readFileSync(join(root, rel), 'utf8');
