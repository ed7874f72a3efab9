/**
 * Type-checks the TypeScript snippets of the docs in one TypeScript program (one compile for all of them, not one
 * tsc per block), with the project's tsconfig and the package's own entry points mapped to the local sources, so a
 * snippet breaks the build of the docs the moment the API it shows changes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { codeBlocks, markdownFiles, readText } from './markdown';

export interface Snippet {
  /** Repository-relative Markdown file. */
  file: string;
  /** Line of the snippet's first code line in that file. */
  line: number;
  code: string;
}

/** ```ts blocks of README.md and docs/ (not docs/src: those examples are checked once, in the generated pages). Fragments (```ts fragment) are skipped. */
export function docSnippets(root: string): Snippet[] {
  return markdownFiles(root).flatMap((file) =>
    codeBlocks(readText(root, file))
      .filter((b) => /^(ts|typescript)\b/.test(b.info) && !/\bfragment\b/.test(b.info))
      .map((b) => ({ file, line: b.line, code: b.code })),
  );
}

/** `paths` sending each entry of package.json `exports` ("harvester-iac/provider" …) to its TypeScript source. */
function packagePaths(root: string): Record<string, string[]> {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; exports: Record<string, string | { default: string }> };
  const out: Record<string, string[]> = {};
  for (const [key, target] of Object.entries(pkg.exports)) {
    const js = typeof target === 'string' ? target : target.default;
    if (!js.startsWith('./dist/') || !js.endsWith('.js')) continue;
    out[key === '.' ? pkg.name : `${pkg.name}/${key.slice(2)}`] = [js.replace('./dist/', './').replace(/\.js$/, '.ts')];
  }
  return out;
}

/**
 * Compiles every snippet as its own ES module (top-level await allowed, as in a Pulumi program) and returns one line
 * per error, "file:line:column message", the line being the Markdown file's.
 */
export function compileSnippets(root: string, snippets: Snippet[]): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  if (!config) throw new Error('tsconfig.json could not be read');
  const options: ts.CompilerOptions = { ...config.options, noEmit: true, paths: { ...config.options.paths, ...packagePaths(root) } };
  const virtual = new Map(snippets.map((s, i) => [join(root, '.doc-snippets', `${i}.mts`), s]));
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (f) => virtual.has(f) || fileExists.call(host, f);
  host.readFile = (f) => virtual.get(f)?.code ?? readFile.call(host, f);
  host.getSourceFile = (f, lang, ...rest) => {
    const s = virtual.get(f);
    return s ? ts.createSourceFile(f, s.code, lang, true) : getSourceFile.call(host, f, lang, ...rest);
  };
  const program = ts.createProgram([...virtual.keys()], options, host);
  const errors: string[] = [];
  for (const [path, s] of virtual) {
    const sf = program.getSourceFile(path)!;
    for (const d of [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)]) {
      const { line, character } = sf.getLineAndCharacterOfPosition(d.start ?? 0);
      errors.push(`${s.file}:${s.line + line}:${character + 1} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    }
  }
  return errors;
}
