/**
 * Every ```ts block of README.md and docs/ compiles against the package as it is (marked ```ts fragment to opt
 * out), and every relative link of them (file and #heading) resolves, so the docs cannot rot silently.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { repoRoot } from '../../scripts/resource-docs';
import { headingAnchors, markdownFiles, readText, relativeLinks } from '../support/markdown';
import { compileSnippets, docSnippets } from '../support/snippets';

const root = repoRoot(__dirname);

describe('docs: TypeScript snippets', function () {
  this.timeout(300_000);

  it('every ```ts block of README.md and docs/ type-checks against the package (file:line of each error)', () => {
    const snippets = docSnippets(root);
    assert.ok(snippets.length >= 8, `only ${snippets.length} snippets found: is the extraction broken?`);
    const errors = compileSnippets(root, snippets);
    assert.deepEqual(errors, [], `snippets that do not compile:\n${errors.join('\n')}`);
  });

  it('names the file and line of a snippet that does not compile, and accepts top-level await', () => {
    const errors = compileSnippets(root, [
      { file: 'docs/x.md', line: 10, code: "import * as harvester from 'harvester-iac';\n\nnew harvester.HarvesterIPPool('p', { rangez: [] });" },
      { file: 'docs/y.md', line: 3, code: "import { ipPool } from 'harvester-iac/provider';\n\nawait ipPool.check({}, {});" },
    ]);
    assert.equal(errors.length, 1, errors.join('\n'));
    assert.match(errors[0], /^docs\/x\.md:12:\d+ .*rangez/);
  });
});

describe('docs: relative links', () => {
  const files = markdownFiles(root);
  const anchorsOf = new Map<string, Set<string>>();
  const anchors = (file: string) => {
    if (!anchorsOf.has(file)) anchorsOf.set(file, headingAnchors(readText(root, file)));
    return anchorsOf.get(file)!;
  };

  it('every relative link of README.md and docs/ names a file or heading that exists', () => {
    const broken: string[] = [];
    for (const file of files) {
      for (const { target, line } of relativeLinks(readText(root, file))) {
        const [path, anchor] = target.split('#');
        const resolved = path ? normalize(join(dirname(file), decodeURIComponent(path))) : file;
        if (resolved.startsWith('..') || !existsSync(join(root, resolved))) broken.push(`${file}:${line} ${target}: no file ${resolved}`);
        else if (anchor !== undefined && resolved.endsWith('.md') && !anchors(resolved).has(anchor)) {
          broken.push(`${file}:${line} ${target}: no heading "#${anchor}" in ${resolved}`);
        }
      }
    }
    assert.deepEqual(broken, [], `broken links:\n${broken.join('\n')}`);
  });

  it('makes anchors as GitHub does', () => {
    const got = headingAnchors('# The drift gate\n## Without the Pulumi CLI: `harvester-iac-run`\n## Notes\n## Notes\n```\n# not a heading\n```\n');
    assert.deepEqual([...got], ['the-drift-gate', 'without-the-pulumi-cli-harvester-iac-run', 'notes', 'notes-1']);
  });
});
