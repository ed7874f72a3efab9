/**
 * What every SDK class shares (the classes themselves are generated: sdk/generated/resources.ts).
 *
 * The provider objects are what Pulumi serializes into every resource's state as `__provider`: each method
 * only requires `harvester-iac/provider` by name when it runs and delegates to the named export, so the text
 * stays under 2 KB, captures nothing secret or live, and upgrading the package upgrades existing stacks.
 * Module-level, one per resource type: Pulumi caches the serialization per object (docs/design/dynamic-host-contract.md
 * §"The provider's text").
 */
import * as pulumi from '@pulumi/pulumi';
import { inputReferences, inputsFlagged } from '../provider/core/input-flags';
import { formatPath } from '../provider/core/input-errors';
import { naturalCompare } from '../provider/core/natural-order';
import { PROGRAM_REFS_KEY } from '../provider/core/program-refs';
import { RESOURCES, entryOf, type ResourceEntry } from './registry';

/** The module of the type tokens: `pulumi-nodejs:dynamic/harvester:<Class>` (permanent: in users' state). */
export const PULUMI_MODULE = 'harvester';

/**
 * makeProvider builds the provider object for export `e` of harvester-iac/provider: every method requires the
 * entry when it runs and calls the export's method of the same name. Everything it uses is inside the closure;
 * names are short because this text is stored in every resource's state (under 2 KB, tested).
 */
function makeProvider(e: string): pulumi.dynamic.ResourceProvider {
  // `require` runs in the dynamic-provider host, resolved from the program's folder (trap 14 of
  // docs/design/dynamic-host-contract.md).
  const d = (m: string, a: unknown[]) => require('harvester-iac/provider')[e][m](...a);
  return {
    configure: (...a) => d('configure', a),
    check: (...a) => d('check', a),
    diff: (...a) => d('diff', a),
    create: (...a) => d('create', a),
    read: (...a) => d('read', a),
    update: (...a) => d('update', a),
    delete: (...a) => d('delete', a),
  };
}

const providers = new Map<string, pulumi.dynamic.ResourceProvider>();

/** providerFor returns the one provider object of an export (created on first use). */
export function providerFor(exportName: string): pulumi.dynamic.ResourceProvider {
  let provider = providers.get(exportName);
  if (!provider) providers.set(exportName, (provider = makeProvider(exportName)));
  return provider;
}

/**
 * resourceProps: the props handed to dynamic.Resource. The args are copied (dynamic.Resource mutates what it
 * is given), secret inputs wrapped in pulumi.secret, `null` left to mean absent (the provider drops it), and
 * every output declared as undefined (an output not in the props does not exist on the resource). With no
 * args (`get`), only the outputs are declared: the provider reads the inputs back from the cluster.
 */
export function resourceProps(className: string, name: string, args: object | undefined): pulumi.Inputs {
  const entry = entryOf(className);
  const props: Record<string, unknown> = args === undefined ? {} : { ...(args as Record<string, unknown>) };
  if (args !== undefined) {
    for (const key of inputsFlagged(entry.inputs, 'secret')) {
      if (props[key] !== undefined && props[key] !== null) props[key] = pulumi.secret(props[key] as pulumi.Input<unknown>);
    }
    if (entry.nameInput && (props[entry.nameInput] === undefined || props[entry.nameInput] === null)) props[entry.nameInput] = name;
    declaredClasses.add(className);
    const fromProgram = inputsFromProgram(entry, props);
    const unset = unsetReferences(entry, props);
    if (unset.length) props[PROGRAM_REFS_KEY] = withUnsetDeclared(fromProgram, unset);
    else if (fromProgram.length) props[PROGRAM_REFS_KEY] = fromProgram;
  }
  for (const key of Object.keys(entry.outputs.shape)) if (!(key in props)) props[key] = undefined;
  return props as pulumi.Inputs;
}

/** The type token of our resource class `className` (`pulumi-nodejs:dynamic/harvester:<Class>`). */
function typeToken(className: string): string {
  return `pulumi-nodejs:dynamic/${PULUMI_MODULE}:${className}`;
}

