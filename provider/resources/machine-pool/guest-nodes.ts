/**
 * The guest side of a pool whose VMs are nodes of a guest cluster (guestKubeconfig): the Node of each VM bears the
 * VM's name (KubeVirt's NoCloud makes it the hostname; Harvester's cloud provider finds a Node's VM by that name).
 *
 * - awaitGuestReady: a roll's replacements count as ready only once their Nodes are Ready, so the next old VM is
 *   removed while the new one already serves (for an RKE2 server: it has joined etcd and runs the API);
 * - leaveGuest: before its VM is deleted, a VM's Node is deleted and awaited gone, one at a time. RKE2's etcd member
 *   controller holds the Node (finalizer) until the server's member is removed, which needs a quorum the server
 *   still counts in — the order CAPRKE2 keeps (member out, then machine deleted), so a 1-server cluster survives its
 *   roll. The cloud provider would delete the Node after the VM anyway; deleting it first is what keeps quorum.
 *   A VM without a Node (it never joined) has nothing to leave.
 * Waits watch the guest's Nodes; they share the pool operation's deadline.
 */
import { waitFor, waitForDeletion } from '../../await';
import type { HarvesterClient } from '../../client/harvester-client';
import type { Node } from '../../client/objects';
import { onCluster } from '../../core/unreachable';

/** What the guest waits need from the pool's apply options. */
export interface GuestWaitOptions {
  guest: HarvesterClient;
  remainingMs(): number;
  timeoutOption: string;
  onProgress?: (line: string) => void;
  clock?: Parameters<typeof waitFor>[0]['clock'];
}

const readyOf = (node: Node | undefined) => ((node?.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).find((c) => c.type === 'Ready');

/** Waits until every named guest Node exists and is Ready. */
export async function awaitGuestReady(names: string[], o: GuestWaitOptions): Promise<void> {
  if (names.length === 0) return;
  await onCluster('guestKubeconfig', () => waitFor<Node>({
    resource: o.guest.nodes,
    check: (nodes) => {
      const byName = new Map(nodes.map((n) => [n.metadata.name, n]));
      const pending = names.filter((n) => readyOf(byName.get(n))?.status !== 'True').map((n) => {
        const node = byName.get(n);
        return node ? `Node ${n} is ${readyOf(node)?.status === 'False' ? 'NotReady' : 'not reporting'}` : `Node ${n} has not registered`;
      });
      return { done: pending.length === 0, description: pending.length ? pending.join('; ') : `Nodes ${names.join(', ')} are Ready`, pending };
    },
    timeoutMs: o.remainingMs(),
    what: `the guest Nodes of ${names.join(', ')} to be Ready`,
    timeoutOption: `timeouts.${o.timeoutOption}`,
    onProgress: o.onProgress,
    clock: o.clock,
  }));
}

/** Deletes the guest Node of each named VM, one at a time, each awaited gone. */
export async function leaveGuest(names: string[], o: GuestWaitOptions): Promise<void> {
  for (const name of names) {
    await onCluster('guestKubeconfig', async () => {
      if (!(await o.guest.nodes.get(name))) return;
      o.onProgress?.(`deleting guest Node ${name} before its VM`);
      await o.guest.nodes.delete(name);
      await waitForDeletion<Node>({
        resource: o.guest.nodes,
        name,
        timeoutMs: o.remainingMs(),
        what: `guest Node ${name} to be deleted (an RKE2 server's etcd member is removed first)`,
        timeoutOption: `timeouts.${o.timeoutOption}`,
        onProgress: o.onProgress,
        clock: o.clock,
      });
    });
  }
}
