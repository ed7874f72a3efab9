/**
 * Core v1 Event: what the simulated kube-scheduler (FailedScheduling, Scheduled), KubeVirt (FailedCreate,
 * SuccessfulCreate) and Harvester (InsufficientResourceQuota) record, read by `kubectl get events` and the
 * Events section of `kubectl describe`. Written through controllers/events.ts. The events.k8s.io/v1 view of
 * the same objects is not served (docs/emulator.md, fidelity table).
 */
import { KindInfo, KubeObject } from '../../api/types';
import { field } from '../../util/objects';
import { int32, kubeObject, obj, str, time } from '../schema/builders';

const reference = obj({
  apiVersion: str(),
  kind: str(),
  name: str(),
  namespace: str(),
  uid: str(),
  resourceVersion: str(),
  fieldPath: str(),
});

/** Registry entry for `events` (v1). */
export const eventKind: KindInfo = {
  group: '',
  version: 'v1',
  kind: 'Event',
  listKind: 'EventList',
  plural: 'events',
  singular: 'event',
  shortNames: ['ev'],
  namespaced: true,
  statusSubresource: false,
  hasGeneration: false,
  builtIn: true,
  allowUnconditionalUpdate: true,
  schema: kubeObject(
    {
      involvedObject: reference,
      reason: str(),
      message: str(),
      source: obj({ component: str(), host: str() }),
      firstTimestamp: time(true),
      lastTimestamp: time(true),
      count: int32(),
      type: str(),
      eventTime: time(true),
      series: obj({ count: int32(), lastObservedTime: str() }),
      action: str(),
      related: reference,
      reportingComponent: str(),
      reportingInstance: str(),
    },
    ['involvedObject'],
  ),
  // The field labels of pkg/registry/core/event (ToSelectableFields): `kubectl describe` selects an object's
  // events by involvedObject.*.
  fieldLabels: {
    'involvedObject.kind': (o) => involved(o, 'kind'),
    'involvedObject.namespace': (o) => involved(o, 'namespace'),
    'involvedObject.name': (o) => involved(o, 'name'),
    'involvedObject.uid': (o) => involved(o, 'uid'),
    'involvedObject.apiVersion': (o) => involved(o, 'apiVersion'),
    'involvedObject.resourceVersion': (o) => involved(o, 'resourceVersion'),
    'involvedObject.fieldPath': (o) => involved(o, 'fieldPath'),
    reason: (o) => String(o.reason ?? ''),
    reportingComponent: (o) => String(o.reportingComponent ?? ''),
    source: (o) => String(field(o, 'source', 'component') ?? ''),
    type: (o) => String(o.type ?? ''),
  },
  smpMergeKeys: { 'metadata.ownerReferences': 'uid' },
};

function involved(event: KubeObject, key: string): string {
  return String(field(event, 'involvedObject', key) ?? '');
}