/** True when `value` is an Output that comes from a resource of class `className` of this program. */
function comesFrom(value: unknown, className: string): boolean {
  const output = value as { resources?: () => Set<unknown> } | undefined;
  if (!pulumi.Output.isInstance(output) || typeof output.resources !== 'function') return false;
  return [...output.resources()].some((r) => (r as { __pulumiType?: unknown }).__pulumiType === typeToken(className));
}

/**
 * The input paths a reference pattern (`ipPool`, `disks[].image`, `sshKeys[]`: core/input-flags.ts) reaches in
 * `props` whose value is an Output of a resource of `className`. The walk stops at the first Output on the way:
 * a whole list or element given as one Output is named itself (`sshKeys`), its contents being unknown here.
 */
function pathsFromProgram(props: Record<string, unknown>, pattern: string, className: string): string[] {
  const steps = pattern.match(/\[\]|[^.[\]]+/g) ?? [];
  const out: string[] = [];
  const walk = (value: unknown, at: number, path: (string | number)[]) => {
    if (pulumi.Output.isInstance(value)) {
      if (comesFrom(value, className)) out.push(formatPath(path));
      return;
    }
    if (at === steps.length || value === null || typeof value !== 'object') return;
    const step = steps[at];
    if (step === '[]') {
      if (Array.isArray(value)) value.forEach((item, i) => walk(item, at + 1, [...path, i]));
    } else if (!Array.isArray(value)) {
      walk((value as Record<string, unknown>)[step], at + 1, [...path, step]);
    }
  };
  walk(props, 0, []);
  return out;
}

/**
 * The reference inputs (model `.meta({ references })`) whose value is an Output of a resource of the referenced
 * class declared in this program, e.g. `ipPool: pool.name` or `sshKeys: [key.id]`, as paths (`ipPool`,
 * `sshKeys[0]`): check lets them through at preview, when that resource does not exist yet
 * (provider/core/program-refs.ts). An Output knows the resources it comes from (`resources()`, kept by the SDK
 * for dependency tracking); anything else (a plain string) is not marked.
 */
export function inputsFromProgram(entry: ResourceEntry, props: Record<string, unknown>): string[] {
  const paths = Object.entries(inputReferences(entry.inputs)).flatMap(([pattern, target]) => pathsFromProgram(props, pattern, target));
  return [...new Set(paths)].sort(naturalCompare);
}

/** The classes of our resources this program has declared so far (this process runs one program). */
const declaredClasses = new Set<string>();

/**
 * The optional top-level reference inputs left unset, with their class (e.g. a load balancer without `ipPool`,
 * for which Harvester then chooses a pool): a resource of that class the program declares may be the one used.
 */
function unsetReferences(entry: ResourceEntry, props: Record<string, unknown>): [string, string][] {
  return Object.entries(inputReferences(entry.inputs)).filter(([path]) => /^\w+$/.test(path) && (props[path] === undefined || props[path] === null));
}

/**
 * `fromProgram` plus the unset references whose class the program declares, once the program has declared its
 * resources: resolved on the event loop's next turn, after the program's synchronous body (a resource declared after
 * an `await` in an async program is not seen: referencing it, e.g. `ipPool: pool.name`, is the sure way, and also
 * orders the creates). Undefined when nothing is named.
 */
function withUnsetDeclared(fromProgram: string[], unset: [string, string][]): Promise<string[] | undefined> {
  return new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
    const named = [...fromProgram, ...unset.filter(([, className]) => declaredClasses.has(className)).map(([path]) => path)];
    return named.length ? [...new Set(named)].sort(naturalCompare) : undefined;
  });
}

/** resourceOptions adds the resource's derived secret outputs (digests of secrets, …) to additionalSecretOutputs. */
export function resourceOptions(className: string, opts: pulumi.CustomResourceOptions | undefined): pulumi.CustomResourceOptions {
  const entry = entryOf(className);
  const secrets = [...new Set([...(opts?.additionalSecretOutputs ?? []), ...inputsFlagged(entry.outputs, 'secret')])];
  return { ...opts, additionalSecretOutputs: secrets };
}
