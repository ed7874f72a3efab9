/**
 * The engine's part of one operation, as the Pulumi engine plays it for dynamic resources: for each registration
 * check → (create | diff → same / update / replace) through the real dynamic-provider host, resources no longer
 * registered deleted after the program ends, refresh = read. In a preview nothing is written: creates and updates
 * answer with the checked inputs, so the program sees the outputs as unknown, as under `pulumi preview`.
 * The state is saved after every completed step (a checkpoint), so a failure part-way loses nothing.
 */
import { DynamicHostError, type DynamicHost } from './dynamic-host';
import { Display, propertyChanges, type CountKey, type ResourceFailure, type StepOp } from './display';
import type { MonitorHandler, Registration } from './monitor';
import { DEFAULT_REFRESH_PARALLEL, refreshResources } from './refresh';
import { unwrapSecrets, wrapSecrets } from './secrets';
import { progressObject } from '../provider/core/progress';
import { RESOURCES, progressObjectOf } from '../provider/registry';
import { parseProgressLine } from '../provider/host/progress';
import { formatFailure } from '../provider/core/input-errors';
import type { CheckFailure } from '../provider/core/types';
import type { ResourceState, StackState, StateStore } from './state';

type Raw = Record<string, unknown>;

const STACK_TYPE = 'pulumi:pulumi:Stack';
/** A dynamic resource's type: `pulumi-nodejs:dynamic:Resource`, or `pulumi-nodejs:dynamic/<module>:<type>` when named. */
const DYNAMIC_TYPE = /^pulumi-nodejs:dynamic(\/[^:]+)?:[^:]+$/;

/**
 * How the SDK names a registration that failed in the errors it raises (@pulumi/pulumi runtime/resource.js): the
 * registration answered as failed ("resource <name> [<type>] failed to register") and one the monitor refused
 * ("failed to register new resource <name> [<type>]: …"). The program's unhandled-error report quoting either
 * only repeats a failure the step already reported.
 */
/**
 * The hint of the SDK's missing-config error (@pulumi/pulumi config.js: "please set a value using the command
 * `pulumi config set …`"), which the runner answers with its own `config set`.
 */
