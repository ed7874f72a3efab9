/**
 * What the runner takes from a program folder when the command line does not say, the way the Pulumi CLI and
 * its Node.js language host read the same folder:
 * - project: `name` of Pulumi.yaml, else `name` of package.json, else the folder's name;
 * - program: `main` of Pulumi.yaml (relative to the folder), else the folder itself, which
 *   @pulumi/pulumi/cmd/run resolves as Pulumi does (package.json `exports`, then `main`, then index.js);
 * - TypeScript: on when the entry point is a .ts file (Pulumi's language host turns ts-node on by default;
 *   here compiled JavaScript runs without it, which starts faster).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, extname, join, resolve } from 'node:path';
import { parse } from 'yaml';

type Raw = Record<string, unknown>;

export interface ProgramFolder {
  project: string;
  /** Absolute path of the program: a file, or the folder for cmd/run to resolve. */
  program: string;
  /** The entry point is TypeScript: the program runs under ts-node (PULUMI_NODEJS_TYPESCRIPT). */
  typescript: boolean;
}

function readObject(path: string, read: (text: string) => unknown): Raw | undefined {
  if (!existsSync(path)) return undefined;
  const value = read(readFileSync(path, 'utf8'));
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Raw) : undefined;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() ? value.trim() : undefined);

/** The entry file a program path stands for (a folder: its package.json `main`, else index.js/index.ts). */
function entryOf(program: string): string {
  if (!existsSync(program) || !statSync(program).isDirectory()) return program;
  const main = text(readObject(join(program, 'package.json'), JSON.parse)?.main);
  if (main) return resolve(program, main);
  return existsSync(join(program, 'index.js')) || !existsSync(join(program, 'index.ts')) ? join(program, 'index.js') : join(program, 'index.ts');
}

/**
 * programFolder: the defaults of the folder `pwd`; `overrides` (from the command line) win. A given program
 * path is relative to the folder, as Pulumi.yaml's `main` is.
 */
export function programFolder(pwd: string, overrides: { project?: string; program?: string } = {}): ProgramFolder {
  const pulumiYaml = readObject(join(pwd, 'Pulumi.yaml'), parse) ?? readObject(join(pwd, 'Pulumi.yml'), parse);
  const packageJson = readObject(join(pwd, 'package.json'), JSON.parse);
  const project = overrides.project ?? text(pulumiYaml?.name) ?? text(packageJson?.name) ?? basename(resolve(pwd));
  const program = resolve(pwd, overrides.program ?? text(pulumiYaml?.main) ?? '.');
  return { project, program, typescript: ['.ts', '.mts', '.cts'].includes(extname(entryOf(program))) };
}
