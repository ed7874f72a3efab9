/**
 * The LoadBalancer controller (load-balancer-harvester pkg/controller/loadbalancer/controller.go):
 *
 * 1. finalizer `wrangler.cattle.io/harvester-lb-controller`;
 * 2. address — dhcp: `allocatedAddress.ip = 0.0.0.0` (vm type: `status.address`, a lease from the simulated
 *    DHCP server of the LB's VM network, dhcp.ts; cluster type: the guest's kube-vip/CCM writes it). pool: if `spec.ipPool` changed, release the old
 *    IP first; then pick the pool (spec.ipPool, else ippool-selector.ts), take an address (ipam.ts) and record
 *    it in the pool's `status.allocated[ip] = ns/name` (plain update: no status subresource) and in
 *    `status.allocatedAddress {ipPool, ip, mask, gateway}`; vm type also gets `status.address`;
 * 3. vm type: `status.backendServers` from the selected running VMIs (lb-backends.ts);
 * 4. condition Ready True, or False with the controller's error text: "no matched IPPool with requirement
 *    &{…}", "fail to get ip from pool P, error: no IP addresses available in range set: A-B" (host-local's
 *    allocator error wrapped by requestIP; upstream's errNoAvailableIP is declared but never wrapped into it),
 *    "no running backend servers".
 *    Pool errors retry every second (as the real EnqueueAfter(1s)).
 * On deletion the IP goes back to the pool (into allocatedHistory), then the finalizer is dropped.
 */
import { Clock } from '../clock';
import { KubeObject, Store } from '../api/types';
import { loadBalancerLease } from './dhcp';
import { allocateAddress, allocatedAddressOf, rangeSetLabel, rangeSetOf } from './ipam';
import { formatIPv4, parseIPv4 } from '../util/ipv4';
import { HarvesterKinds } from './kinds';
import { backendAddresses } from './lb-backends';
import { DHCP_ASK_ADDRESS, FINALIZER_LB } from '../util/names';
import {
  addFinalizer,
  clone,
  Condition,
  field,
  hasFinalizer,
  isDeleting,
  removeFinalizer,
  setCondition,
  statusOf,
  timestamp,
  writeChanges,
} from '../util/objects';
import { ResolvedHarvesterOptions } from './options';
import { formatRequirement, requirementOf, selectPool } from './ippool-selector';
import { Controller, ErrorSink, objectKey, splitKey } from './runtime';

const MANAGER = 'harvester-lb-controller';
const POOL_RETRY_MS = 1000;

/** Error texts of the real controller (errNoMatchedIPPool, errNoRunningBackendServer). */
export const LB_ERRORS = {
  noMatchedPool: 'no matched IPPool',
  noRunningBackends: 'no running backend servers',
} as const;

class PoolError extends Error {}

function isVmType(lb: KubeObject): boolean {
  const t = field<string>(lb, 'spec', 'workloadType');
  return !t || t === 'vm';
}

/** Dependencies of the LB controller. */
export interface LbControllerContext {
  store: Store;
  kinds: HarvesterKinds;
  clock: Clock;
  options: ResolvedHarvesterOptions;
  errors?: ErrorSink;
}

