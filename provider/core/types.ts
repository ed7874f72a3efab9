/**
 * Our own mirror of the `@pulumi/pulumi/dynamic` ResourceProvider contract (pulumi 3.270.0
 * `dynamic/index.d.ts`). `@pulumi/pulumi` is not a dependency of the provider package, so the handlers are
 * typed against these structurally identical interfaces; the SDK passes them to `dynamic.Resource` as is.
 *
 * What the dynamic host really forwards (docs/design/dynamic-host-contract.md §"Each call"): `DiffResult.stables`
 * and any detailed diff are dropped, so the reasons behind a diff travel in error messages and outputs instead.
 */

/** A Pulumi resource id. */
export type ID = string;

/** One invalid input: `property` is the input path as the user wrote it (`disks[0].size`). */
export interface CheckFailure {
  readonly property: string;
  readonly reason: string;
}

/** Result of `check`: the inputs to use (defaults filled) or the failures. */
export interface CheckResult<Inputs = Record<string, unknown>> {
  readonly inputs?: Inputs;
  readonly failures?: CheckFailure[];
}

/** Result of `diff`. `changes: false` means nothing to do; `replaces` lists input names forcing a replace. */
export interface DiffResult {
  readonly changes?: boolean;
  readonly replaces?: string[];
  readonly stables?: string[];
  readonly deleteBeforeReplace?: boolean;
}

/** Result of `create`. */
export interface CreateResult<Outputs = Record<string, unknown>> {
  readonly id: ID;
  readonly outs?: Outputs;
}

/** Result of `read`. An `id` of `''` or undefined tells the engine the resource is gone. */
export interface ReadResult<Outputs = Record<string, unknown>> {
  readonly id?: ID;
  readonly props?: Outputs;
  /** Inputs reconstructed from the live objects, so a refresh followed by a diff shows drift per property. */
  readonly inputs?: Record<string, unknown>;
}

/** Result of `update`. */
export interface UpdateResult<Outputs = Record<string, unknown>> {
  readonly outs?: Outputs;
}

/** The shape of Pulumi's `dynamic.ResourceProvider`, with every optional handler implemented by ours. */
export interface ResourceProvider<Inputs = Record<string, unknown>, Outputs = Record<string, unknown>> {
  check(olds: Inputs, news: Inputs): Promise<CheckResult<Inputs>>;
  diff(id: ID, olds: Outputs, news: Inputs): Promise<DiffResult>;
  create(inputs: Inputs): Promise<CreateResult<Outputs>>;
  /** `options.importing`: the engine reads by id alone (the host wrapper tells; other callers may leave it out). */
  read(id: ID, props?: Outputs, options?: { importing?: boolean }): Promise<ReadResult<Outputs>>;
  update(id: ID, olds: Outputs, news: Inputs): Promise<UpdateResult<Outputs>>;
  delete(id: ID, props: Outputs): Promise<void>;
}
