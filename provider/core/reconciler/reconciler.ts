/**
 * The one reconciler: every resource's check, diff, create, read, update and delete, from what the resource
 * supplies (resource.ts). It decides what to call, as Crossplane's managed reconciler does; the resource never
 * repeats this skeleton (docs/design/resource-reconciler.md):
 * - check: the model's pure rules; then, when the connection is known, what exists under the resource's names
 *   (someone else's object is refused, with the ways out) and the resource's cluster rules, every failure at once.
 *   A cluster that cannot be reached is one diagnostic (core/unreachable.ts). Cluster failures of inputs unchanged
 *   since the last deployment are left to read (trap 10 of docs/design/dynamic-host-contract.md).
 * - diff: the model's inputs compared (connection inputs aside, which the host wrapper removes); replaceOnChanges
 *   inputs replace, the old object deleted first (every resource names its objects, and a name is taken until its
 *   object is gone).
 * - create/update: observe, refuse what check refuses before any write, converge; a failure after a write is
 *   recorded with what exists (core/partial.ts), so refresh shows it and destroy removes it.
 * - read: observe, then the live objects as inputs (the inverse), drift per property, an unfinished operation's
 *   line kept; an import (the host wrapper says so) records what the cluster holds and nothing it cannot read.
 * - delete: observe; what is not ours is never touched; the resource removes what is.
 */
import { systemClock } from '../../await/clock';
import { HarvesterClient } from '../../client/harvester-client';
import type { KubeObject } from '../../client/objects';
import { notOwnedError } from '../../client/ownership';
import { registerSecret } from '../../client/redact';
import { userInputs } from '../user-inputs';
import { CONNECTION_INPUTS, connectionFor, connectionOrigin, type ConnectionSettings } from '../connection';
import { ProviderError } from '../errors';
import { driftValue, stableStringify } from '../hash';
import { NOT_ON_CLUSTER, changedKeys, withoutUnrecorded } from '../imported';
import { formatFailure, unchangedReferencesDropped } from '../input-errors';
import { inputsFlagged } from '../input-flags';
import { formatRef, parseRef, type ObjectRef } from '../object-ref';
import { recordPartial, unfinishedLines, type WriteOperation } from '../partial';
import { declaredInProgram } from '../program-refs';
import { progressFor, type ProgressSink } from '../progress';
import type { CheckFailure, CheckResult, CreateResult, DiffResult, ReadResult, UpdateResult } from '../types';
import { isUnknown } from '../unknowns';
import { UnreachableClusters } from '../unreachable';
import type { Clock } from '../../await/clock';
import type { ManagedResource, Raw, ResourceContext } from './resource';

/** Injection points: tests, the host wrapper. */
export interface ReconcilerOptions {
  /** How to reach a cluster. @default HarvesterClient.connect */
  connect?: (settings: ConnectionSettings) => Promise<HarvesterClient>;
  /** Progress lines and the object they are about. @default dropped */
  onProgress?: ProgressSink;
  /** Warnings. @default written to stderr */
  onWarning?: (line: string) => void;
  clock?: Clock;
  /** The clusters already explained as unreachable in this process (shared by every hosted provider). */
  unreachable?: UnreachableClusters;
}

/** How a read is asked for (the host wrapper knows an import from a refresh: docs/design/dynamic-host-contract.md). */
export interface ReadOptions {
  /** The engine reads by id alone (`pulumi import`, the import option, `get`): no recorded state. */
  importing?: boolean;
}

/** A provider of the reconciler: the six handlers (ResourceProvider's shape), read taking the import flag. */
export interface ReconciledProvider<O = Raw> {
  check(olds: Raw, news: Raw): Promise<CheckResult<Raw>>;
  diff(id: string, olds: Raw, news: Raw): Promise<DiffResult>;
  create(inputs: Raw): Promise<CreateResult<O>>;
  read(id: string, props?: Raw, options?: ReadOptions): Promise<ReadResult<O>>;
  update(id: string, olds: Raw, news: Raw): Promise<UpdateResult<O>>;
  delete(id: string, props: Raw): Promise<void>;
}

/**
 * A read with no recorded state but connection settings is an import (the engine reads by id alone); the host
 * wrapper says so itself, this is for callers that do not (tests calling the handlers).
 */
export function isImport(recorded: Raw | undefined): boolean {
  return Object.keys(recorded ?? {}).every((k) => k.startsWith('__') || CONNECTION_INPUTS.includes(k));
}

