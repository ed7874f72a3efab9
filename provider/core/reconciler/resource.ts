/**
 * What a resource supplies to the reconciler (reconciler.ts), and nothing more: its model, where its objects are
 * (ref), what exists (observe), how to bring the cluster to its inputs (converge), the inverse that refresh and
 * import share (liveInputs), its outputs, and how to remove what it owns. The reconciler owns the rest: check,
 * diff, create, read, update and delete, ownership, partial-failure recording, import, progress. The model is
 * Crossplane's managed reconciler (its ExternalClient's Observe/Create/Update/Delete, the framework deciding which
 * to call): docs/design/resource-reconciler.md.
 */
import type { z } from 'zod';
import type { Clock } from '../../await/clock';
import type { HarvesterClient } from '../../client/harvester-client';
import type { KubeObject } from '../../client/objects';
import type { OwnerIdentity } from '../../client/ownership';
import type { ConnectionSettings } from '../connection';
import type { ObjectRef } from '../object-ref';
import type { WriteOperation } from '../partial';
import type { CheckFailure } from '../types';
import type { ModelValidation } from '../validate-model';

export type Raw = Record<string, unknown>;

/** What one call works with. */
export interface ResourceContext {
  /** The handler call this context serves (observe reads only what that call needs). */
  operation: 'check' | 'create' | 'read' | 'update' | 'delete';
  /** A read by id alone (`pulumi import`, the import option, `get`): the host wrapper says so. */
  importing: boolean;
  /** The Harvester cluster of this call (the resource's override, else stack config, else $KUBECONFIG). */
  client: HarvesterClient;
  /** Another cluster (a guest's), from credentials the resource holds; no stack-config fallback. */
  connect(settings: ConnectionSettings): Promise<HarvesterClient>;
  /** A progress line about this call's object (the host wrapper prints it under the resource). */
  progress(line: string): void;
  /** A warning the user should read (printed on the host's stderr). */
  warn(line: string): void;
  clock: Clock;
}

/** The model: the one source of inputs, outputs and the pure rules. */
export interface ResourceModel<I> {
  /** The inputs (zod strict object): types, check, SDK class, schema.json and docs derive from it. */
  inputs: z.ZodObject;
  /** The outputs: the inputs plus what the cluster reports, and `drift`. */
  outputs: z.ZodObject;
  /** check's pure rules: the model plus what it cannot state, every failure at once. */
  validate(raw: Raw): ModelValidation<I>;
  /** Inputs no Harvester object records (besides `timeouts`): an import's state lacks them. */
  notOnCluster?: readonly string[];
}

/** What check knows besides the inputs. */
export interface ClusterCheck<I, O, L> {
  /** The inputs with defaults; undefined while some are unknown (a preview) or invalid. */
  inputs?: I;
  /** The inputs as given, unknown values (preview) included. */
  raw: Raw;
  /** What exists under the resource's name now (undefined when nothing, or the name is unknown). */
  live?: L;
  /** The recorded state (an update's olds), empty on create. */
  recorded: Partial<O>;
  /** Reference inputs whose object another resource of the same program creates (core/program-refs.ts). */
  inProgram: ReadonlySet<string>;
}

/**
 * What checkCluster found: failures about references (an image, a host, a pool), which check leaves to read while
 * the inputs are unchanged since the last deployment (trap 10 of docs/design/dynamic-host-contract.md), and
 * failures up would meet whatever the inputs (names a planned object would take), which are always reported.
 */
export type ClusterFindings = CheckFailure[] | { references: CheckFailure[]; always: CheckFailure[] };

/** A read's result assembled by the resource itself (its outputs and the inputs the live objects stand for). */
export interface ReadBack<O> {
  props: O;
  inputs: Raw;
}

