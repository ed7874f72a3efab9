/**
 * Event recording, in the two shapes clusters show (design notes: docs/design/capacity.md §events):
 * - `record` (client-go tools/record, used by KubeVirt's virt-controller and Harvester's controllers): named
 *   `<object>.<unix nanos in hex>`, `source.component`, first/last timestamps and a `count`; an event repeating
 *   the same object, reason and message bumps count and lastTimestamp (the correlator's aggregation);
 * - `recordSeries` (client-go tools/events, used by kube-scheduler): `eventTime` with microseconds,
 *   `reportingComponent`/`reportingInstance`, `action`, empty `source`, null first/last timestamps; a repeat
 *   becomes `series: {count, lastObservedTime}`.
 */
import { Clock } from '../clock';
import { KindInfo, KubeObject, Store } from '../api/types';
import { clone, timestamp } from '../util/objects';

/** What an event says about an object. */
export interface EventInput {
  regarding: KubeObject;
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  /** The reporting component, e.g. `virtualmachine-controller`, `default-scheduler`. */
  component: string;
}

/** Records events through the store (so watchers and `kubectl get events -w` see them). */
export class EventRecorder {
  private sequence = 0;
  /** The event recorded last for each object, reason, message and component (the correlator's cache). */
  private readonly recorded = new Map<string, string>();

  constructor(
    private readonly store: Store,
    private readonly kind: KindInfo,
    private readonly clock: Clock,
  ) {}

  private reference(o: KubeObject): Record<string, unknown> {
    const ref: Record<string, unknown> = { apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, uid: o.metadata.uid, resourceVersion: o.metadata.resourceVersion };
    if (o.metadata.namespace) ref.namespace = o.metadata.namespace;
    return ref;
  }

  private name(o: KubeObject): string {
    const nanos = BigInt(this.clock.now().getTime()) * 1_000_000n + BigInt(this.sequence++ % 1_000_000);
    return `${o.metadata.name}.${nanos.toString(16)}`;
  }

  private key(input: EventInput): string {
    return JSON.stringify([input.regarding.metadata.uid, input.reason, input.message, input.component]);
  }

  private existing(input: EventInput): KubeObject | undefined {
    const name = this.recorded.get(this.key(input));
    return name === undefined ? undefined : this.store.get(this.kind, input.regarding.metadata.namespace ?? 'default', name);
  }

  private remember(input: EventInput, event: KubeObject): void {
    if (this.recorded.size > 20_000) this.recorded.clear();
    this.recorded.set(this.key(input), String(event.metadata.name));
  }

  private micro(): string {
    return this.clock.now().toISOString().replace(/(\.\d{3})Z$/, '$1000Z');
  }

  /** A core/v1 recorder event (count aggregation). */
  record(input: EventInput): void {
    const now = timestamp(this.clock.now());
    const previous = this.existing(input);
    if (previous) {
      const next = clone(previous);
      next.count = (typeof previous.count === 'number' ? previous.count : 1) + 1;
      next.lastTimestamp = now;
      this.store.update(this.kind, next, { fieldManager: input.component });
      return;
    }
    const created = this.store.create(
      this.kind,
      {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: this.name(input.regarding), namespace: input.regarding.metadata.namespace ?? 'default' },
        involvedObject: this.reference(input.regarding),
        reason: input.reason,
        message: input.message,
        source: { component: input.component },
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
        type: input.type,
        eventTime: null,
        reportingComponent: input.component,
        reportingInstance: '',
      },
      { fieldManager: input.component },
    );
    this.remember(input, created);
  }

  /** An events.k8s.io-style event (series on repeats), as kube-scheduler writes them. */
  recordSeries(input: EventInput & { action: string; instance: string }): void {
    const previous = this.existing(input);
    if (previous) {
      const next = clone(previous);
      const series = (previous.series as { count?: number } | undefined) ?? {};
      next.series = { count: (series.count ?? 1) + 1, lastObservedTime: this.micro() };
      this.store.update(this.kind, next, { fieldManager: input.component });
      return;
    }
    const created = this.store.create(
      this.kind,
      {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: this.name(input.regarding), namespace: input.regarding.metadata.namespace ?? 'default' },
        involvedObject: this.reference(input.regarding),
        reason: input.reason,
        message: input.message,
        source: {},
        firstTimestamp: null,
        lastTimestamp: null,
        type: input.type,
        eventTime: this.micro(),
        action: input.action,
        reportingComponent: input.component,
        reportingInstance: input.instance,
      },
      { fieldManager: input.component },
    );
    this.remember(input, created);
  }
}
