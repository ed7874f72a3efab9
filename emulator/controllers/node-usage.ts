/**
 * What each host's pods request, as kube-scheduler's NodeInfo counts it: the requests of every pod bound to
 * the host that has not finished (phase neither Succeeded nor Failed; a pod being deleted still counts), plus,
 * while a live migration runs, the migrating VMI's requests on its target host (KubeVirt's target pod, which
 * the emulator does not materialise until the migration completes).
 */
import { KubeObject, StoreReader } from '../api/types';
import { field, isDeleting } from '../util/objects';
import { addAmounts, Amounts } from '../util/resources';
import { HarvesterKinds } from './kinds';
import { CREATED_BY_LABEL, podActive, podRequests } from './launcher-pod';

/** The VMI's active launcher pod (not finished, not being deleted), if any. */
export function launcherPodOf(store: StoreReader, kinds: Pick<HarvesterKinds, 'pod'>, vmi: KubeObject): KubeObject | undefined {
  return store
    .listShared(kinds.pod, { namespace: vmi.metadata.namespace, labelSelector: `${CREATED_BY_LABEL}=${vmi.metadata.uid}` })
    .items.find((p) => podActive(p) && !isDeleting(p));
}

/** Requests per host name (pods count as `pods: 1` each). */
export function nodeUsage(store: StoreReader, kinds: Pick<HarvesterKinds, 'pod' | 'vmi'>): Map<string, Amounts> {
  const usage = new Map<string, Amounts>();
  const add = (node: string, amounts: Amounts): void => {
    usage.set(node, addAmounts(usage.get(node) ?? {}, amounts));
  };
  for (const pod of store.listShared(kinds.pod).items) {
    const node = field<string>(pod, 'spec', 'nodeName');
    if (node && podActive(pod)) add(node, podRequests(pod));
  }
  for (const vmi of store.listShared(kinds.vmi).items) {
    const state = field<Record<string, unknown>>(vmi, 'status', 'migrationState');
    if (!state || state.completed === true || typeof state.targetNode !== 'string') continue;
    const pod = launcherPodOf(store, kinds, vmi);
    if (pod && field(pod, 'spec', 'nodeName') !== state.targetNode) add(state.targetNode, podRequests(pod));
  }
  return usage;
}

/** Pods per host (the spreading input of placement). */
export function podsPerNode(usage: ReadonlyMap<string, Amounts>): Map<string, number> {
  return new Map([...usage.entries()].map(([node, amounts]) => [node, amounts.pods ?? 0]));
}