const PULUMI_CONFIG_SET = /`pulumi config set /g;

const SDK_REGISTRATION_FAILED = [/\bresource (\S+) \[[^\]]+\] failed to register\b/g, /\bfailed to register new resource (\S+) \[[^\]]+\]/g];

export interface DeploymentOptions {
  host: DynamicHost;
  state: StackState;
  store: StateStore;
  dryRun: boolean;
  display: Display;
  /** --diff: every changed property with its whole value. */
  full?: boolean;
  /** Interval of "still creating…" lines. @default 5000 */
  progressEveryMs?: number;
  /**
   * The command that sets config, for the SDK's "Missing required configuration variable" hint, which names
   * `pulumi config set`. @default "npx harvester-iac-run config set"
   */
  configSetCommand?: string;
}

/** What the monitor answers for a registration: its URN, id and outputs, or that its step failed. */
export interface RegisterAnswer {
  urn: string;
  id: string;
  object: Raw;
  /** The step failed (reported as the resource's diagnostic); the SDK is told with Result FAIL. */
  failed?: boolean;
}

/** Deployment: the steps of one preview/up/refresh/destroy, and their counts. */
export class Deployment implements MonitorHandler {
  readonly counts: Partial<Record<CountKey, number>> = {};
  /** The resources whose step failed, each with its message (the engine's per-resource diagnostics). */
  readonly failures: ResourceFailure[] = [];
  private readonly registered = new Set<string>();
  /**
   * The steps of this operation by the resource type and object their provider's progress lines name. Kept
   * after a step ends: the host may print a call's last line just before it answers, and the two travel apart.
   */
  private readonly progressTargets = new Map<string, { op: StepOp; type: string; name: string; verb: string }>();
  private readonly qualifiedTypes = new Map<string, string>();
  private stackUrn = '';
  private stackOutputs: { outputs: Raw; secretKeys: string[] } | undefined;

  constructor(private readonly o: DeploymentOptions) {}

  private get state(): StackState {
    return this.o.state;
  }

  private count(op: CountKey): void {
    this.counts[op] = (this.counts[op] ?? 0) + 1;
  }

  /** A failed step: counted as failed, never as the change it attempted, and reported once under the resource. */
  private fail(r: { type: string; name: string }, err: unknown): void {
    this.count('failed');
    this.failures.push({ type: r.type, name: r.name, message: err instanceof Error ? err.message : String(err) });
  }

  /** Every failure as "<name>: <message>". */
  get errors(): string[] {
    return this.failures.map((f) => `${f.name}: ${f.message}`);
  }

  /** Changes planned or made (everything but unchanged and reads). */
  get changeCount(): number {
    return (['create', 'update', 'replace', 'delete'] as StepOp[]).reduce((n, op) => n + (this.counts[op] ?? 0), 0);
  }

  private urnFor(type: string, name: string, parent: string): string {
    const parentType = parent && parent !== this.stackUrn ? this.qualifiedTypes.get(parent) : undefined;
    const qualified = parentType ? `${parentType}$${type}` : type;
    const urn = `urn:pulumi:${this.state.stack}::${this.state.project}::${qualified}::${name}`;
    if (type !== STACK_TYPE) this.qualifiedTypes.set(urn, qualified);
    return urn;
  }

  private find(urn: string): ResourceState | undefined {
    return this.state.resources.find((r) => r.urn === urn);
  }

  private record(resource: ResourceState): void {
    const i = this.state.resources.findIndex((r) => r.urn === resource.urn);
    if (i >= 0) this.state.resources[i] = resource;
    else this.state.resources.push(resource);
    this.o.store.save(this.state);
  }

  private forget(urn: string): void {
    this.state.resources = this.state.resources.filter((r) => r.urn !== urn);
    this.o.store.save(this.state);
  }

  /**
   * Runs `work` on the resource whose properties are `props`, printing progress lines while it waits (the time
   * taken, and the provider's own progress lines about its object) and the step's result when it ends.
   */
  private async timed<T>(op: StepOp, r: { type: string; name: string }, props: Raw, verb: string, work: () => Promise<T>): Promise<T> {
    const started = Date.now();
    const seconds = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;
    this.o.display.step(op, r.type, r.name, `${verb}...`);
    const timer = setInterval(() => this.o.display.step(op, r.type, r.name, `${verb}... (${seconds()})`), this.o.progressEveryMs ?? 5000);
    const key = progressKey(r.type, props);
    this.progressTargets.set(key, { op, type: r.type, name: r.name, verb });
    try {
      const result = await work();
      this.o.display.step(op, r.type, r.name, `${pastTense(verb)} (${seconds()})`);
      return result;
    } catch (err) {
      this.o.display.step(op, r.type, r.name, `**${verb} failed** (${seconds()})`);
      throw err;
    } finally {
      clearInterval(timer);
    }
  }

  /**
   * A line the provider printed on the host's standard output. Its progress lines ("HarvesterMachinePool
   * default/workers: 2/3 VMs ready; …") go under the resource being worked on; anything else is shown as is.
   * A line naming an object other than the one the inputs' `name` gives (GuestClusterCredentials reports on its
   * ServiceAccount) goes under the only step of its type, when there is only one.
   */
  providerOutput(line: string): void {
    const progress = parseProgressLine(line);
    const ofType = progress ? [...this.progressTargets].filter(([key]) => key.startsWith(`${progress.resource} `)) : [];
    const step = progress && (this.progressTargets.get(`${progress.resource} ${progress.object}`) ?? (ofType.length === 1 ? ofType[0][1] : undefined));
    if (step) this.o.display.step(step.op, step.type, step.name, `${step.verb}... ${progress!.text}`);
    else this.o.display.line(`    ${line}`);
  }

  /**
   * A failed step answers like the engine answers an SDK that supports result reporting: Result FAIL, so the
   * SDK fails that resource's outputs (and what depends on them) while the program's other resources go on.
   */
  async register(reg: Registration): Promise<RegisterAnswer> {
    const urn = this.urnFor(reg.type, reg.name, reg.parent);
    this.registered.add(urn);
    if (reg.type === STACK_TYPE) this.stackUrn = urn;
    if (!reg.custom) return { urn, id: '', object: {} };
    if (!DYNAMIC_TYPE.test(reg.type)) {
      throw new Error(`${reg.type} ${reg.name}: the local runner drives dynamic-provider resources only; use the Pulumi CLI for provider packages`);
    }
    if (reg.importId) throw new Error(`${reg.name}: the import option is not supported by the local runner; use the Pulumi CLI (docs/guides/import-and-adoption.md)`);
    try {
      return await this.step(urn, reg);
    } catch (err) {
      this.fail(reg, err);
      return { urn, id: '', object: {}, failed: true };
    }
  }

  private async step(urn: string, reg: Registration): Promise<RegisterAnswer> {
    const { host, dryRun, display } = this.o;
    const { plain, secretKeys: secretInputs } = unwrapSecrets(reg.object);
    const secretKeys = [...new Set([...secretInputs, ...reg.additionalSecretOutputs])].sort();
    const old = this.find(urn);
    const news = { ...plain };
    for (const key of reg.ignoreChanges) if (old && key in old.inputs) news[key] = old.inputs[key];
    const checked = await host.check(urn, old?.inputs ?? {}, news);
    if (checked.failures.length) {
      display.step(old ? 'update' : 'create', reg.type, reg.name, '**failed**');
      throw new Error(checkFailureMessage(checked.failures));
    }
    const inputs = checked.inputs;
    const result = (id: string, outputs: Raw) => ({ urn, id, object: wrapSecrets(outputs, secretKeys) });
    const base = { urn, type: reg.type, name: reg.name, secretKeys, ...(reg.replacementTrigger !== undefined ? { replacementTrigger: reg.replacementTrigger } : {}) };

    if (!old) {
      if (dryRun) {
        this.count('create');
        display.step('create', reg.type, reg.name, 'create');
        return result('', inputs);
      }
      const created = await this.guard(base, inputs, () => this.timed('create', reg, inputs, 'creating', () => host.create(urn, inputs)));
      this.record({ ...base, id: created.id, inputs, outputs: created.properties });
      this.count('create');
      return result(created.id, created.properties);
    }

    const diff = await host.diff(urn, old.id, old.outputs, inputs);
    // The replacementTrigger option: the engine replaces the resource when its value moved (an unknown one moves).
    const triggered = reg.replacementTrigger !== undefined && old.replacementTrigger !== undefined && JSON.stringify(reg.replacementTrigger) !== JSON.stringify(old.replacementTrigger);
    if (diff.changes === 'none' && !triggered) {
      // A trigger set on a resource that had none is recorded, so its next move replaces.
      if (!dryRun && reg.replacementTrigger !== undefined && old.replacementTrigger === undefined) this.record({ ...old, replacementTrigger: reg.replacementTrigger });
      this.count('same');
      return result(old.id, old.outputs);
    }
    const details = propertyChanges(old.inputs, inputs, { secretKeys, replaceKeys: diff.replaces, full: this.o.full });
    if (triggered) details.push('replacementTrigger changed (what it follows was replaced)');
    if (!details.length) details.push('(the live objects differ from the recorded state; see `drift` after a refresh)');
    const replace = diff.replaces.length > 0 || triggered;
    const op: StepOp = replace ? 'replace' : 'update';
    display.step(op, reg.type, reg.name, op, details);
    if (dryRun) {
      this.count(op);
      return result(old.id, inputs);
    }
    if (!replace) {
      const updated = await this.guard({ ...base, id: old.id }, inputs, () => this.timed(op, reg, inputs, 'updating', () => host.update(urn, old.id, old.outputs, inputs)));
      this.record({ ...base, id: old.id, inputs, outputs: updated.properties });
      this.count(op);
      return result(old.id, updated.properties);
    }
    const deleteFirst = diff.deleteBeforeReplace || reg.deleteBeforeReplace;
    if (deleteFirst) {
      await this.timed('delete', reg, old.outputs, 'deleting original', () => host.delete(urn, old.id, old.outputs));
      this.forget(urn);
    }
    const created = await this.guard(base, inputs, () => this.timed('create', reg, inputs, 'creating replacement', () => host.create(urn, inputs)));
    if (!deleteFirst) await this.timed('delete', reg, old.outputs, 'deleting original', () => host.delete(urn, old.id, old.outputs));
    this.record({ ...base, id: created.id, inputs, outputs: created.properties });
    this.count(op);
    return result(created.id, created.properties);
  }

  /** A partial failure (the host's ErrorResourceInitFailed) is recorded, so refresh, the next up and destroy see it. */
  private async guard<T>(base: Omit<ResourceState, 'id' | 'inputs' | 'outputs'> & { id?: string }, inputs: Raw, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (err instanceof DynamicHostError && err.initFailure) {
        this.record({ ...base, id: err.initFailure.id || base.id || '', inputs, outputs: err.initFailure.properties });
      }
      throw err;
    }
  }

  async read(req: { type: string; name: string; parent: string; id: string; properties: Raw; additionalSecretOutputs: string[] }): Promise<{ urn: string; properties: Raw }> {
    const urn = this.urnFor(req.type, req.name, req.parent);
    this.registered.add(urn);
    const { plain, secretKeys } = unwrapSecrets(req.properties);
    const read = await this.o.host.read(urn, req.id, plain, plain);
    if (!read.id) throw new Error(`${req.name}: ${req.id} does not exist`);
    this.count('read');
    this.o.display.step('read', req.type, req.name, `read ${req.id}`);
    return { urn, properties: wrapSecrets(read.properties, [...new Set([...secretKeys, ...req.additionalSecretOutputs])]) };
  }

  registerOutputs(urn: string, outputs: Raw): void {
    if (urn !== this.stackUrn) return;
    const { plain, secretKeys } = unwrapSecrets(outputs);
    this.stackOutputs = { outputs: plain, secretKeys };
  }

  /**
   * The program's log lines. An error that only repeats a failure already reported under its resource (the
   * SDK's unhandled-error report of the failed registration, stack and all) is not shown again: the resource's
   * diagnostic says it once, as under the Pulumi CLI.
   */
  log(severity: 'debug' | 'info' | 'warning' | 'error', message: string): void {
    if (severity === 'debug') return;
    if (severity === 'error' && this.repeatsReportedFailure(message)) return;
    const text = message.replace(PULUMI_CONFIG_SET, `\`${this.o.configSetCommand ?? 'npx harvester-iac-run config set'} `);
    for (const line of text.trimEnd().split('\n')) this.o.display.line(`    ${severity === 'info' ? '' : `${severity}: `}${line.replace(/^\t+/, '')}`);
  }

  private repeatsReportedFailure(message: string): boolean {
    const named = SDK_REGISTRATION_FAILED.flatMap((re) => [...message.matchAll(re)].map((m) => m[1]));
    return named.length > 0 && named.every((name) => this.failures.some((f) => f.name === name));
  }

  /**
   * After the program: deletes (or, in a preview, plans the deletion of) recorded resources the program no longer
   * registers, newest first. Skipped when the program failed, as the engine does: a failed program says nothing
   * about what it would have registered.
   */
  async finish(programSucceeded: boolean): Promise<void> {
    if (this.stackOutputs && programSucceeded) {
      if (!this.o.dryRun) {
        this.state.outputs = this.stackOutputs.outputs;
        this.state.outputSecretKeys = this.stackOutputs.secretKeys;
        this.o.store.save(this.state);
      }
    }
    if (!programSucceeded) return;
    const gone = this.state.resources.filter((r) => !this.registered.has(r.urn)).reverse();
    for (const r of gone) await this.deleteOne(r);
  }

  /** destroy: every recorded resource, newest first. */
  async destroyAll(): Promise<void> {
    for (const r of [...this.state.resources].reverse()) await this.deleteOne(r);
    if (!this.o.dryRun) {
      this.state.outputs = {};
      this.state.outputSecretKeys = [];
      this.o.store.save(this.state);
    }
  }

  private async deleteOne(r: ResourceState): Promise<void> {
    if (this.o.dryRun) {
      this.count('delete');
      this.o.display.step('delete', r.type, r.name, 'delete');
      return;
    }
    try {
      await this.timed('delete', r, r.outputs, 'deleting', () => this.o.host.delete(r.urn, r.id, r.outputs));
      this.forget(r.urn);
      this.count('delete');
    } catch (err) {
      this.fail(r, err);
    }
  }

  /**
   * refresh: reads every recorded resource back, `parallel` at a time, and prints what changed in the state's order
   * (refresh.ts). `persist` false for `preview --refresh`.
   */
  async refreshAll(persist: boolean, parallel = DEFAULT_REFRESH_PARALLEL): Promise<void> {
    await refreshResources({
      state: this.state,
      host: this.o.host,
      display: this.o.display,
      full: this.o.full,
      parallel,
      count: (op) => this.count(op),
      fail: (r, err) => this.fail(r, err),
    });
    if (persist) this.o.store.save(this.state);
  }

  get outputs(): { outputs: Raw; secretKeys: string[] } {
    return this.stackOutputs ?? { outputs: this.state.outputs, secretKeys: this.state.outputSecretKeys };
  }
}

