/**
 * Core v1 Pod. On the simulated Harvester the only pods are KubeVirt's virt-launcher pods (one per running VMI,
 * rendered by controllers/launcher-pod.ts) and the seeded stand-ins for each host's system pods. What the
 * scheduler, the quota admission and `kubectl describe node` read is typed (resources, nodeName, scheduling
 * constraints, phase, conditions); the rest of a container is kept as sent.
 */
import { KindInfo } from '../../api/types';
import { arr, bool, int32, int64, kubeObject, obj, oneOf, opaque, openObj, probeConditions, resourceList, str, stringMap, time } from '../schema/builders';
import { affinity, toleration, topologySpreadConstraint } from './pod-scheduling';
import { field } from '../../util/objects';

const resources = obj({ limits: resourceList(), requests: resourceList(), claims: arr(opaque()) });

const container = openObj({ name: str(), image: str(), command: arr(str()), args: arr(str()), resources }, ['name']);

const containerStatus = openObj({
  name: str(),
  ready: bool(),
  restartCount: int32(),
  image: str(),
  imageID: str(),
  containerID: str(),
  started: bool(),
  state: opaque(),
  lastState: opaque(),
});

/** Registry entry for `pods` (v1). */
export const podKind: KindInfo = {
  group: '',
  version: 'v1',
  kind: 'Pod',
  listKind: 'PodList',
  plural: 'pods',
  singular: 'pod',
  shortNames: ['po'],
  categories: ['all'],
  namespaced: true,
  statusSubresource: true,
  hasGeneration: false,
  builtIn: true,
  allowUnconditionalUpdate: true,
  schema: kubeObject({
    spec: obj(
      {
        containers: arr(container),
        initContainers: arr(container),
        nodeName: str(),
        nodeSelector: stringMap(),
        affinity,
        tolerations: arr(toleration),
        topologySpreadConstraints: arr(topologySpreadConstraint),
        schedulerName: str(),
        priority: int32(),
        priorityClassName: str(),
        preemptionPolicy: str(),
        restartPolicy: oneOf(['Always', 'OnFailure', 'Never']),
        serviceAccountName: str(),
        automountServiceAccountToken: bool(),
        terminationGracePeriodSeconds: int64(),
        hostname: str(),
        subdomain: str(),
        enableServiceLinks: bool(),
        readinessGates: arr(obj({ conditionType: str() }, ['conditionType'])),
        volumes: arr(opaque()),
        securityContext: opaque(),
        dnsPolicy: str(),
        dnsConfig: opaque(),
        overhead: resourceList(),
      },
      ['containers'],
    ),
    status: obj({
      phase: oneOf(['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown']),
      conditions: probeConditions(),
      message: str(),
      reason: str(),
      nominatedNodeName: str(),
      hostIP: str(),
      hostIPs: arr(obj({ ip: str() })),
      podIP: str(),
      podIPs: arr(obj({ ip: str() })),
      startTime: time(),
      qosClass: oneOf(['Guaranteed', 'Burstable', 'BestEffort']),
      containerStatuses: arr(containerStatus),
      initContainerStatuses: arr(containerStatus),
    }),
  }),
  // Table columns are computed by api/builtin-printers.ts, as the apiserver's own printers do.
  // The field labels of pkg/registry/core/pod (PodToSelectableFields): `kubectl describe node` selects a host's
  // pods by spec.nodeName and status.phase.
  fieldLabels: {
    'spec.nodeName': (o) => String(field(o, 'spec', 'nodeName') ?? ''),
    'spec.restartPolicy': (o) => String(field(o, 'spec', 'restartPolicy') ?? ''),
    'spec.schedulerName': (o) => String(field(o, 'spec', 'schedulerName') ?? ''),
    'spec.serviceAccountName': (o) => String(field(o, 'spec', 'serviceAccountName') ?? ''),
    'status.phase': (o) => String(field(o, 'status', 'phase') ?? ''),
    'status.podIP': (o) => String(field(o, 'status', 'podIP') ?? ''),
    'status.nominatedNodeName': (o) => String(field(o, 'status', 'nominatedNodeName') ?? ''),
  },
  smpMergeKeys: {
    'metadata.ownerReferences': 'uid',
    'spec.containers': 'name',
    'spec.initContainers': 'name',
    'spec.tolerations': 'key',
    'status.conditions': 'type',
    'status.containerStatuses': 'name',
  },
};
