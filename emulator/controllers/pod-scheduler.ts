/**
 * kube-scheduler and the kubelet for the emulated pods:
 * - `kube-scheduler` (a controller over pods): an unbound pod of `default-scheduler` is placed by scheduler.ts
 *   (cordon, taints, node affinity/selector, Σ requests ≤ allocatable) and bound at once (`spec.nodeName`,
 *   condition PodScheduled=True, event Scheduled "Successfully assigned <ns>/<pod> to <host>"); when nothing
 *   fits it stays Pending with PodScheduled=False/Unschedulable and a FailedScheduling event carrying
 *   kube-scheduler's message (repeats counted as a series). A missing PVC fails the VolumeBinding pre-filter
 *   (`persistentvolumeclaim "<name>" not found`). Unschedulable pods are retried when hosts, pods or PVCs
 *   change, as kube-scheduler's queueing hints move them back to the active queue;
 * - `pod-running` (the kubelet, a stage): a bound Pending pod starts after `delays.vmiSchedule`: phase Running,
 *   its containers ready, host and pod IPs.
 * Binding is immediate so that pods placed one after another always see each other's requests, as the
 * scheduler's assume cache makes them.
 */
import { Clock } from '../clock';
import { KubeObject, Store } from '../api/types';
import { fnv1a } from '../util/hashing';
import { clone, field, isDeleting, setCondition, statusOf, timestamp, writeChanges, Condition } from '../util/objects';
import { EventRecorder } from './events';
import { HarvesterKinds } from './kinds';
import { podRequests, qosClassOf } from './launcher-pod';
import { nodeUsage, podsPerNode } from './node-usage';
import { ResolvedHarvesterOptions } from './options';
import { Controller, ErrorSink, objectKey, splitKey } from './runtime';
import { fitErrorMessage, Placement, placeVmi } from './scheduler';
import { Stage } from './stages';

/** What the scheduler needs. */
export interface PodSchedulerContext {
  store: Store;
  kinds: HarvesterKinds;
  clock: Clock;
  events: EventRecorder;
  errors?: ErrorSink;
}

const SCHEDULER = 'default-scheduler';

function unbound(pod: KubeObject): boolean {
  return !isDeleting(pod) && !field(pod, 'spec', 'nodeName') && (field(pod, 'spec', 'schedulerName') ?? SCHEDULER) === SCHEDULER && field(pod, 'status', 'phase') !== 'Failed';
}

/** Where the pod would go now, or kube-scheduler's reason why nowhere. */
export function placePod(store: Store, kinds: HarvesterKinds, pod: KubeObject): Placement {
  const nodes = store.list(kinds.node).items;
  const claims = ((field<Record<string, unknown>[]>(pod, 'spec', 'volumes') ?? []).map((v) => field<string>(v, 'persistentVolumeClaim', 'claimName')).filter(Boolean)) as string[];
  const missing = claims.find((c) => !store.get(kinds.pvc, pod.metadata.namespace, c));
  if (missing) {
    if (nodes.length === 0) return { message: 'no nodes available to schedule pods' };
    const preemption = new Map([['Preemption is not helpful for scheduling', nodes.length]]);
    return { message: fitErrorMessage(nodes.length, new Map(), preemption, `persistentvolumeclaim "${missing}" not found`) };
  }
  const used = nodeUsage(store, kinds);
  return placeVmi((pod.spec ?? {}) as Record<string, unknown>, nodes, podsPerNode(used), { request: podRequests(pod), used });
}