/** The ways out of someone else's object under a resource's name: import it, or delete it if nothing uses it. */
function defaultFix(obj: KubeObject, ref: ObjectRef): string {
  const { name, namespace } = obj.metadata;
  return `Or import it (id "${formatRef(ref)}"), or delete it (\`kubectl delete ${(obj.kind ?? 'object').toLowerCase()}${namespace ? ` -n ${namespace}` : ''} ${name}\`) if nothing uses it.`;
}

/** Lines of check failures in an error thrown at apply time: the property named once, here. */
export function failureLines(failures: readonly CheckFailure[]): string {
  return failures.map((f) => `  - ${formatFailure(f)}`).join('\n');
}

/** A diff's verdict: any change, the inputs that replace, and whether the old object goes first. */
export interface InputsDiff {
  changes: boolean;
  replaces: string[];
  deleteBeforeReplace?: boolean;
}

/**
 * The diff of `resource` (pure): its own, else the model's inputs compared (connection inputs aside; an input the
 * cluster does not record and an import's state lacks takes the program's value), `replaceOnChanges` inputs
 * replacing, recorded drift a change by itself (the next up heals it).
 */
export function diffOf<I extends object, O extends object, L>(resource: ManagedResource<I, O, L>): (olds: Partial<O>, news: Partial<I>) => InputsDiff {
  if (resource.diff) return resource.diff.bind(resource);
  const inputKeys = Object.keys(resource.model.inputs.shape).filter((k) => !CONNECTION_INPUTS.includes(k));
  const replaceInputs = inputsFlagged(resource.model.inputs, 'replaceOnChanges');
  const notOnCluster = [...NOT_ON_CLUSTER, ...(resource.model.notOnCluster ?? [])];
  return (olds, news) => {
    const changed = changedKeys(olds as Raw, news as Raw, inputKeys, notOnCluster);
    const drifted = ((olds as { drift?: string[] }).drift ?? []).length > 0;
    return { changes: changed.length > 0 || drifted, replaces: changed.filter((k) => replaceInputs.includes(k)) };
  };
}

/**
 * The drift lines of `resource` (pure): its own, else one line per input the live objects read back differently
 * from the recorded one ("KeyPair default/ops: labels is {…}, this resource set {…}").
 */
export function driftOf<I extends object, O extends object, L>(resource: ManagedResource<I, O, L>): (recorded: I, live: L, now?: Partial<I>) => string[] {
  return (recorded, live, now = resource.liveInputs(live, recorded as unknown as Partial<O>)) => {
    if (resource.drift) return resource.drift(recorded, live, now);
    const ref = resource.ref(recorded);
    return (Object.keys(now) as (keyof I & string)[])
      .filter((k) => stableStringify(now[k]) !== stableStringify(recorded[k]))
      .map((k) => `${resource.describe(ref)}: ${k} is ${driftValue(now[k])}, this resource set ${driftValue(recorded[k])}`);
  };
}