/** The desired state reached: what exists afterwards, for the outputs. */
export interface ManagedResource<I extends object, O extends object, L> {
  /** The SDK class name, e.g. "HarvesterKeyPair" (messages, progress lines). */
  readonly type: string;
  readonly model: ResourceModel<I>;
  /** Namespaced resources have ids "namespace/name"; cluster-scoped ones a name. */
  readonly scope: 'namespaced' | 'cluster';
  /** The input holding the name, where a refusal about the name is reported. @default "name" */
  readonly nameInput?: string;
  /** Where its objects are, from inputs or recorded outputs (which carry the inputs). */
  ref(values: Partial<I>): ObjectRef;
  /** The inputs an id stands for (filled into an import's inputs). @default { namespace, name } */
  refInputs?(ref: ObjectRef): Partial<I>;
  /** "KeyPair default/ops": the object as messages name it (`values`: the inputs or recorded state, where known). */
  describe(ref: ObjectRef, values?: Partial<I>): string;
  /** The ownership its objects' labels carry. */
  owner(ref: ObjectRef): OwnerIdentity;

  /**
   * What exists of the resource under `ref`, ours or not; undefined when nothing does. `values` are the inputs
   * being checked or applied over the recorded state (read and delete: the recorded state alone).
   */
  observe(ctx: ResourceContext, ref: ObjectRef, values: Partial<O>): Promise<L | undefined>;
  /**
   * True when the resource itself exists (read answers "gone" otherwise; a failed apply records only then), for
   * resources whose leftovers may outlive their main object. @default anything observed
   */
  exists?(live: L): boolean;
  /** True when what exists is this resource's: delete and drift read only that. */
  owns(live: L, ref: ObjectRef, recorded: Partial<O>): boolean;
  /**
   * The objects under the resource's names that are someone else's: check refuses them, apply never writes them.
   * `inputs` are the new inputs where known (some objects are written only for some inputs).
   */
  foreign(live: L, ref: ObjectRef, recorded: Partial<O>, inputs?: Partial<I>): KubeObject[];
  /** The way out of a foreign object check names after "Refusing to manage …". @default import it, or delete it with kubectl */
  foreignFix?(obj: KubeObject, ref: ObjectRef): string | undefined;
  /** The rules that need the cluster (check runs them; apply too, before its first write, with checkBeforeWrite). */
  checkCluster?(ctx: ResourceContext, check: ClusterCheck<I, O, L>): Promise<ClusterFindings>;
  /**
   * Apply runs checkCluster again before its first write: for rules the API would accept and regret (a binding to
   * a role that does not exist, VMs that can never be placed). Others are refused by Harvester's own webhooks.
   */
  readonly checkBeforeWrite?: boolean;

  /** Brings the cluster to `inputs` from `live` (ours, or nothing), waiting until it serves; what exists then. */
  converge(ctx: ResourceContext, inputs: I, live: L | undefined, op: WriteOperation, recorded: Partial<O>): Promise<L>;
  /**
   * The inverse of what converge writes: the inputs the live objects stand for, every input the cluster records
   * (an absent one as undefined), so a refresh shows an out-of-band edit per property and an import is complete.
   */
  liveInputs(live: L, recorded: Partial<O>): Partial<I>;
  /**
   * A read assembled by the resource from what it observed, for a resource whose outputs keep more than its inputs
   * and what the cluster reports (a machine pool keeps VMs found missing, secret inputs only as digests). It must
   * still be the inverse liveInputs states, drift included. @default liveInputs, drift and outputs, put together
   */
  readBack?(live: L, recorded: Partial<O>, importing: boolean): ReadBack<O> | undefined;
  /** The outputs: the inputs plus what the cluster reports, with `drift`. */
  outputs(inputs: I, live: L, drift: string[]): O;
  /** One line per input the live objects changed since we wrote them. @default per input liveInputs returns */
  drift?(recorded: I, live: L, now: Partial<I>): string[];
  /** Which inputs changed, and which of them replace. @default the model's inputs, replaceOnChanges flags */
  diff?(olds: Partial<O>, news: Partial<I>): { changes: boolean; replaces: string[]; deleteBeforeReplace?: boolean };

  /** Removes what exists of ours (refusing, with the reason, while something uses it), waiting until it is gone. */
  remove(ctx: ResourceContext, live: L, ref: ObjectRef, recorded: Partial<O>): Promise<void>;
}
