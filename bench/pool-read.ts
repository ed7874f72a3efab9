/**
 * Benchmark: the cost of reading a machine pool (the provider's `read`, run on every refresh and preview)
 * for pools of 1, 10 and 50 VMs, against a naive read done in the same run through the same client layer:
 * per VM, a GET of the VirtualMachine and one of its VirtualMachineInstance (8 VMs at a time, the
 * provider's write parallelism).
 *
 * Requests are counted by the emulator's request journal, so they are what really went over the wire.
 * Targets: read requests stay constant in pool size (three label-selected LISTs), so at 50 VMs they are at
 * most 0.05x the naive 100 GETs; and at 50 VMs a read takes at most a quarter of the naive read's wall
 * time (SIZES has the target of every size).
 */
import { mapLimit } from '../provider/core/concurrency';
import type { MachinePoolOutputs } from '../provider/resources/machine-pool/outputs';
import { interleaved } from './measure';
import { cloudInitSecretName } from '../provider/resources/machine-pool/desired';
import type { PoolBench } from './pool-fixture';
import { fmt, type Reporter } from './report';

/**
 * Pool sizes and targets: requests are 4 LISTs vs 3N GETs (with headroom); wall time may not exceed the
 * naive read by more than half at 1 VM (read sends one request more; it also rebuilds inputs for drift) and
 * must fall well below it as the naive read grows with the pool (about 0.1x and 0.05x when written).
 */
const SIZES: { count: number; requestTarget: number; timeTarget: number }[] = [
  // 4 LISTs (VMs, VMIs, volumes to report stray ones, cloud-init Secrets to give back userData) against the naive
  // read of the same facts per VM: its VM, VMI and cloud-init Secret, 3 GETs at 1 VM.
  { count: 1, requestTarget: 1.5, timeTarget: 1.5 },
  { count: 10, requestTarget: 0.2, timeTarget: 0.5 },
  { count: 50, requestTarget: 0.05, timeTarget: 0.25 },
];

/** Requests the emulator received while `fn` ran. */
async function countRequests(bench: PoolBench, fn: () => Promise<unknown>): Promise<number> {
  const mark = bench.emulator.journal.mark();
  await fn();
  return bench.emulator.journal.entries({ since: mark }).length;
}

/** Run the pool read benchmarks on a running emulator (≈6 s, mostly creating the pools). */
export async function benchPoolRead(bench: PoolBench, report: Reporter): Promise<void> {
  const requests = new Map<number, number>();
  for (const { count, requestTarget, timeTarget } of SIZES) {
    const name = `read-${count}`;
    const outs: MachinePoolOutputs = await bench.create(name, count);
    const names = outs.machines.map((m) => m.name);

    const read = async (): Promise<void> => {
      const r = await bench.provider.read(`default/${name}`, outs as unknown as Record<string, unknown>);
      const seen = r.props?.machines.filter((m) => m.ready).length;
      if (seen !== count) throw new Error(`pool read, ${count} VMs: read reported ${seen} ready VMs`);
    };
    const naive = async (): Promise<void> => {
      const client = await bench.connect();
      const found = await mapLimit(names, 8, async (vm) => {
        // What read gives back per VM: the VM, its VMI, and the user data in its cloud-init Secret.
        const [v, i, s] = await Promise.all([
          client.virtualMachines.get(vm, 'default'),
          client.virtualMachineInstances.get(vm, 'default'),
          client.secrets.get(cloudInitSecretName(vm), 'default'),
        ]);
        return v !== undefined && i !== undefined && s !== undefined;
      });
      if (found.filter(Boolean).length !== count) throw new Error(`pool read, ${count} VMs: the naive read missed VMs`);
    };

    const ours = await countRequests(bench, read);
    const theirs = await countRequests(bench, naive);
    requests.set(count, ours);
    report.add({
      name: `pool read, ${count} VM${count === 1 ? '' : 's'}, requests`,
      measured: `${ours} requests`,
      baseline: `${theirs} naive GETs`,
      ratio: ours / theirs,
      target: requestTarget,
    });

    const t = await interleaved(read, naive, 5, 1);
    report.add({
      name: `pool read, ${count} VM${count === 1 ? '' : 's'}, wall time`,
      measured: fmt(t.a, 'ms'),
      baseline: `${fmt(t.b, 'ms')} naive`,
      ratio: t.a / t.b,
      target: timeTarget,
    });
  }

  const first = SIZES[0].count;
  const last = SIZES[SIZES.length - 1].count;
  report.add({
    name: `pool read requests, ${last} VMs vs ${first} VM`,
    measured: `${requests.get(last)} requests`,
    baseline: `${requests.get(first)} requests`,
    ratio: requests.get(last)! / requests.get(first)!,
    target: 1.0,
  });
}
