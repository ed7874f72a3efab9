/**
 * IPPool status bookkeeping (load-balancer-harvester pkg/controller/ippool/controller.go): when a pool is
 * created or its ranges change, `status.total` is the number of assignable addresses, `status.available`
 * what is left after `status.allocated`, `status.lastAllocated` is kept ("" at first; the CRD requires all
 * three once status exists), and condition Ready=True. Unusable ranges fail the reconcile with the
 * allocator's error and write nothing (NewAllocator returns before updateStatus). The allocation map itself
 * is written by the LB controller (lb-controller.ts), as the real IPAM store does.
 */
import { Clock } from '../clock';
import { Store } from '../api/types';
import { rangeSetContains, rangeSetOf, totalOf } from './ipam';
import { parseIPv4 } from '../util/ipv4';
import { HarvesterKinds } from './kinds';
import { Condition, clone, isDeleting, setCondition, statusOf, timestamp, writeChanges } from '../util/objects';
import { Controller, ErrorSink, splitKey } from './runtime';

/** Builds the IPPool status controller. */
export function createIpPoolController(ctx: { store: Store; kinds: HarvesterKinds; clock: Clock; errors?: ErrorSink }): Controller {
  const { store, kinds } = ctx;
  const controller = new Controller({
    name: 'harvester-ipam-controller',
    clock: ctx.clock,
    errors: ctx.errors,
    reconcile: (key) => {
      const pool = store.get(kinds.ipPool, undefined, splitKey(key).name);
      if (!pool || isDeleting(pool)) return;
      const desired = clone(pool);
      const status = statusOf(desired);
      // Like ipam.NewAllocator: unusable ranges (only reachable past the webhook) fail the reconcile with the
      // allocator's error, and nothing is written: the pool never gets a Ready condition until they are fixed.
      const ranges = (pool.spec as { ranges?: unknown[] } | undefined)?.ranges ?? [];
      if (ranges.length === 0) throw new Error("range can't be empty");
      const set = rangeSetOf(pool);
      const allocated = (status.allocated as Record<string, string> | undefined) ?? {};
      const inUse = Object.keys(allocated).filter((ip) => {
        const n = parseIPv4(ip);
        return n !== undefined && rangeSetContains(set, n);
      }).length;
      const total = totalOf(set);
      status.total = total;
      status.available = Math.max(0, total - inUse);
      const ready: Pick<Condition, 'type' | 'status' | 'message'> = { type: 'Ready', status: 'True' };
      status.lastAllocated ??= '';
      status.conditions = setCondition(status.conditions as Condition[] | undefined, ready, timestamp(ctx.clock.now()), { stampUpdate: true });
      writeChanges(store, kinds.ipPool, pool, desired, { fieldManager: 'harvester-ipam-controller' });
    },
  });
  controller.watch(store, kinds.ipPool);
  return controller;
}