/** The kube-scheduler controller. */
export function createPodScheduler(ctx: PodSchedulerContext): Controller {
  const { store, kinds, clock, events } = ctx;
  const unboundKeys = (namespace?: string): string[] => store.listShared(kinds.pod, namespace ? { namespace } : {}).items.filter(unbound).map(objectKey);

  function reconcile(key: string): void {
    const { namespace, name } = splitKey(key);
    const pod = store.get(kinds.pod, namespace, name);
    if (!pod || !unbound(pod)) return;
    const placement = placePod(store, kinds, pod);
    const now = timestamp(clock.now());
    const desired = clone(pod);
    const status = statusOf(desired);
    // What the apiserver's pod strategy sets on create (the store keeps no status sent with a create).
    status.phase ??= 'Pending';
    status.qosClass ??= qosClassOf(pod);
    const conditions = status.conditions as Condition[] | undefined;
    if (placement.node) {
      const host = String(placement.node.metadata.name);
      (desired.spec as Record<string, unknown>).nodeName = host;
      status.conditions = setCondition(conditions, { type: 'PodScheduled', status: 'True' }, now);
      writeChanges(store, kinds.pod, pod, desired, { fieldManager: SCHEDULER });
      events.recordSeries({ regarding: pod, type: 'Normal', reason: 'Scheduled', message: `Successfully assigned ${namespace}/${name} to ${host}`, component: SCHEDULER, action: 'Binding', instance: `${SCHEDULER}-harvester-node-0` });
      return;
    }
    const message = String(placement.message);
    status.conditions = setCondition(conditions, { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message }, now);
    const before = (conditions ?? []).find((c) => c.type === 'PodScheduled');
    writeChanges(store, kinds.pod, pod, desired, { fieldManager: SCHEDULER });
    if (before?.message !== message || before.status !== 'False') {
      events.recordSeries({ regarding: pod, type: 'Warning', reason: 'FailedScheduling', message, component: SCHEDULER, action: 'Scheduling', instance: `${SCHEDULER}-harvester-node-0` });
    }
  }

  const controller = new Controller({ name: 'kube-scheduler', clock, errors: ctx.errors, reconcile });
  controller.watch(store, kinds.pod, (pod, type) => {
    // A pod going away or finishing frees room: every waiting pod gets another attempt.
    if (type === 'DELETED' || !unbound(pod)) return type === 'DELETED' || field(pod, 'status', 'phase') === 'Succeeded' || field(pod, 'status', 'phase') === 'Failed' ? unboundKeys() : [];
    return [objectKey(pod)];
  });
  controller.watch(store, kinds.node, () => unboundKeys());
  controller.watch(store, kinds.pvc, (pvc) => unboundKeys(pvc.metadata.namespace));
  return controller;
}

function podIp(pod: KubeObject): string {
  const h = fnv1a(`${pod.metadata.namespace}/${pod.metadata.name}`);
  return `10.52.${(h >>> 8) & 0xff}.${(h & 0xfd) + 2}`;
}

/** The kubelet's stage: a bound Pending pod starts running after `delays.vmiSchedule`. */
export function podStages(options: ResolvedHarvesterOptions, store: Store, kinds: HarvesterKinds, clock: Clock): Stage[] {
  return [
    {
      name: 'pod-running',
      when: (pod) => !isDeleting(pod) && Boolean(field(pod, 'spec', 'nodeName')) && (field(pod, 'status', 'phase') ?? 'Pending') === 'Pending',
      delayMs: () => options.delays.vmiSchedule,
      next: (pod) => {
        const now = timestamp(clock.now());
        const status = statusOf(pod);
        const node = store.get(kinds.node, undefined, String(field(pod, 'spec', 'nodeName')));
        const hostIp = (field<Record<string, string>[]>(node, 'status', 'addresses') ?? []).find((a) => a.type === 'InternalIP')?.address;
        status.phase = 'Running';
        status.startTime = now;
        let conditions = status.conditions as Condition[] | undefined;
        for (const type of ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled']) conditions = setCondition(conditions, { type, status: 'True' }, now);
        status.conditions = conditions;
        if (hostIp) {
          status.hostIP = hostIp;
          status.hostIPs = [{ ip: hostIp }];
        }
        status.podIP = podIp(pod);
        status.podIPs = [{ ip: status.podIP }];
        status.containerStatuses = (field<Record<string, unknown>[]>(pod, 'spec', 'containers') ?? []).map((c) => ({
          name: c.name,
          image: c.image,
          imageID: '',
          containerID: `containerd://${fnv1a(`${pod.metadata.uid}/${String(c.name)}`).toString(16).padStart(8, '0')}`,
          ready: true,
          started: true,
          restartCount: 0,
          state: { running: { startedAt: now } },
        }));
        return pod;
      },
    },
  ];
}
