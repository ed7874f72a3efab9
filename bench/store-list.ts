/**
 * Benchmark: the emulator store listing 1000 VirtualMachines with a label selector that matches 100 of
 * them (what the machine pool's observe asks for), against listing all 1000 and filtering in the caller,
 * in the same run on the same store.
 *
 * Target: the selector list takes at most half the time of list-all-then-filter (the store matches labels
 * on its frozen objects and copies out only the matches).
 */
import { KINDS } from '../emulator/kinds';
import { interleaved, nowMs } from './measure';
import { fmt, type Reporter } from './report';
import { createVms, newBenchStore, poolLabelSelector, vmBodies } from './store-fixture';

const TOTAL = 1000;
const MATCHING = 100;

/** Run the store list benchmark (≈2 s). */
export async function benchStoreList(report: Reporter): Promise<void> {
  const store = newBenchStore();
  const bodies = [...vmBodies(TOTAL - MATCHING, 'other'), ...vmBodies(MATCHING, 'wanted')];
  const start = nowMs();
  createVms(store, bodies);
  const createMs = nowMs() - start;
  report.info(`  store create, ${TOTAL} VMs: ${fmt(createMs, 'ms')} (${fmt((TOTAL / createMs) * 1000, 'creates/s')})`);

  const selector = poolLabelSelector('wanted');
  const wanted = selector.split(',').map((term) => term.split('=') as [string, string]);
  const withSelector = (): number => {
    const n = store.list(KINDS.virtualMachine, { namespace: 'default', labelSelector: selector }).items.length;
    if (n !== MATCHING) throw new Error(`store list: the selector matched ${n} VMs, expected ${MATCHING}`);
    return n;
  };
  const allThenFilter = (): number => {
    const items = store.list(KINDS.virtualMachine, { namespace: 'default' }).items;
    const n = items.filter((o) => wanted.every(([k, v]) => o.metadata.labels?.[k] === v)).length;
    if (items.length !== TOTAL || n !== MATCHING) throw new Error(`store list: listed ${items.length} VMs, ${n} matching`);
    return n;
  };

  const t = await interleaved(withSelector, allThenFilter, 10, 2);
  report.add({
    name: `store list, ${TOTAL} VMs, selector matching ${MATCHING}`,
    measured: fmt(t.a, 'ms'),
    baseline: `${fmt(t.b, 'ms')} listing all ${TOTAL} and filtering`,
    ratio: t.a / t.b,
    target: 0.5,
    note: `${fmt(1000 / t.a, 'lists/s')}`,
  });
}
