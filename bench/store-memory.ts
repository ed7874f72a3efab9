/**
 * Benchmark: heap bytes the emulator store holds per stored VirtualMachine (the object, its index entry
 * and its event-log entry), measured after full garbage collections, against the size of the same object
 * as JSON text (what it weighs on the wire), in the same run.
 *
 * Target: at most 4 heap bytes per JSON byte, so an emulator holding thousands of VMs (long CLI sessions,
 * scale tests) stays within tens of megabytes.
 */
import { KINDS } from '../emulator/kinds';
import { heapUsedAfterGc, tick } from './measure';
import { fmt, type Reporter } from './report';
import { createVms, newBenchStore, vmBodies } from './store-fixture';

const VMS = 1000;

/** Run the store memory benchmark (≈1 s). */
export async function benchStoreMemory(report: Reporter): Promise<void> {
  const store = newBenchStore();
  // Bodies exist before the first reading, so only what the store keeps is counted.
  const bodies = vmBodies(VMS, 'mem');
  await store.settle();
  await tick();
  const before = heapUsedAfterGc();
  createVms(store, bodies);
  await store.settle();
  await tick();
  const after = heapUsedAfterGc();

  const stored = store.list(KINDS.virtualMachine, { namespace: 'default' }).items;
  if (stored.length !== VMS) throw new Error(`store memory: ${stored.length} VMs stored, expected ${VMS}`);
  const jsonBytes = stored.reduce((sum, o) => sum + Buffer.byteLength(JSON.stringify(o)), 0) / VMS;
  const heapBytes = (after - before) / VMS;
  report.add({
    name: `store memory, ${VMS} VMs`,
    measured: `${fmt(heapBytes / 1024, 'KiB')} heap per VM`,
    baseline: `${fmt(jsonBytes / 1024, 'KiB')} JSON per VM`,
    ratio: heapBytes / jsonBytes,
    target: 4,
    note: `${fmt((after - before) / 2 ** 20, 'MiB')} for ${VMS} VMs`,
  });
  // Keep the store alive until after the reading.
  if (store.resourceVersion() === '') throw new Error('unreachable');
}