/** The reconciled provider of `resource`. */
export function reconciledProvider<I extends object, O extends object, L>(resource: ManagedResource<I, O, L>, options: ReconcilerOptions = {}): ReconciledProvider<O> {
  const connect = options.connect ?? ((s: ConnectionSettings) => HarvesterClient.connect(s));
  const warn = options.onWarning ?? ((line: string) => process.stderr.write(`warning: ${resource.type}: ${line}\n`));
  const unreachable = options.unreachable ?? new UnreachableClusters();
  const diff = diffOf(resource);
  const driftLines = driftOf(resource);
  const outputOnly = Object.keys(resource.model.outputs.shape).filter((k) => !(k in resource.model.inputs.shape));
  const notOnCluster = [...NOT_ON_CLUSTER, ...(resource.model.notOnCluster ?? [])];
  const nameInput = resource.nameInput ?? 'name';

  const exists = (live: L | undefined): live is L => live !== undefined && (resource.exists?.(live) ?? true);
  const secretInputs = inputsFlagged(resource.model.inputs, 'secret');
  /**
   * The secret inputs' values, registered for redaction on the way in, so no error or log line of any layer can
   * quote them (a kubeconfig may be a path, which stays readable: the client registers its content when it loads).
   */
  const registerSecrets = (raw: Raw): Raw => {
    for (const key of secretInputs) if (key !== 'kubeconfig' && typeof raw[key] === 'string' && !isUnknown(raw[key])) registerSecret(raw[key] as string);
    return raw;
  };
  const settingsOf = (values: Raw): ConnectionSettings => ({ kubeconfig: values.kubeconfig as string | undefined, context: values.context as string | undefined });

  async function contextFor(operation: ResourceContext['operation'], values: Raw, ref: ObjectRef, importing = false): Promise<ResourceContext> {
    const client = await connect(connectionFor(settingsOf(values)));
    return {
      operation,
      importing,
      client,
      connect,
      progress: progressFor(options.onProgress, ref) ?? (() => undefined),
      warn,
      clock: options.clock ?? systemClock,
    };
  }

  /** The ref an id names (an import's, or a state without its ref inputs). */
  function refOfId(id: string): ObjectRef {
    return resource.scope === 'cluster' ? { name: id } : parseRef(id);
  }

  const refInputs = (ref: ObjectRef): Raw => (resource.refInputs ? (resource.refInputs(ref) as Raw) : { ...(ref.namespace ? { namespace: ref.namespace } : {}), name: ref.name });

  /** The recorded ref, else the id's. */
  function recordedRef(id: string, recorded: Partial<O>): ObjectRef {
    const fromId = refOfId(id);
    const values = { ...refInputs(fromId), ...userInputs(recorded as Raw) } as Partial<I>;
    return resource.ref(values);
  }

  /** check failures for someone else's objects under our names, with the ways out. */
  function foreignFailures(live: L | undefined, ref: ObjectRef, recorded: Partial<O>, inputs: Partial<I>): CheckFailure[] {
    if (live === undefined) return [];
    return resource.foreign(live, ref, recorded, inputs).map((obj) => {
      const err = notOwnedError(obj, resource.owner(ref), 'manage', obj.kind);
      return { property: nameInput, reason: `${err.message} ${resource.foreignFix?.(obj, ref) ?? defaultFix(obj, ref)}` };
    });
  }

  async function check(olds: Raw, news: Raw): Promise<CheckResult<Raw>> {
    const raw = registerSecrets(userInputs(news));
    const v = resource.model.validate(raw);
    const failures = [...v.failures];
    // The cluster is asked only about inputs that pass the pure rules (unknown values aside): a typo is not worth a
    // round trip, and the rules that need the cluster read the values the pure rules vouch for.
    if (failures.length || isUnknown(raw.kubeconfig) || isUnknown(raw.context)) return done();
    const recorded = userInputs(olds) as Partial<O>;
    const known = v.inputs ?? (v.previewInputs as Partial<I> | undefined) ?? (raw as Partial<I>);
    const ref = safeRef(known);
    let ctx: ResourceContext | undefined;
    try {
      ctx = await contextFor('check', raw, ref ?? { name: '-' });
      const live = ref ? await resource.observe(ctx, ref, { ...recorded, ...known } as Partial<O>) : undefined;
      const findings = resource.checkCluster ? await resource.checkCluster(ctx, { inputs: v.inputs, raw, live, recorded, inProgram: declaredInProgram(news) }) : [];
      const { references, always } = Array.isArray(findings) ? { references: findings, always: [] } : findings;
      const parsedOlds = (resource.model.validate(recorded as Raw).inputs ?? recorded) as Raw;
      const seen = new Set(failures.map((f) => f.property));
      // Someone else's object under our name, and names a planned object would take: up meets them whatever changed.
      const found = [...unchangedReferencesDropped(references, parsedOlds, (v.inputs ?? raw) as Raw), ...(ref ? foreignFailures(live, ref, recorded, known) : []), ...always];
      for (const f of found) if (!seen.has(f.property)) failures.push(f);
    } catch (err) {
      const settings = settingsOf(raw);
      failures.push(unreachable.failure(err, { server: ctx?.client.connection.server, origin: connectionOrigin(settings), input: settings.kubeconfig ? 'kubeconfig' : undefined }));
    }
    return done();

    function done(): CheckResult<Raw> {
      if (failures.length) return { inputs: news, failures };
      return { inputs: (v.inputs as Raw | undefined) ?? v.previewInputs ?? raw };
    }
  }

  /** The ref of inputs that may be partly unknown: undefined while its own inputs are unknown. */
  function safeRef(values: Partial<I>): ObjectRef | undefined {
    try {
      const ref = resource.ref(values);
      return typeof ref.name === 'string' && ref.name && !isUnknown(ref.name) && !isUnknown(ref.namespace) ? ref : undefined;
    } catch {
      return undefined;
    }
  }

  function parseChecked(raw: Raw): I {
    const v = resource.model.validate(registerSecrets(userInputs(raw)));
    if (v.inputs) return v.inputs;
    throw new ProviderError('InvalidInputs', `The ${resource.type} inputs are invalid:\n${failureLines(v.failures)}\n`, { fix: 'Fix the inputs above and run again.' });
  }

  /** create/update: observe, refuse before any write, converge; a failure after a write recorded with what exists. */
  async function apply(inputs: I, op: WriteOperation, recorded: Partial<O>): Promise<{ id: string; outs: O }> {
    const ref = resource.ref(inputs);
    const id = formatRef(ref);
    const ctx = await contextFor(op, inputs as Raw, ref);
    const values = { ...recorded, ...inputs } as Partial<O>;
    const outs = await recordPartial(
      async () => {
        const live = await resource.observe(ctx, ref, values);
        const [theirs] = live === undefined ? [] : resource.foreign(live, ref, recorded, inputs);
        if (theirs) throw notOwnedError(theirs, resource.owner(ref), op, theirs.kind);
        const findings = resource.checkBeforeWrite && resource.checkCluster ? await resource.checkCluster(ctx, { inputs, raw: inputs as Raw, live, recorded, inProgram: new Set() }) : [];
        const refused = Array.isArray(findings) ? findings : [...findings.references, ...findings.always];
        if (refused.length) {
          throw new ProviderError('InvalidInputs', `${resource.describe(ref, inputs)} cannot be ${op}d: the cluster refuses the inputs:\n${failureLines(refused)}\n`, { fix: 'Fix the inputs above and run again.' });
        }
        const owned = live !== undefined && resource.owns(live, ref, recorded) ? live : undefined;
        return resource.outputs(inputs, await resource.converge(ctx, inputs, owned, op, recorded), []);
      },
      {
        id,
        op,
        object: resource.describe(ref, inputs),
        observe: async (drift) => {
          const live = await resource.observe(ctx, ref, values);
          return exists(live) && resource.owns(live, ref, recorded) ? resource.outputs(inputs, live, drift) : undefined;
        },
      },
    );
    return { id, outs };
  }

  return {
    check,

    async diff(_id: string, olds: Raw, news: Raw): Promise<DiffResult> {
      const d = diff(olds as Partial<O>, registerSecrets(userInputs(news)) as Partial<I>);
      return { changes: d.changes, replaces: d.replaces, deleteBeforeReplace: d.deleteBeforeReplace ?? d.replaces.length > 0 };
    },

    async create(raw: Raw): Promise<CreateResult<O>> {
      return apply(parseChecked(raw), 'create', {});
    },

    async read(id: string, props?: Raw, readOptions: ReadOptions = {}): Promise<ReadResult<O>> {
      const recorded = userInputs(props) as Partial<O>;
      const importing = readOptions.importing ?? isImport(recorded as Raw);
      const ref = importing ? refOfId(id) : recordedRef(id, recorded);
      const ctx = await contextFor('read', recorded as Raw, ref, importing);
      const live = await resource.observe(ctx, ref, recorded);
      if (!exists(live)) return {};
      if (resource.readBack) {
        const back = resource.readBack(live, recorded, importing);
        return back ? { id: formatRef(ref), props: back.props, inputs: back.inputs } : {};
      }
      const r = recorded as Raw;
      const kept = Object.fromEntries([...notOnCluster, ...CONNECTION_INPUTS].filter((k) => r[k] !== undefined).map((k) => [k, r[k]]));
      const now = resource.liveInputs(live, recorded);
      const inputs = resource.model.inputs.parse({ ...kept, ...refInputs(ref), ...now }) as I;
      const drift = importing ? [] : [...driftLines(recorded as unknown as I, live, now), ...unfinishedLines((recorded as { drift?: string[] }).drift)];
      const read = resource.outputs(inputs, live, drift) as Raw;
      const outs = importing ? withoutUnrecorded(read, notOnCluster) : read;
      const readInputs = Object.fromEntries(Object.entries(outs).filter(([k, v]) => !outputOnly.includes(k) && v !== undefined));
      return { id: formatRef(ref), props: outs as O, inputs: readInputs };
    },

    async update(_id: string, olds: Raw, news: Raw): Promise<UpdateResult<O>> {
      const { outs } = await apply(parseChecked(news), 'update', userInputs(olds) as Partial<O>);
      return { outs };
    },

    async delete(id: string, props: Raw): Promise<void> {
      const recorded = userInputs(props) as Partial<O>;
      const ref = recordedRef(id, recorded);
      const ctx = await contextFor('delete', recorded as Raw, ref);
      const live = await resource.observe(ctx, ref, recorded);
      // Nothing left, or not ours: nothing to do. Leftovers that outlived the main object (exists() false) still go.
      if (live === undefined || !resource.owns(live, ref, recorded)) return;
      await resource.remove(ctx, live, ref, recorded);
    },
  };
}
