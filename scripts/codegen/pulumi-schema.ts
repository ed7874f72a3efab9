/**
 * schema.json, the Pulumi package schema of the resources (pulumi's package metaschema, JSON Schema 2020-12),
 * generated from the zod models through sdk/registry.ts: resources, inputs, outputs, nested object and enum
 * types, descriptions, secrets, defaults and replace-on-changes. Stack config `harvester:kubeconfig` /
 * `harvester:context` is the package config.
 */
import { PACKAGE_NAME, RESOURCES, type ResourceEntry } from '../../sdk/registry';
import { isObjectWithProperties, jsonSchemaOf, pascal, resolve, singular, withoutNull, type JsonSchema } from './json-schema';

type Types = Record<string, JsonSchema>;

function token(name: string): string {
  return `${PACKAGE_NAME}:index:${name}`;
}

/** typeRef converts one JSON Schema to a Pulumi type reference, adding nested object/enum types to `types` under `name`. */
function typeRef(raw: JsonSchema, name: string, defs: JsonSchema, types: Types): JsonSchema {
  const schema = withoutNull(resolve(raw, defs)).schema;
  if (Array.isArray(schema.enum) && schema.enum.every((v: unknown) => typeof v === 'string')) {
    types[token(name)] ??= { type: 'string', description: schema.description ?? `One of ${schema.enum.join(', ')}.`, enum: schema.enum.map((value: string) => ({ value })) };
    return { $ref: `#/types/${token(name)}` };
  }
  if (Array.isArray(schema.anyOf)) return { oneOf: schema.anyOf.map((s: JsonSchema, i: number) => typeRef(s, `${name}${i}`, defs, types)) };
  if (schema.type === 'array') return { type: 'array', items: typeRef(schema.items ?? {}, singular(name), defs, types) };
  if (isObjectWithProperties(schema)) {
    const refName = typeof raw.$ref === 'string' ? String(raw.$ref).split('/').pop()! : name;
    if (!types[token(refName)]) {
      types[token(refName)] = { type: 'object', description: schema.description, properties: {}, required: undefined };
      const spec = objectProperties(schema, refName, defs, types);
      types[token(refName)] = { type: 'object', ...(schema.description ? { description: schema.description } : {}), ...spec };
    }
    return { $ref: `#/types/${token(refName)}` };
  }
  if (schema.type === 'object') {
    const values = schema.additionalProperties && typeof schema.additionalProperties === 'object' ? schema.additionalProperties : {};
    return { type: 'object', additionalProperties: Object.keys(values).length ? typeRef(values, `${name}Value`, defs, types) : { $ref: 'pulumi.json#/Any' } };
  }
  if (['string', 'integer', 'number', 'boolean'].includes(schema.type)) return { type: schema.type };
  return { $ref: 'pulumi.json#/Any' };
}

function propertySpec(raw: JsonSchema, name: string, defs: JsonSchema, types: Types): JsonSchema {
  const spec: JsonSchema = { ...typeRef(raw, name, defs, types) };
  if (raw.description) spec.description = raw.description;
  if (raw.secret) spec.secret = true;
  if (raw.replaceOnChanges) spec.replaceOnChanges = true;
  if (raw.default !== undefined && ['string', 'number', 'boolean'].includes(typeof raw.default)) spec.default = raw.default;
  return spec;
}

function objectProperties(schema: JsonSchema, prefix: string, defs: JsonSchema, types: Types): { properties: JsonSchema; required?: string[] } {
  const properties: JsonSchema = {};
  for (const [key, prop] of Object.entries<JsonSchema>(schema.properties ?? {})) properties[key] = propertySpec(prop, `${prefix}${pascal(key)}`, defs, types);
  const required = (schema.required ?? []).filter((k: string) => !(schema.properties?.[k]?.default !== undefined));
  return required.length ? { properties, required } : { properties };
}

function resourceSpec(entry: ResourceEntry, types: Types): JsonSchema {
  const inputs = jsonSchemaOf(entry.inputs, 'input');
  const outputs = jsonSchemaOf(entry.outputs, 'output');
  const inputSpec = objectProperties(inputs, entry.className, inputs.$defs ?? {}, types);
  const outputSpec = objectProperties(outputs, entry.className, outputs.$defs ?? {}, types);
  const spec: JsonSchema = { description: entry.description, inputProperties: inputSpec.properties, properties: outputSpec.properties };
  if (inputSpec.required) spec.requiredInputs = inputSpec.required.filter((k) => k !== entry.nameInput);
  if (outputSpec.required) spec.required = outputSpec.required;
  return spec;
}

/** The package schema, as an object; `renderPulumiSchema` is its committed text. */
export function pulumiSchema(version: string): JsonSchema {
  const types: Types = {};
  const resources: JsonSchema = {};
  for (const entry of RESOURCES) resources[token(entry.className)] = resourceSpec(entry, types);
  const sortedTypes = Object.fromEntries(Object.entries(types).sort(([a], [b]) => a.localeCompare(b)));
  return {
    name: PACKAGE_NAME,
    displayName: 'Harvester',
    version,
    description: 'Harvester HCI infrastructure as code: machine pools of guest-cluster VMs, load balancers and IP pools, topology labels.',
    keywords: ['pulumi', 'harvester', 'kubevirt', 'rancher', 'category/infrastructure'],
    license: 'Apache-2.0',
    config: {
      variables: {
        kubeconfig: { type: 'string', secret: true, description: 'Kubeconfig of the Harvester cluster (YAML content or a file path). Default: $KUBECONFIG, then ~/.kube/config.' },
        context: { type: 'string', description: 'Kubeconfig context to use. Default: the kubeconfig\'s current-context.' },
      },
    },
    types: sortedTypes,
    resources,
    language: { nodejs: { packageName: 'harvester-iac', dependencies: { '@pulumi/pulumi': '^3.268.0' } } },
  };
}

/** renderPulumiSchema: the committed schema.json text. */
export function renderPulumiSchema(version: string): string {
  return `${JSON.stringify(pulumiSchema(version), null, 2)}\n`;
}
