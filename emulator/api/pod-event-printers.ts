/**
 * The apiserver's table columns for Pods, Events and ResourceQuotas (k8s.io/kubernetes
 * pkg/printers/internalversion/printers.go printPod, printEvent, printResourceQuota), so `kubectl get pods -A`,
 * `kubectl get events` and `kubectl get quota` read as on a cluster. Pod STATUS is reduced to what the emulated
 * pods go through: Pending, ContainerCreating, Running, Completed, Terminating.
 */
import type { ComputedColumn, KubeObject } from './types';

type Rec = Record<string, unknown>;

function rec(value: unknown): Rec {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Rec) : {};
}

function list(value: unknown): Rec[] {
  return Array.isArray(value) ? value.map(rec) : [];
}

const AGE: ComputedColumn = { name: 'Age', type: 'date', value: (o) => o.metadata.creationTimestamp };

function podReady(pod: KubeObject): string {
  const containers = list(rec(pod.spec).containers).length;
  const ready = list(rec(pod.status).containerStatuses).filter((c) => c.ready === true).length;
  return `${ready}/${containers}`;
}

function podStatus(pod: KubeObject): string {
  if (pod.metadata.deletionTimestamp) return 'Terminating';
  const status = rec(pod.status);
  const phase = String(status.phase ?? 'Pending');
  if (phase === 'Succeeded') return 'Completed';
  if (typeof status.reason === 'string' && status.reason) return status.reason;
  const waiting = list(status.containerStatuses)
    .map((c) => rec(rec(c.state).waiting).reason)
    .find((r) => typeof r === 'string' && r);
  return typeof waiting === 'string' ? waiting : phase;
}

function podRestarts(pod: KubeObject): string {
  return String(list(rec(pod.status).containerStatuses).reduce((n, c) => n + (typeof c.restartCount === 'number' ? c.restartCount : 0), 0));
}

/** Pods: NAME READY STATUS RESTARTS AGE (wide: IP NODE NOMINATED NODE READINESS GATES). */
export const POD_COLUMNS: ComputedColumn[] = [
  { name: 'Ready', type: 'string', value: podReady },
  { name: 'Status', type: 'string', value: podStatus },
  { name: 'Restarts', type: 'string', value: podRestarts },
  AGE,
  { name: 'IP', type: 'string', priority: 1, value: (o) => rec(o.status).podIP || '<none>' },
  { name: 'Node', type: 'string', priority: 1, value: (o) => rec(o.spec).nodeName || '<none>' },
  { name: 'Nominated Node', type: 'string', priority: 1, value: (o) => rec(o.status).nominatedNodeName || '<none>' },
  { name: 'Readiness Gates', type: 'string', priority: 1, value: () => '<none>' },
];

function firstSeen(event: KubeObject): unknown {
  return event.firstTimestamp ?? event.eventTime;
}

function lastSeen(event: KubeObject): unknown {
  const series = rec(event.series);
  if (typeof series.lastObservedTime === 'string') return series.lastObservedTime;
  return event.lastTimestamp ?? firstSeen(event);
}

function eventCount(event: KubeObject): number {
  const series = rec(event.series);
  if (typeof series.count === 'number') return series.count;
  return typeof event.count === 'number' && event.count > 0 ? event.count : 1;
}

function eventObject(event: KubeObject): string {
  const involved = rec(event.involvedObject);
  const kind = String(involved.kind ?? '').toLowerCase();
  return involved.name ? `${kind}/${String(involved.name)}` : kind;
}

function eventSource(event: KubeObject): string {
  const source = rec(event.source);
  const component = String(source.component || event.reportingComponent || '');
  const host = String(source.host || event.reportingInstance || '');
  return host ? `${component}, ${host}` : component;
}

/** Events: LAST SEEN TYPE REASON OBJECT MESSAGE (wide adds SUBOBJECT SOURCE FIRST SEEN COUNT NAME); no leading NAME. */
export const EVENT_COLUMNS: ComputedColumn[] = [
  { name: 'Last Seen', type: 'date', value: lastSeen },
  { name: 'Type', type: 'string', value: (o) => o.type ?? null },
  { name: 'Reason', type: 'string', value: (o) => o.reason ?? null },
  { name: 'Object', type: 'string', value: eventObject },
  { name: 'Subobject', type: 'string', priority: 1, value: (o) => rec(o.involvedObject).fieldPath ?? '' },
  { name: 'Source', type: 'string', priority: 1, value: eventSource },
  { name: 'Message', type: 'string', value: (o) => String(o.message ?? '').trim() },
  { name: 'First Seen', type: 'date', priority: 1, value: firstSeen },
  { name: 'Count', type: 'integer', priority: 1, value: eventCount },
  { name: 'Name', type: 'string', priority: 1, value: (o) => o.metadata.name ?? '' },
];

function quotaCell(quota: KubeObject, limits: boolean): string {
  const hard = rec(rec(quota.status).hard);
  const used = rec(rec(quota.status).used);
  return Object.keys(hard)
    .sort()
    .filter((r) => (r.split('.').length > 1 && r.split('.')[0] === 'limits') === limits)
    .map((r) => `${r}: ${String(used[r] ?? '0')}/${String(hard[r])}`)
    .join(', ');
}

/** ResourceQuotas: NAME AGE REQUEST LIMIT. */
export const RESOURCE_QUOTA_COLUMNS: ComputedColumn[] = [
  AGE,
  { name: 'Request', type: 'string', value: (o) => quotaCell(o, false) },
  { name: 'Limit', type: 'string', value: (o) => quotaCell(o, true) },
];

/** Kinds whose table has no leading NAME column (the event printer puts the name last, in wide output). */
export const KINDS_WITHOUT_NAME_COLUMN: ReadonlySet<string> = new Set(['Event']);
