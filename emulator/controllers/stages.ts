/**
 * A kwok-style stage runner: a controller is a table of rows "when the object looks like X, after a delay,
 * write Y". The first matching row is armed with its delay; when the delay passes the object is read again,
 * the row re-checked, and its change written (through the store, so watchers see real events). The write
 * makes the next row match. A row whose change is a no-op writes nothing.
 *
 * Per-object delay override (kwok's `<stage>.stage.kwok.x-k8s.io/delay` idea): annotation
 * `<stage name>.emulator.harvester-iac.local/delay` with a value like `0`, `1500ms`, `2s` or `1m`.
 */
import { Clock } from '../clock';
import { KindInfo, KubeObject, Store } from '../api/types';
import { clone, writeChanges } from '../util/objects';
import { Controller, ErrorSink, KeyMapper, splitKey } from './runtime';

/** One transition row. */
export interface Stage {
  /** kebab-case, `<kind>-<transition>` (e.g. `vmi-running`); also names the delay annotation. */
  name: string;
  /** Does the current object look like this row's "before"? Must be false once `next` has been applied. */
  when(object: KubeObject): boolean;
  /** Default delay in ms (evaluated when the row is armed). */
  delayMs(object: KubeObject): number;
  /** Returns the changed copy to write (it receives a copy it may modify), or undefined to write nothing. */
  next(object: KubeObject): KubeObject | undefined;
}

/** Annotation suffix of per-object delay overrides. */
export const DELAY_ANNOTATION_SUFFIX = '.emulator.harvester-iac.local/delay';

/** Parses `250ms`, `2s`, `1m`, `1.5s` or a bare number of ms; undefined when unparseable. */
export function parseDelay(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$/.exec(value);
  if (!match) return undefined;
  const n = Number(match[1]);
  const unit = match[2] ?? 'ms';
  return Math.round(unit === 'm' ? n * 60_000 : unit === 's' ? n * 1000 : n);
}

/** The delay for `stage` on `object`, honouring the per-object annotation. */
export function stageDelay(stage: Stage, object: KubeObject): number {
  const override = parseDelay(object.metadata.annotations?.[`${stage.name}${DELAY_ANNOTATION_SUFFIX}`]);
  return override ?? Math.max(0, stage.delayMs(object));
}

export interface StageRunnerConfig {
  /** Controller name for error reports, e.g. `kubevirt-vmi-lifecycle`. */
  name: string;
  store: Store;
  clock: Clock;
  kind: KindInfo;
  stages: Stage[];
  /** Field manager for writes. */
  manager: string;
  errors?: ErrorSink;
}

interface Armed {
  stage: string;
  uid: string;
  due: number;
}

/** Runs a stage table over every object of one kind. */
export class StageRunner {
  readonly controller: Controller;
  private readonly armed = new Map<string, Armed>();

  constructor(private readonly config: StageRunnerConfig) {
    this.controller = new Controller({
      name: config.name,
      clock: config.clock,
      errors: config.errors,
      reconcile: (key) => this.reconcile(key),
    });
    this.controller.watch(config.store, config.kind);
  }

  /** Also requeue objects of this kind when another kind changes (e.g. VMIs when a Node changes). */
  alsoWatch(store: Store, kind: KindInfo, map: KeyMapper): this {
    this.controller.watch(store, kind, map);
    return this;
  }

  /** Requeue one object now (e.g. after an admin knob changed). */
  poke(key: string): void {
    this.controller.enqueue(key);
  }

  stop(): void {
    this.controller.stop();
    this.armed.clear();
  }

  private reconcile(key: string): number | undefined {
    const { store, kind, clock } = this.config;
    const { namespace, name } = splitKey(key);
    const object = store.get(kind, namespace, name);
    if (!object) {
      this.armed.delete(key);
      return undefined;
    }
    const stage = this.config.stages.find((s) => s.when(object));
    if (!stage) {
      this.armed.delete(key);
      return undefined;
    }
    const now = clock.now().getTime();
    const uid = String(object.metadata.uid ?? '');
    let armed = this.armed.get(key);
    if (!armed || armed.stage !== stage.name || armed.uid !== uid) {
      armed = { stage: stage.name, uid, due: now + stageDelay(stage, object) };
      this.armed.set(key, armed);
    }
    if (now < armed.due) return armed.due - now;
    const desired = stage.next(clone(object));
    // A failed write (e.g. 409) keeps the row armed with its due time passed, so the retry fires at once.
    if (desired) writeChanges(store, kind, object, desired, { fieldManager: this.config.manager });
    this.armed.delete(key);
    return undefined;
  }
}
