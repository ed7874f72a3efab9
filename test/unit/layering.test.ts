/**
 * The layering of the code, held over its import graph (issue 33): no import runs from a lower layer to a higher
 * one, and no resource imports another resource's files (what two resources share lives in provider/core). The
 * layers, lowest first:
 *   provider/client → provider/await → provider/core → provider/capacity → provider/resources/<r> →
 *   provider/host, provider/registry.ts → provider/index.ts → sdk, cdktf → runner;
 *   emulator/ stands apart: it never imports the provider, nor the provider it.
 * Read from the sources (relative imports, `import()` and `require()`), so a moved file is judged where it lands.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { repoRoot as rootOf } from '../../scripts/resource-docs';

const repoRoot = rootOf();

const LAYERS: [prefix: string, rank: number][] = [
  ['provider/client/', 0],
  ['provider/await/', 1],
  ['provider/core/', 2],
  ['provider/capacity/', 3],
  ['provider/resources/', 4],
  ['provider/host/', 5],
  ['provider/registry.ts', 5],
  ['provider/index.ts', 6],
  ['sdk/', 7],
  ['cdktf/', 7],
  ['runner/', 8],
];

function rankOf(file: string): number | undefined {
  return LAYERS.find(([prefix]) => file.startsWith(prefix))?.[1];
}

function resourceOf(file: string): string | undefined {
  return /^provider\/resources\/([^/]+)\//.exec(file)?.[1];
}

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(repoRoot, dir))) {
    const path = join(dir, name);
    if (statSync(join(repoRoot, path)).isDirectory()) out.push(...sources(path));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** Every relative import of `file`, as repository paths (extension-less imports resolved to .ts or index.ts). */
function importsOf(file: string): string[] {
  const text = readFileSync(join(repoRoot, file), 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s+|\bimport\(\s*|\brequire\(\s*)'(\.[^']+)'/g)) {
    const target = normalize(join(dirname(file), m[1]));
    const candidates = [`${target}.ts`, join(target, 'index.ts'), target];
    out.push(candidates.find((c) => { try { return statSync(join(repoRoot, c)).isFile(); } catch { return false; } }) ?? target);
  }
  return out;
}

describe('layering: the import graph runs downward', () => {
  const files = ['provider', 'sdk', 'cdktf', 'runner', 'emulator'].flatMap(sources);

  it('no import from a lower layer to a higher one', () => {
    const upward: string[] = [];
    for (const file of files) {
      const from = rankOf(file);
      if (from === undefined) continue;
      for (const target of importsOf(file)) {
        const to = rankOf(target);
        if (to !== undefined && to > from) upward.push(`${file} → ${target}`);
      }
    }
    assert.deepEqual(upward, []);
  });

  it('no resource imports another resource (shared rules live in provider/core)', () => {
    const across: string[] = [];
    for (const file of files) {
      const own = resourceOf(file);
      if (!own) continue;
      for (const target of importsOf(file)) {
        const other = resourceOf(target);
        if (other && other !== own) across.push(`${file} → ${target}`);
      }
    }
    assert.deepEqual(across, []);
  });

  it('the emulator and the provider never import each other', () => {
    const crossing: string[] = [];
    const inEmulator = (p: string) => p.startsWith('emulator/');
    const inProvider = (p: string) => p.startsWith('provider/');
    for (const file of files) {
      for (const target of importsOf(file)) {
        if ((inEmulator(file) && inProvider(target)) || (inProvider(file) && inEmulator(target))) crossing.push(`${file} → ${target}`);
      }
    }
    assert.deepEqual(crossing, []);
  });
});
