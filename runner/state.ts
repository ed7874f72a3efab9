/**
 * The local runner's state: one JSON file per stack, resources in registration order (deletes run in reverse).
 * Secret properties are sealed (secrets.ts); everything else is plain, as in a Pulumi checkpoint.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SecretBox } from './secrets';

type Raw = Record<string, unknown>;

/** One managed resource, with secrets open (in memory). */
export interface ResourceState {
  urn: string;
  type: string;
  name: string;
  id: string;
  /** Checked inputs, as recorded after the last successful operation (the engine's `inputs`). */
  inputs: Raw;
  /** The provider's outputs (the engine's `outputs`); __provider included. */
  outputs: Raw;
  /** Top-level properties that are secret (inputs given as secrets, plus additionalSecretOutputs). */
  secretKeys: string[];
  /** The resource's last operation failed part-way: the next up must converge it. */
  pendingReason?: string;
  /** The `replacementTrigger` option's value when it was last created or updated (a change replaces it). */
  replacementTrigger?: unknown;
}

export interface StackState {
  stack: string;
  project: string;
  resources: ResourceState[];
  outputs: Raw;
  outputSecretKeys: string[];
}

interface StoredResource extends Omit<ResourceState, 'inputs' | 'outputs'> {
  inputs: Raw;
  outputs: Raw;
}

/** StateStore reads and writes `<dir>/<stack>.json` (atomically), sealing secrets with `<dir>/<stack>.key`. */
export class StateStore {
  readonly path: string;
  private readonly box: SecretBox;

  constructor(
    readonly dir: string,
    readonly stack: string,
  ) {
    this.path = join(dir, `${stack}.json`);
    this.box = SecretBox.forKeyFile(join(dir, `${stack}.key`));
  }

  load(project: string): StackState {
    if (!existsSync(this.path)) return { stack: this.stack, project, resources: [], outputs: {}, outputSecretKeys: [] };
    const doc = JSON.parse(readFileSync(this.path, 'utf8')) as { resources: StoredResource[]; outputs?: Raw; outputSecretKeys?: string[]; project: string };
    return {
      stack: this.stack,
      project: doc.project ?? project,
      resources: doc.resources.map((r) => ({
        ...r,
        inputs: this.box.openProps(r.inputs, r.secretKeys),
        outputs: this.box.openProps(r.outputs, r.secretKeys),
      })),
      outputs: this.box.openProps(doc.outputs ?? {}, doc.outputSecretKeys ?? []),
      outputSecretKeys: doc.outputSecretKeys ?? [],
    };
  }

  save(state: StackState): void {
    const doc = {
      version: 1,
      note: 'harvester-iac local runner state; secret properties are sealed with the key file beside this one',
      project: state.project,
      stack: state.stack,
      resources: state.resources.map((r) => ({
        ...r,
        inputs: this.box.sealProps(r.inputs, r.secretKeys),
        outputs: this.box.sealProps(r.outputs, r.secretKeys),
      })),
      outputs: this.box.sealProps(state.outputs, state.outputSecretKeys),
      outputSecretKeys: state.outputSecretKeys,
    };
    mkdirSync(dirname(this.path), { recursive: true });
    const tmp = `${this.path}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(doc, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, this.path);
  }
}
