/**
 * The reference page of each resource, docs/resources/<kebab-name>.md: the hand-written source
 * docs/src/resources/<kebab-name>.md (description, example, import, drift, errors, notes) merged with what the zod
 * model says (inputs, outputs, what replaces, timeouts), so the tables cannot go stale. `npm run docs` writes the
 * pages; test/unit/sdk/codegen.test.ts fails when a committed page differs from this rendering.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { inputsFlagged } from '../provider/core/input-flags';
import { COMPONENTS, RESOURCES, type ComponentEntry, type ResourceEntry } from '../sdk/registry';

/** What has a page: every resource and every component. */
type Paged = ResourceEntry | ComponentEntry;
const PAGED: readonly Paged[] = [...RESOURCES, ...COMPONENTS];
import { renderInputsTable, renderPropertiesTable } from './resource-docs';

/** The `##` sections of a source, in the order the page shows them; the generated ones go after `Example`. */
export const SOURCE_SECTIONS = ['Example', 'Import', 'Drift', 'Errors', 'Notes'] as const;
const REQUIRED_SECTIONS: readonly string[] = ['Example', 'Import', 'Drift', 'Errors'];
const GENERATED_SECTIONS = ['Inputs', 'Outputs', 'Replacement', 'Timeouts'] as const;

/** "HarvesterIPPool" → "harvester-ip-pool": the file name of a resource's source and page. */
export function kebabName(className: string): string {
  return className
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .toLowerCase();
}

export const sourcePath = (r: Paged) => `docs/src/resources/${kebabName(r.className)}.md`;
export const pagePath = (r: Paged) => `docs/resources/${kebabName(r.className)}.md`;

/** A source split into its title, description and `##` sections (body text without the heading line). */
export interface ParsedSource {
  title: string;
  description: string;
  sections: Map<string, string>;
}

