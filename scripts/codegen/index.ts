/**
 * `npm run docs`: every generated file from the zod models (sdk/registry.ts) — sdk/generated/resources.ts,
 * schema.json and the README's reference tables. test/unit/codegen.test.ts fails when a committed copy is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderReadme, repoRoot } from '../resource-docs';
import { renderPulumiSchema } from './pulumi-schema';
import { renderSdkResources } from './typescript';

/** The package version, written into schema.json. */
export function packageVersion(root = repoRoot()): string {
  return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
}

/** Every generated file: repository-relative path → expected content. */
export function generatedFiles(root = repoRoot()): Record<string, string> {
  return {
    'sdk/generated/resources.ts': renderSdkResources(),
    'schema.json': renderPulumiSchema(packageVersion(root)),
    'README.md': renderReadme(readFileSync(join(root, 'README.md'), 'utf8')),
  };
}

if (require.main === module) {
  const root = repoRoot();
  for (const [path, content] of Object.entries(generatedFiles(root))) {
    const file = join(root, path);
    let current = '';
    try {
      current = readFileSync(file, 'utf8');
    } catch {
      // new file
    }
    if (current !== content) {
      writeFileSync(file, content);
      console.log(`wrote ${path}`);
    }
  }
}