/** Builds the LB controller (watching LBs, IPPools and VMIs). */
export function createLbController(ctx: LbControllerContext): Controller {
  const { store, kinds, clock } = ctx;

  function release(lb: KubeObject, poolName: string): void {
    const pool = store.get(kinds.ipPool, undefined, poolName);
    if (!pool) return;
    const id = objectKey(lb);
    const desired = clone(pool);
    const status = statusOf(desired);
    const allocated = { ...((status.allocated as Record<string, string>) ?? {}) };
    const history = { ...((status.allocatedHistory as Record<string, string>) ?? {}) };
    let released = 0;
    for (const [ip, owner] of Object.entries(allocated)) {
      if (owner !== id) continue;
      delete allocated[ip];
      history[ip] = owner;
      released++;
    }
    if (released === 0) return;
    status.allocated = allocated;
    status.allocatedHistory = history;
    status.available = Number(status.available ?? 0) + released;
    writeChanges(store, kinds.ipPool, pool, desired, { fieldManager: MANAGER });
  }

  function allocate(lb: KubeObject): Record<string, string> {
    const poolName = field<string>(lb, 'spec', 'ipPool') || selectPool(store.list(kinds.ipPool).items, lb)?.metadata.name;
    if (!poolName) throw new PoolError(`${LB_ERRORS.noMatchedPool} with requirement ${formatRequirement(requirementOf(lb))}`);
    const pool = store.get(kinds.ipPool, undefined, String(poolName));
    if (!pool) throw new PoolError(`fail to get allocator ${poolName}`);
    let set;
    try {
      set = rangeSetOf(pool);
    } catch (err) {
      throw new PoolError(`fail to get allocator ${poolName}: ${(err as Error).message}`);
    }
    const id = objectKey(lb);
    const status = (pool.status ?? {}) as Record<string, unknown>;
    const allocated = (status.allocated as Record<string, string> | undefined) ?? {};
    // An address already recorded for this LB (e.g. our status write was lost) is reused.
    const held = Object.entries(allocated).find(([, owner]) => owner === id)?.[0];
    const heldIp = parseIPv4(held);
    if (heldIp !== undefined) return allocatedAddressOf(set, String(poolName), heldIp);
    const ip = allocateAddress(set, status, id);
    if (ip === undefined) {
      // requestIP's "fail to get ip from pool %s, error: %w" around host-local IPAllocator.Get's error
      // (load-balancer-harvester pkg/controller/loadbalancer/controller.go; containernetworking/plugins
      // plugins/ipam/host-local/backend/allocator/allocator.go, range sets printed as range_set.go String).
      throw new PoolError(`fail to get ip from pool ${poolName}, error: no IP addresses available in range set: ${rangeSetLabel(set)}`);
    }
    const desired = clone(pool);
    const ds = statusOf(desired);
    const text = formatIPv4(ip);
    ds.allocated = { ...allocated, [text]: id };
    const history = { ...((ds.allocatedHistory as Record<string, string>) ?? {}) };
    delete history[text];
    ds.allocatedHistory = history;
    ds.lastAllocated = text;
    ds.available = Math.max(0, Number(ds.available ?? 0) - 1);
    ds.total ??= 0;
    writeChanges(store, kinds.ipPool, pool, desired, { fieldManager: MANAGER });
    return allocatedAddressOf(set, String(poolName), ip);
  }

  function reconcile(key: string): number | undefined {
    const { namespace, name } = splitKey(key);
    let lb = store.get(kinds.loadBalancer, namespace, name);
    if (!lb) return undefined;
    if (isDeleting(lb)) {
      if (!hasFinalizer(lb, FINALIZER_LB)) return undefined;
      const pool = field<string>(lb, 'status', 'allocatedAddress', 'ipPool');
      if (field(lb, 'spec', 'ipam') !== 'dhcp' && pool) release(lb, pool);
      const desired = clone(lb);
      removeFinalizer(desired, FINALIZER_LB);
      writeChanges(store, kinds.loadBalancer, lb, desired, { fieldManager: MANAGER });
      return undefined;
    }
    if (!hasFinalizer(lb, FINALIZER_LB)) {
      const withFinalizer = clone(lb);
      addFinalizer(withFinalizer, FINALIZER_LB);
      lb = writeChanges(store, kinds.loadBalancer, lb, withFinalizer, { fieldManager: MANAGER });
    }

    const desired = clone(lb);
    const status = statusOf(desired);
    let error: string | undefined;
    let retry: number | undefined;
    const vmType = isVmType(lb);
    if (field(lb, 'spec', 'ipam') === 'dhcp') {
      const current = field<string>(lb, 'status', 'allocatedAddress', 'ip');
      if (current !== DHCP_ASK_ADDRESS) status.allocatedAddress = { ip: DHCP_ASK_ADDRESS };
      if (vmType) {
        const lease = loadBalancerLease({ store, kinds, options: ctx.options }, lb);
        if (lease) status.address = lease;
        else error = 'wait external IP: the simulated DHCP range is exhausted';
      }
    } else {
      const specPool = field<string>(lb, 'spec', 'ipPool');
      const heldPool = field<string>(lb, 'status', 'allocatedAddress', 'ipPool');
      if (specPool && heldPool && specPool !== heldPool) {
        release(lb, heldPool);
        status.allocatedAddress = {};
        if (vmType) delete status.address;
        retry = 0;
      } else if (!heldPool) {
        try {
          const address = allocate(lb);
          status.allocatedAddress = address;
          if (vmType) status.address = address.ip;
        } catch (err) {
          if (!(err instanceof PoolError)) throw err;
          error = err.message;
          retry = POOL_RETRY_MS;
        }
      }
    }
    if (!error && vmType) {
      const addresses = backendAddresses(store, kinds, lb);
      if (addresses.length > 0) status.backendServers = addresses;
      else {
        delete status.backendServers;
        error = LB_ERRORS.noRunningBackends;
      }
    }
    const now = timestamp(clock.now());
    status.conditions = setCondition(
      status.conditions as Condition[] | undefined,
      error ? { type: 'Ready', status: 'False', message: error } : { type: 'Ready', status: 'True' },
      now,
      { stampUpdate: true },
    );
    writeChanges(store, kinds.loadBalancer, lb, desired, { fieldManager: MANAGER });
    return retry;
  }

  const controller = new Controller({ name: MANAGER, clock, errors: ctx.errors, reconcile });
  controller.watch(store, kinds.loadBalancer);
  // A new or changed pool may unblock LBs waiting for an address.
  controller.watch(store, kinds.ipPool, () =>
    store
      .listShared(kinds.loadBalancer)
      .items.filter((lb) => !field(lb, 'status', 'allocatedAddress', 'ip'))
      .map(objectKey),
  );
  // Backends of vm-type LBs follow their VMIs.
  controller.watch(store, kinds.vmi, (vmi) =>
    store
      .listShared(kinds.loadBalancer, { namespace: vmi.metadata.namespace })
      .items.filter(isVmType)
      .map(objectKey),
  );
  return controller;
}
