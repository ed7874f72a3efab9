/**
 * Benchmark: the machine pool's pure planning (inputs → desiredVirtualMachines → planPool) for 100 and
 * 500 VMs, with no cluster. Three situations a run meets:
 *
 * - up to date: every live VM (with what Harvester and KubeVirt add) compared with the VM we would build;
 * - scale up from nothing: every VM created;
 * - roll all: a CPU change makes every VM outdated, rolled in waves.
 *
 * Targets: planning is linear in pool size (per-VM cost at 500 VMs at most 2x the cost at 100 VMs: a
 * quadratic step would give 5x, while timing noise on a shared machine reaches about 1.5x), and the up-to-date plan — which normalises each VM (pruning server
 * additions, parsing JSON annotations, comparing quantities by value) — costs at most 20x a naive
 * JSON.stringify equality check of the same objects, which cannot tell drift from server additions
 * (measured about 10x when written).
 */
import { desiredVirtualMachines } from '../provider/resources/machine-pool/desired';
import type { MachinePoolInputs } from '../provider/resources/machine-pool/model';
import { planPool, type ObservedMachine, type Plan } from '../provider/resources/machine-pool/plan';
import { collectGarbage, interleaved } from './measure';
import { fmt, type Reporter } from './report';
import { BENCH_CONTEXT, benchDesiredPool, benchPoolInputs, observedFrom } from './vm-objects';

/** What planning costs one run: desired pool from inputs, then the plan against what was observed. */
function plan(inputs: MachinePoolInputs, observed: ObservedMachine[]): Plan {
  return planPool(desiredVirtualMachines(inputs, BENCH_CONTEXT), observed);
}

interface Scenario {
  name: string;
  inputs: (count: number) => MachinePoolInputs;
  observed: (count: number) => ObservedMachine[];
  /** Sanity check of the plan, so we time the intended work. */
  expect: (p: Plan, count: number) => string | undefined;
}

const count = (p: Plan, action: string): number => p.steps.filter((s) => s.action === action).length;

const SCENARIOS: Scenario[] = [
  {
    name: 'up to date',
    inputs: (n) => benchPoolInputs(n),
    observed: (n) => observedFrom(benchDesiredPool(n)),
    expect: (p) => (p.upToDate ? undefined : `expected no changes, got: ${p.changes.slice(0, 3).join('; ')}`),
  },
  {
    name: 'scale up from 0',
    inputs: (n) => benchPoolInputs(n),
    observed: () => [],
    expect: (p, n) => (count(p, 'create') === n ? undefined : `expected ${n} creates, got ${count(p, 'create')}`),
  },
  {
    name: 'roll all (cpu change)',
    inputs: (n) => benchPoolInputs(n, { cpu: 4 }),
    observed: (n) => observedFrom(benchDesiredPool(n)),
    expect: (p, n) => (p.replaces.length === n && count(p, 'delete') === n ? undefined : `expected ${n} rolled VMs, got ${p.replaces.length}`),
  },
];

const oneGc = (): void => collectGarbage(1);

/** Run the planning benchmarks (≈5 s). */
export async function benchPoolPlan(report: Reporter): Promise<void> {
  const [small, large] = [100, 500];
  for (const s of SCENARIOS) {
    const cases = [small, large].map((n) => {
      const inputs = s.inputs(n);
      const observed = s.observed(n);
      const problem = s.expect(plan(inputs, observed), n);
      if (problem) throw new Error(`pool plan, ${s.name}, ${n} VMs: ${problem}`);
      return () => plan(inputs, observed);
    });
    // Interleaved, so JIT warm-up and machine load hit both sizes alike; a GC before each run, so the big
    // plan's garbage is not collected on the small plan's time.
    const t = await interleaved(cases[0], cases[1], 4, 1, oneGc);
    const perSmall = t.a / small;
    const perLarge = t.b / large;
    report.add({
      name: `pool plan scaling, ${s.name}`,
      measured: `${fmt(perLarge * 1000, 'µs/VM')} at ${large} VMs`,
      baseline: `${fmt(perSmall * 1000, 'µs/VM')} at ${small} VMs`,
      ratio: perLarge / perSmall,
      target: 2,
      note: `${fmt(t.a, 'ms')} per plan of ${small}, ${fmt(t.b, 'ms')} of ${large}`,
    });
  }

  // Against a naive equality check of the very same objects (which would call every VM drifted).
  const n = 500;
  const inputs = benchPoolInputs(n);
  const desired = desiredVirtualMachines(inputs, BENCH_CONTEXT);
  const observed = observedFrom(desired);
  const naive = (): number => {
    let equal = 0;
    for (let i = 0; i < observed.length; i++) if (JSON.stringify(observed[i].vm) === JSON.stringify(desired.machines[i].vm)) equal++;
    return equal;
  };
  const t = await interleaved(() => plan(inputs, observed), naive, 3, 1, oneGc);
  report.add({
    name: `pool plan, up to date, ${n} VMs, vs naive compare`,
    measured: fmt(t.a, 'ms'),
    baseline: `${fmt(t.b, 'ms')} JSON.stringify equality of the same ${n} VM pairs`,
    ratio: t.a / t.b,
    target: 20,
  });
}
