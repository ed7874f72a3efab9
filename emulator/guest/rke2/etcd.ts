/**
 * The etcd member controller of an emulated RKE2 cluster (k3s-io/k3s pkg/etcd/member_controller.go;
 * docs/design/guest-rke2.md §"etcd members and quorum"):
 *
 * - every Node gets the finalizer `wrangler.cattle.io/managed-etcd-controller` (wrangler's OnRemove handler);
 * - a Node being deleted that carries the etcd role label has its member (named by the annotation
 *   `etcd.rke2.cattle.io/node-name`) removed, then the finalizer goes;
 * - `etcd.rke2.cattle.io/remove: "true"` on a Node removes its member at once and records
 *   `etcd.rke2.cattle.io/removed-node-name`;
 * - removing a member is an etcd write: without quorum nothing happens (the Node stays, finalizer and all) until
 *   quorum is back; nor when the members left would have no live majority (etcd's strict reconfiguration check).
 */
import { Clock } from '../../clock';
import { KindInfo, Store } from '../../api/types';
import { Controller, ErrorSink } from '../../controllers/runtime';
import { clone, hasFinalizer, isDeleting, removeFinalizer, writeChanges } from '../../util/objects';
import { ANN_ETCD_NODE_ADDRESS, ANN_ETCD_NODE_NAME, LABEL_ETCD } from './kubelet';

export const FINALIZER_ETCD = 'wrangler.cattle.io/managed-etcd-controller';
export const ANN_ETCD_REMOVE = 'etcd.rke2.cattle.io/remove';
export const ANN_ETCD_REMOVED_NODE_NAME = 'etcd.rke2.cattle.io/removed-node-name';

/** What the member controller needs from its cluster. */
export interface EtcdMembers {
  hasQuorum(): boolean;
  /** Removes the member; false when there is none of that name, 'refused' when etcd would lose its majority. */
  removeMember(name: string): boolean | 'refused';
  log(message: string): void;
}

const NO_QUORUM_RETRY_MS = 1000;

/** The member controller over a guest store's Nodes. */
export function createEtcdMemberController(o: { store: Store; nodeKind: KindInfo; clock: Clock; members: EtcdMembers; errors?: ErrorSink }): Controller {
  const { store, nodeKind: kind, members } = o;
  const reconcile = (name: string): number | undefined => {
    const node = store.get(kind, undefined, name);
    if (!node) return undefined;
    if (!members.hasQuorum()) return NO_QUORUM_RETRY_MS;
    const etcd = node.metadata.labels?.[LABEL_ETCD] !== undefined;
    const annotations = node.metadata.annotations ?? {};
    if (isDeleting(node)) {
      if (!hasFinalizer(node, FINALIZER_ETCD)) return undefined;
      const member = annotations[ANN_ETCD_NODE_NAME];
      if (etcd && member) {
        const removed = members.removeMember(member);
        if (removed === 'refused') {
          members.log(`etcd member ${member} not removed: etcdserver: re-configuration failed due to not enough started members`);
          return NO_QUORUM_RETRY_MS;
        }
        if (removed) members.log(`Removing etcd member ${name} from cluster`);
      }
      const desired = clone(node);
      removeFinalizer(desired, FINALIZER_ETCD);
      writeChanges(store, kind, node, desired, { fieldManager: 'rke2' });
      return undefined;
    }
    const desired = clone(node);
    if (!hasFinalizer(node, FINALIZER_ETCD)) desired.metadata.finalizers = [...(node.metadata.finalizers ?? []), FINALIZER_ETCD];
    const member = annotations[ANN_ETCD_NODE_NAME];
    if (etcd && annotations[ANN_ETCD_REMOVE]?.toLowerCase() === 'true' && member && !annotations[ANN_ETCD_REMOVED_NODE_NAME]) {
      if (members.removeMember(member) === 'refused') {
        members.log(`etcd member ${member} not removed: etcdserver: re-configuration failed due to not enough started members`);
        return NO_QUORUM_RETRY_MS;
      }
      members.log(`etcd member ${member} removed on request (${ANN_ETCD_REMOVE})`);
      const next: Record<string, string> = { ...annotations, [ANN_ETCD_REMOVED_NODE_NAME]: member };
      delete next[ANN_ETCD_NODE_NAME];
      delete next[ANN_ETCD_NODE_ADDRESS];
      desired.metadata.annotations = next;
    }
    writeChanges(store, kind, node, desired, { fieldManager: 'rke2' });
    return undefined;
  };
  return new Controller({ name: 'rke2-etcd-member-controller', clock: o.clock, errors: o.errors, reconcile }).watch(store, kind, (n) => [String(n.metadata.name)]);
}
