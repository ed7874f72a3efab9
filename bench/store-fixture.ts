/**
 * A bare emulator object store for the store benchmarks: the Harvester kinds and schemas, the seeded
 * cluster content (namespaces, nodes, images), no controllers and no HTTP, on a manual clock (nothing
 * scheduled behind the benchmark's back).
 */
import { ManualClock } from '../emulator/clock';
import { ObjectStore } from '../emulator/api/store';
import type { KubeObject } from '../emulator/api/types';
import { validateObject } from '../emulator/api/validation';
import { KINDS, createHarvesterRegistry } from '../emulator/kinds';
import { seedHarvester } from '../emulator/seed';
import { poolSelector } from '../provider/resources/machine-pool/labels';
import { benchDesiredPool } from './vm-objects';

/** A seeded store with schema validation, as startEmulator builds it. */
export function newBenchStore(): ObjectStore {
  const store = new ObjectStore(createHarvesterRegistry(), new ManualClock(), { validate: validateObject });
  seedHarvester(store);
  return store;
}

/** `count` VirtualMachine bodies of pool `pool` in namespace default, as the machine pool creates them. */
export function vmBodies(count: number, pool: string): KubeObject[] {
  return benchDesiredPool(count, { name: pool }).machines.map((m) => m.vm as unknown as KubeObject);
}

/** The label selector of every object of pool `pool` (what the provider lists with). */
export function poolLabelSelector(pool: string): string {
  return poolSelector({ namespace: 'default', name: pool });
}

/** Store `bodies` as VirtualMachines. */
export function createVms(store: ObjectStore, bodies: KubeObject[]): void {
  for (const body of bodies) store.create(KINDS.virtualMachine, body, { fieldManager: 'bench' });
}
