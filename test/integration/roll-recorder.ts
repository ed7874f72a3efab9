/**
 * Watches a pool's VMs and VMIs through the API while a rolling update runs, to check the surge rules from
 * outside: no VM may go while fewer than `count` other VMs are ready, and at most count + surge VMs exist.
 *
 * VM and VMI events arrive on two streams, so their relative order on the wire proves nothing. Both kinds
 * live in the same etcd, whose resourceVersion is one global revision counter (the emulator keeps one too),
 * so the recorder replays all events sorted by resourceVersion once the roll is over: the order in which
 * the writes really happened.
 */
import type { KubeObject } from '../../provider/client/objects';
import type { ResourceClient } from '../../provider/client/resource-client';
import type { WatchHandle } from '../../provider/client/resource-types';
import { eventually } from '../support/emulator-harness';
import type { PoolHarness } from './machine-pool-support';

/** What the roll looked like. */
export interface RollRecord {
  /** "X removed while only N other VMs were ready", one per offending removal. */
  violations: string[];
  /** Most VMs present (not deleting) at once. */
  maxPresent: number;
}

interface Recorded {
  kind: 'vm' | 'vmi';
  type: string;
  object: KubeObject;
  rv: number;
}

const isReady = (o: any): boolean => o.status?.phase === 'Running' && Boolean(o.status?.interfaces?.[0]?.ipAddress);
const isDeleting = (o: KubeObject): boolean => Boolean(o.metadata.deletionTimestamp);

/** Start recording pool `pool` of `h`; `finish` waits until the streams have shown the expected outcome and judges. */
export async function recordRoll(h: PoolHarness, pool: string, count: number): Promise<{ finish(expected: { gone: string[]; ready: string[] }): Promise<RollRecord> }> {
  const selector = `harvester-iac.io/resource-name=${pool}`;
  const namespace = h.namespace;
  const vms = await h.client.virtualMachines.list({ namespace, labelSelector: selector });
  const vmis = await h.client.virtualMachineInstances.list({ namespace, labelSelector: selector });
  const events: Recorded[] = [];
  const errors: string[] = [];
  const handles: (() => void)[] = [];

  // A raw watch from the list's version, resumed from the last event when the server ends it (real API
  // servers close watches after a few minutes; a roll on a real cluster takes longer).
  const follow = (kind: Recorded['kind'], resource: ResourceClient<KubeObject>, from: string): void => {
    let last = from;
    let handle: WatchHandle;
    let stopped = false;
    const open = (): void => {
      handle = resource.watch(
        { namespace, labelSelector: selector, resourceVersion: last },
        (type, object) => {
          last = object.metadata.resourceVersion ?? last;
          if (type !== 'BOOKMARK') events.push({ kind, type, object, rv: Number(last) });
        },
        (err) => {
          if (stopped) return;
          if (err) errors.push(`the ${kind} watch failed: ${err.message}`);
          else open();
        },
      );
    };
    open();
    handles.push(() => {
      stopped = true;
      handle.stop();
    });
  };
  follow('vm', h.client.virtualMachines as ResourceClient<KubeObject>, vms.resourceVersion);
  follow('vmi', h.client.virtualMachineInstances as ResourceClient<KubeObject>, vmis.resourceVersion);

  const seenGone = (name: string) => events.some((e) => e.kind === 'vm' && e.object.metadata.name === name && (e.type === 'DELETED' || isDeleting(e.object)));
  const seenReady = (name: string) => events.some((e) => e.kind === 'vmi' && e.object.metadata.name === name && e.type !== 'DELETED' && isReady(e.object));

  return {
    async finish(expected) {
      try {
        await eventually(
          () => errors.length > 0 || (expected.gone.every(seenGone) && expected.ready.every(seenReady)),
          `the watches to show ${expected.gone.join(', ')} going and ${expected.ready.join(', ')} ready`,
          h.target.timeouts.waitMs,
        );
      } finally {
        handles.forEach((stop) => stop());
      }
      if (errors.length) throw new Error(errors.join('; '));

      const present = new Set(vms.items.filter((v) => !isDeleting(v)).map((v) => v.metadata.name!));
      const ready = new Set(vmis.items.filter(isReady).map((v) => v.metadata.name!));
      let maxPresent = present.size;
      const violations: string[] = [];
      for (const e of [...events].sort((a, b) => a.rv - b.rv)) {
        const name = e.object.metadata.name!;
        if (e.kind === 'vmi') {
          if (e.type !== 'DELETED' && isReady(e.object)) ready.add(name);
          else ready.delete(name);
          continue;
        }
        if (e.type === 'ADDED' && !isDeleting(e.object)) present.add(name);
        if ((e.type === 'MODIFIED' && isDeleting(e.object)) || e.type === 'DELETED') {
          if (present.delete(name)) {
            const others = [...ready].filter((n) => n !== name && present.has(n)).length;
            if (others < count) violations.push(`${name} removed while only ${others} other VMs were ready`);
          }
        }
        maxPresent = Math.max(maxPresent, present.size);
      }
      return { violations, maxPresent };
    },
  };
}