/** `##` headings outside code fences, with the line they start on. */
function splitSections(lines: string[]): { heading: string; body: string[] }[] {
  const out: { heading: string; body: string[] }[] = [];
  let fenced = false;
  for (const line of lines) {
    if (/^(```|~~~)/.test(line)) fenced = !fenced;
    const m = !fenced && /^## (.+?)\s*$/.exec(line);
    if (m) out.push({ heading: m[1], body: [] });
    else if (out.length) out[out.length - 1].body.push(line);
  }
  return out;
}

/**
 * Parses and checks a source against the fixed shape (see docs/architecture.md "Adding a resource"): every
 * problem at once, each naming the file and what to write.
 */
export function parseSource(text: string, className: string, file: string): ParsedSource {
  const problems: string[] = [];
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  if (lines[0] !== `# ${className}`) problems.push(`the first line must be "# ${className}" (found ${JSON.stringify(lines[0])})`);
  const firstSection = lines.findIndex((l) => l.startsWith('## '));
  const description = lines.slice(1, firstSection < 0 ? lines.length : firstSection).join('\n').trim();
  if (!description) problems.push('one paragraph of description must follow the title');
  const sections = new Map<string, string>();
  for (const { heading, body } of splitSections(lines)) {
    if (!(SOURCE_SECTIONS as readonly string[]).includes(heading)) {
      problems.push(`unknown section "## ${heading}": the sections are ${SOURCE_SECTIONS.map((s) => `"## ${s}"`).join(', ')} (use ### inside them)`);
    } else if (sections.has(heading)) problems.push(`"## ${heading}" appears twice`);
    else sections.set(heading, body.join('\n').trim());
  }
  for (const s of REQUIRED_SECTIONS) if (!sections.get(s)) problems.push(`"## ${s}" is missing or empty`);
  const example = sections.get('Example') ?? '';
  const tsBlocks = example.match(/^```ts\s*$/gm)?.length ?? 0;
  if (sections.has('Example') && tsBlocks !== 1) problems.push(`"## Example" must hold exactly one complete \`\`\`ts program (found ${tsBlocks})`);
  if (problems.length) throw new Error(`${file} does not have the shape of a resource page source:\n  - ${problems.join('\n  - ')}`);
  return { title: className, description, sections };
}

type JsonSchema = Record<string, any>;

function outputsTable(r: Paged): string {
  const json = z.toJSONSchema(r.outputs, { io: 'output', unrepresentable: 'any' }) as JsonSchema;
  const onlyOutputs = Object.keys(json.properties ?? {}).filter((k) => !(k in r.inputs.shape));
  const props = Object.fromEntries(onlyOutputs.map((k) => [k, json.properties[k]]));
  return [
    'exportName' in r ? 'Every input is also an output, with its default applied (secret inputs stay secret). Besides them:' : 'The component\'s outputs (its Pulumi properties of the same names):',
    '',
    renderPropertiesTable({ ...json, properties: props }, 'Output'),
  ].join('\n');
}

function replacementSection(r: Paged): string {
  const replacing = inputsFlagged(r.inputs, 'replaceOnChanges');
  if (!replacing.length) return 'No input replaces the resource: every change is made in place.';
  const json = z.toJSONSchema(r.inputs, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return [
    'A change of one of these inputs replaces the resource; every other input is updated in place.',
    '',
    ...replacing.map((k) => `- \`${k}\`: ${String(json.properties[k]?.description ?? '').replace(/\n/g, ' ')}`),
  ].join('\n');
}

function timeoutsSection(r: Paged): string {
  const json = z.toJSONSchema(r.inputs, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const waits = Object.keys(json.properties ?? {}).filter((k) => k === 'timeouts' || /Timeout$/.test(k));
  if (!waits.length) return 'This resource waits for nothing, so it has no timeout inputs.';
  return [
    'Pulumi\'s `customTimeouts` option does not reach dynamic providers; these inputs bound every wait instead (durations',
    'such as `"90s"`, `"10m"`, `"1h30m"`). A wait that runs out says what it waited for, what it saw last and which input to raise.',
    '',
    renderPropertiesTable({ ...json, properties: Object.fromEntries(waits.map((k) => [k, json.properties[k]])) }, 'Input'),
  ].join('\n');
}

/** The page of one resource: the source's sections with the generated ones after `## Example`. */
export function renderResourcePage(r: Paged, sourceText: string): string {
  const src = parseSource(sourceText, r.className, sourcePath(r));
  const generated: Record<(typeof GENERATED_SECTIONS)[number], string> = {
    Inputs: `The \`${r.className}Args\` of the SDK class (${'exportName' in r ? 'each field a `pulumi.Input`' : 'plain values, as they name and count its resources, unless the page says otherwise'}).${
      r.nameInput ? ` The class fills \`${r.nameInput}\` with the Pulumi resource name when you leave it out.` : ''
    }\n\n${renderInputsTable(r.inputs)}`,
    Outputs: outputsTable(r),
    Replacement: replacementSection(r),
    Timeouts: timeoutsSection(r),
  };
  const part = (heading: string, body: string) => `## ${heading}\n\n${body}\n`;
  const parts = [
    `<!-- Generated by \`npm run docs\` from ${sourcePath(r)} and the zod model (sdk/registry.ts): edit those, not this page. -->\n`,
    `# ${r.className}\n`,
    `${src.description}\n`,
    'exportName' in r
      ? `Pulumi type token \`pulumi-nodejs:dynamic/harvester:${r.className}\`; handlers \`${r.exportName}\` of \`harvester-iac/provider\`; ` +
        `package schema type \`harvester:index:${r.className}\` (schema.json). Install with \`npm install harvester-iac\`; the ` +
        'cluster connection comes from stack config `harvester:kubeconfig` ([credentials](../guides/credentials.md)).\n'
      : `A component (\`pulumi.ComponentResource\`, type \`harvester:index:${r.className}\`) of the TypeScript SDK, built in your program from ` +
        'the resources it lists; their pages say what each does. Install with `npm install harvester-iac`; the cluster connection comes ' +
        'from stack config `harvester:kubeconfig` ([credentials](../guides/credentials.md)).\n',
    part('Example', src.sections.get('Example')!),
    ...GENERATED_SECTIONS.map((s) => part(s, generated[s])),
    ...SOURCE_SECTIONS.filter((s) => s !== 'Example' && src.sections.has(s)).map((s) => part(s, src.sections.get(s)!)),
  ];
  return parts.join('\n');
}

/** docs/resources/README.md: the list of pages (GitHub shows it under the folder's listing). */
function renderIndex(): string {
  return [
    '<!-- Generated by `npm run docs` from sdk/registry.ts: edit that, not this page. -->',
    '',
    '# Resources',
    '',
    'One page per resource: an example, inputs, outputs, what replaces, timeouts, import, drift and the errors you may meet.',
    '',
    '| Resource | What it manages |',
    '|---|---|',
    ...PAGED.map((r) => `| [${r.className}](${kebabName(r.className)}.md) | ${r.description.replace(/\|/g, '\\|')} |`),
    '',
  ].join('\n');
}

/** Every resource page and their index: repository-relative path → content. Throws naming the file when a source is missing or malformed. */
export function renderResourcePages(root: string): Record<string, string> {
  const out: Record<string, string> = { 'docs/resources/README.md': renderIndex() };
  for (const r of PAGED) {
    const file = join(root, sourcePath(r));
    if (!existsSync(file)) {
      throw new Error(`${sourcePath(r)} is missing: every entry of sdk/registry.ts RESOURCES needs a hand-written page source (see docs/architecture.md "Adding a resource").`);
    }
    out[pagePath(r)] = renderResourcePage(r, readFileSync(file, 'utf8'));
  }
  return out;
}
