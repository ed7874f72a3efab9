/**
 * IPPool status bookkeeping (load-balancer-harvester pkg/controller/ippool/controller.go): when a pool is
 * created or its ranges change, `status.total` is the number of assignable addresses, `status.available`
 * what is left after `status.allocated`, `status.lastAllocated` is kept ("" at first; the CRD requires all
 * three once status exists), and condition Ready=True. The allocation map itself is written by the LB
 * controller (lb-controller.ts), as the real IPAM store does.
 */
import { Clock } from '../clock';
import { Store } from '../api/types';
import { rangeSetContains, rangeSetOf, totalOf } from './ipam';
import { parseIPv4 } from './ipv4';
import { HarvesterKinds } from './kinds';
import { Condition, clone, isDeleting, setCondition, statusOf, timestamp, writeChanges } from './object-util';
import { Controller, ErrorSink, splitKey } from './runtime';

/** Builds the IPPool status controller. */
export function createIpPoolController(ctx: { store: Store; kinds: HarvesterKinds; clock: Clock; errors?: ErrorSink }): Controller {
  const { store, kinds } = ctx;
  const controller = new Controller({
    name: 'harvester-ippool-controller',
    clock: ctx.clock,
    errors: ctx.errors,
    reconcile: (key) => {
      const pool = store.get(kinds.ipPool, undefined, splitKey(key).name);
      if (!pool || isDeleting(pool)) return;
      const desired = clone(pool);
      const status = statusOf(desired);
      let ready: Pick<Condition, 'type' | 'status' | 'message'> = { type: 'Ready', status: 'True' };
      try {
        const set = rangeSetOf(pool);
        const allocated = (status.allocated as Record<string, string> | undefined) ?? {};
        const inUse = Object.keys(allocated).filter((ip) => {
          const n = parseIPv4(ip);
          return n !== undefined && rangeSetContains(set, n);
        }).length;
        const total = totalOf(set);
        status.total = total;
        status.available = Math.max(0, total - inUse);
      } catch (err) {
        // Bad ranges (only reachable past the webhook): keep the counters, report why.
        status.total ??= 0;
        status.available ??= 0;
        ready = { type: 'Ready', status: 'False', message: (err as Error).message };
      }
      status.lastAllocated ??= '';
      status.conditions = setCondition(status.conditions as Condition[] | undefined, ready, timestamp(ctx.clock.now()), { stampUpdate: true });
      writeChanges(store, kinds.ipPool, pool, desired, { fieldManager: 'harvester-ippool-controller' });
    },
  });
  controller.watch(store, kinds.ipPool);
  return controller;
}
