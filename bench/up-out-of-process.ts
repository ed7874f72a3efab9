/**
 * Figure 1 as a user meets it: `up` of a pool of 1, 25 and 50 VMs with the emulator CLI in its own process (2 s
 * boot, 10 ms latency on every response), so the simulated cluster's work does not share the provider's event
 * loop (it still shares this machine's two cores). Targets: 25 VMs within 1.25x of one VM, 50 within 1.2x.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HarvesterClient } from '../provider/client';
import { createMachinePoolProvider } from '../provider/resources/machine-pool/handlers';
import { nowMs } from './measure';
import { BOOT_MS, RTT_MS } from './physical-bound';
import { startEmulatorProcess, stopEmulatorProcess } from './provider-cpu';
import { fmt, type Reporter } from './report';

const TARGETS: [number, number][] = [[25, 1.25], [50, 1.2]];

export async function benchUpOutOfProcess(report: Reporter): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'harvester-up-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const child = await startEmulatorProcess(kubeconfig, ['--boot-delay', String(BOOT_MS), '--guest-agent-delay', '50', '--latency', String(RTT_MS)]);
  try {
    const connect = (o: { kubeconfig?: string; context?: string } = {}) => HarvesterClient.connect({ ...o, kubeconfig, retry: { maxAttempts: 4, initialDelayMs: 10, maxDelayMs: 50 } });
    const provider = createMachinePoolProvider({ connect });
    const up = async (name: string, count: number): Promise<number> => {
      const raw = { kubeconfig, name, count, disks: [{ image: 'ubuntu-22.04-server-cloudimg', size: '20Gi' }], networks: [{ network: 'vm-net' }], timeouts: { create: '120s', update: '120s', delete: '120s' } };
      const checked = await provider.check({}, raw);
      if (checked.failures?.length) throw new Error(`pool ${name}: ${JSON.stringify(checked.failures)}`);
      const start = nowMs();
      const created = await provider.create(checked.inputs!);
      const ms = nowMs() - start;
      if (created.outs?.readyCount !== count) throw new Error(`${name}: ${created.outs?.readyCount} of ${count} ready`);
      await provider.delete(created.id, created.outs as unknown as Record<string, unknown>);
      return ms;
    };
    await up('oop-warm', 2);
    const one = await up('oop-1', 1);
    for (const [count, target] of TARGETS) {
      const ms = await up(`oop-${count}`, count);
      report.add({ name: `up of a ${count}-VM pool, emulator in its own process (${BOOT_MS / 1000} s boot, ${RTT_MS} ms latency)`, measured: fmt(ms, 'ms'), baseline: `${fmt(one, 'ms')} one VM (the bound)`, ratio: ms / one, target });
    }
  } finally {
    await stopEmulatorProcess(child, dir);
  }
}
