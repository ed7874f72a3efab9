/**
 * `npm run docs`: every generated file from the zod models (sdk/registry.ts) — sdk/generated/resources.ts,
 * schema.json and the resource pages docs/resources/*.md. test/unit/sdk/codegen.test.ts fails when a committed copy
 * is stale.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { repoRoot } from '../resource-docs';
import { renderResourcePages } from '../resource-pages';
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
    ...renderResourcePages(root),
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
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, content);
      console.log(`wrote ${path}`);
    }
  }
}