/**
 * "pulumi-nodejs:dynamic/harvester:HarvesterMachinePool" and its inputs → "HarvesterMachinePool default/workers": the
 * object the host wrapper stamps the resource's progress lines with (provider/registry.ts progressObjectOf).
 */
function progressKey(type: string, props: Raw): string {
  const className = type.slice(type.lastIndexOf(':') + 1);
  const entry = RESOURCES.find((r) => r.className === className);
  return `${className} ${entry ? progressObjectOf(entry, props) : progressObject(props)}`;
}

function pastTense(verb: string): string {
  const [first, ...rest] = verb.split(' ');
  const past: Record<string, string> = { creating: 'created', updating: 'updated', deleting: 'deleted' };
  return [past[first] ?? first, ...rest].join(' ');
}

/**
 * What a failed check says under its resource. Failures of fields read "invalid inputs" with a line per field; a
 * failure that names no field is the resource's whole check (the cluster unreachable, "not checked: …") and is not
 * called invalid inputs, as the Pulumi CLI says "has a problem" for it (docs/design/resource-reconciler.md).
 */
export function checkFailureMessage(failures: readonly CheckFailure[]): string {
  const ofFields = failures.filter((f) => f.property);
  const whole = failures.filter((f) => !f.property).map((f) => f.reason);
  const fields = ofFields.length ? [`invalid inputs:\n${ofFields.map((f) => `  - ${formatFailure(f)}`).join('\n')}`] : [];
  return [...whole, ...fields].join('\n');
}
