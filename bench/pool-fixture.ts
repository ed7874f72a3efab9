/**
 * The machine-pool benchmarks' shared setup: one emulator on loopback with short Harvester delays, the
 * provider handlers bound to it, and inputs for a pool of a given size.
 */
import { startEmulator, type Emulator } from '../emulator';
import { HarvesterClient } from '../provider/client';
import { createMachinePoolProvider, type MachinePoolProvider } from '../provider/resources/machine-pool/handlers';
import type { MachinePoolOutputs } from '../provider/resources/machine-pool/outputs';

/** Simulated Harvester transition delays of the pool benchmarks (ms): small, but not zero. */
export const BENCH_DELAYS = { vmiSchedule: 10, vmiBoot: 30, guestAgent: 30, imageImport: 20 };

/** A running emulator and the machine-pool provider talking to it. */
export interface PoolBench {
  emulator: Emulator;
  provider: MachinePoolProvider;
  /** A fresh client for the emulator, built the way the provider builds its own. */
  connect(): Promise<HarvesterClient>;
  /** Checked inputs of a pool `name` with `count` VMs (what the engine hands create). */
  inputs(name: string, count: number): Promise<Record<string, unknown>>;
  /** Create a pool and return its outputs; throws when any VM is not ready. */
  create(name: string, count: number): Promise<MachinePoolOutputs>;
  stop(): Promise<void>;
}

/** Start the emulator (TLS on loopback) and the provider. */
export async function startPoolBench(): Promise<PoolBench> {
  const emulator = await startEmulator({ host: '127.0.0.1', harvester: { delays: BENCH_DELAYS } });
  const retry = { maxAttempts: 4, initialDelayMs: 10, maxDelayMs: 50 };
  const connect = (o: { kubeconfig?: string; context?: string } = { kubeconfig: emulator.kubeconfig }) =>
    HarvesterClient.connect({ ...o, retry });
  const provider = createMachinePoolProvider({ connect });

  const inputs = async (name: string, count: number): Promise<Record<string, unknown>> => {
    const raw = {
      kubeconfig: emulator.kubeconfig,
      name,
      count,
      disks: [{ image: 'ubuntu-22.04-server-cloudimg', size: '20Gi' }],
      networks: [{ network: 'vm-net' }],
      timeouts: { create: '60s', update: '60s', delete: '60s' },
    };
    const checked = await provider.check({}, raw);
    if (checked.failures?.length) throw new Error(`pool ${name}: inputs refused: ${JSON.stringify(checked.failures)}`);
    return checked.inputs as Record<string, unknown>;
  };

  return {
    emulator,
    provider,
    connect: () => connect(),
    inputs,
    async create(name, count) {
      const created = await provider.create(await inputs(name, count));
      const outs = created.outs;
      if (!outs) throw new Error(`pool ${name}: create returned no outputs`);
      if (outs.readyCount !== count) throw new Error(`pool ${name}: ${outs.readyCount} of ${count} VMs ready after create`);
      return outs;
    },
    stop: () => emulator.stop(),
  };
}
