/**
 * sdk/generated/resources.ts: the Pulumi resource classes and their typed Args, generated from the zod models
 * through sdk/registry.ts so that every doc comment, type and output is the model's own. The classes are thin:
 * the behaviour lives in sdk/runtime.ts.
 */
import { RESOURCES, type ResourceEntry } from '../../sdk/registry';
import { inputVariants } from '../../provider/core/input-flags';
import { jsonSchemaOf, resolve, withoutNull, type JsonSchema } from './json-schema';

const KEY = /^[A-Za-z_$][\w$]*$/;

function doc(text: string | undefined, indent: string): string {
  if (!text) return '';
  const safe = text.replace(/\*\//g, '*\\/');
  return `${indent}/** ${safe} */\n`;
}

/** tsType renders a JSON Schema as a TypeScript type; `input` wraps every level in pulumi.Input. */
function tsType(raw: JsonSchema, defs: JsonSchema, input: boolean, indent: string): string {
  const { schema, nullable } = withoutNull(resolve(raw, defs));
  const wrap = (t: string) => (input ? `pulumi.Input<${t}>` : t);
  const orNull = (t: string) => (nullable && !input ? `${t} | null` : t);
  if (Array.isArray(schema.enum)) return orNull(wrap(schema.enum.map((v: unknown) => JSON.stringify(v)).join(' | ')));
  if (Array.isArray(schema.anyOf)) return orNull(schema.anyOf.map((s: JsonSchema) => tsType(s, defs, input, indent)).join(' | '));
  if (schema.type === 'array') return orNull(wrap(`${tsType(schema.items ?? {}, defs, input, indent)}[]`));
  if (schema.type === 'object' && schema.properties) return orNull(wrap(objectType(schema, defs, input, indent)));
  if (schema.type === 'object') {
    const values = schema.additionalProperties && typeof schema.additionalProperties === 'object' && Object.keys(schema.additionalProperties).length
      ? tsType(schema.additionalProperties, defs, input, indent)
      : 'unknown';
    return orNull(wrap(`Record<string, ${values}>`));
  }
  const primitive = schema.type === 'integer' ? 'number' : ['string', 'number', 'boolean'].includes(schema.type) ? schema.type : 'unknown';
  return orNull(wrap(primitive));
}

function objectType(schema: JsonSchema, defs: JsonSchema, input: boolean, indent: string): string {
  const inner = `${indent}  `;
  const required = new Set<string>(schema.required ?? []);
  const lines = Object.entries<JsonSchema>(schema.properties).map(([key, prop]) => {
    const optional = !required.has(key) || prop.default !== undefined;
    const name = KEY.test(key) ? key : JSON.stringify(key);
    return `${doc(prop.description, inner)}${inner}${name}${optional ? '?' : ''}: ${tsType(prop, defs, input, inner)};`;
  });
  return `{\n${lines.join('\n')}\n${indent}}`;
}

function argsInterface(entry: ResourceEntry): string {
  const schema = jsonSchemaOf(entry.inputs, 'input');
  const defs = schema.$defs ?? {};
  const required = new Set<string>((schema.required ?? []).filter((k: string) => k !== entry.nameInput));
  const field = (key: string, prop: JsonSchema, optional: boolean, type = tsType(prop, defs, true, '  ')) => {
    const description = key === entry.nameInput ? `${prop.description ?? ''} In the SDK it defaults to the resource's name.`.trim() : prop.description;
    return `${doc(description, '  ')}  ${key}${optional ? '?' : ''}: ${type};`;
  };
  const properties = Object.entries<JsonSchema>(schema.properties);
  const variants = inputVariants(entry.inputs);
  if (!variants) {
    const lines = properties.map(([key, prop]) => field(key, prop, !required.has(key) || prop.default !== undefined));
    return `/** The arguments of ${entry.className}. */\nexport interface ${entry.className}Args {\n${lines.join('\n')}\n}\n`;
  }
  // A union on the discriminator: TypeScript then asks for the inputs each variant needs (provider/core/input-flags.ts).
  const inVariant = new Set(Object.values(variants.variants).flatMap((v) => v.only));
  const common = properties.filter(([key]) => !inVariant.has(key) && key !== variants.discriminator)
    .map(([key, prop]) => field(key, prop, !required.has(key) || prop.default !== undefined));
  const byKey = new Map(properties);
  const members = Object.entries(variants.variants).map(([value, v]) => {
    const name = `${entry.className}${value[0].toUpperCase()}${value.slice(1)}Args`;
    const chooser = field(variants.discriminator, byKey.get(variants.discriminator)!, value === variants.defaultValue, `pulumi.Input<${JSON.stringify(value)}>`);
    const lines = v.only.map((key) => field(key, byKey.get(key)!, !v.required.includes(key)));
    return { name, text: `/** The arguments of ${entry.className} with ${variants.discriminator} ${JSON.stringify(value)}. */\nexport interface ${name} extends ${entry.className}CommonArgs {\n${[chooser, ...lines].join('\n')}\n}\n` };
  });
  return [
    `/** The arguments every ${entry.className} takes, whatever its ${variants.discriminator}. */\nexport interface ${entry.className}CommonArgs {\n${common.join('\n')}\n}\n`,
    ...members.map((m) => m.text),
    `/** The arguments of ${entry.className}: one shape per ${variants.discriminator}. */\nexport type ${entry.className}Args = ${members.map((m) => m.name).join(' | ')};\n`,
  ].join('\n');
}

function resourceClass(entry: ResourceEntry): string {
  const schema = jsonSchemaOf(entry.outputs, 'output');
  const defs = schema.$defs ?? {};
  const outputs = Object.entries<JsonSchema>(schema.properties).map(([key, prop]) =>
    `${doc(prop.description, '  ')}  declare readonly ${key}: pulumi.Output<${tsType(prop, defs, false, '  ')}${(schema.required ?? []).includes(key) ? '' : ' | undefined'}>;`,
  );
  const c = entry.className;
  return `/** ${entry.description} */
export class ${c} extends pulumi.dynamic.Resource {
${outputs.join('\n')}

  /** Creates (or, with \`opts.id\`, reads) a ${c} named \`name\`. */
  constructor(name: string, args: ${c}Args, opts?: pulumi.CustomResourceOptions) {
    super(providerFor('${entry.exportName}'), name, resourceProps('${c}', name, args), resourceOptions('${c}', opts), PULUMI_MODULE, '${c}');
  }

  /** Looks up (imports) an existing ${c} by id; its inputs are read back from the cluster. */
  static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions): ${c} {
    return new ${c}(name, undefined as unknown as ${c}Args, { ...opts, id });
  }
}
`;
}

/** The generated module's text. */
export function renderSdkResources(): string {
  return [
    '// Generated by `npm run docs` from the zod models (sdk/registry.ts). Do not edit: a test fails when it is stale.',
    "import * as pulumi from '@pulumi/pulumi';",
    "import { PULUMI_MODULE, providerFor, resourceOptions, resourceProps } from '../runtime';",
    '',
    ...RESOURCES.flatMap((entry) => [argsInterface(entry), resourceClass(entry)]),
  ].join('\n');
}
