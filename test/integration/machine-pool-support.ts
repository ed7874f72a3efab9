/**
 * Shared setup of the machine-pool integration tests: an emulator with short Harvester delays, the provider
 * handlers wired to it, and helpers to read the emulator's store directly (the "out of band" side).
 */
import { startEmulator, type Emulator } from '../../emulator';
import type { KubeObject } from '../../emulator/api/types';
import { KINDS } from '../../emulator/kinds';
import { HarvesterClient } from '../../provider/client';
import { createMachinePoolProvider, type MachinePoolProvider } from '../../provider/resources/machine-pool/handlers';

/** A running emulator and the provider talking to it. */
export interface PoolHarness {
  emulator: Emulator;
  provider: MachinePoolProvider;
  /** Inputs with the emulator's kubeconfig and fast timeouts, plus `overrides`. */
  args(overrides?: Record<string, unknown>): Record<string, unknown>;
  /** Objects of a kind in the store, optionally label-filtered by the pool name. */
  list(kind: keyof typeof KINDS, pool?: string, namespace?: string): KubeObject[];
  get(kind: keyof typeof KINDS, name: string, namespace?: string): KubeObject | undefined;
  progress: string[];
  stop(): Promise<void>;
}

/** startPoolHarness starts an emulator (delays in ms) and the provider bound to it. */
export async function startPoolHarness(delays: { vmiSchedule?: number; vmiBoot?: number; guestAgent?: number } = {}): Promise<PoolHarness> {
  const emulator = await startEmulator({
    harvester: { delays: { vmiSchedule: delays.vmiSchedule ?? 20, vmiBoot: delays.vmiBoot ?? 60, guestAgent: delays.guestAgent ?? 60, imageImport: 50 } },
  });
  const progress: string[] = [];
  const provider = createMachinePoolProvider({
    connect: (o) => HarvesterClient.connect({ ...o, retry: { maxAttempts: 4, initialDelayMs: 10, maxDelayMs: 50 } }),
    onProgress: (line) => progress.push(line),
  });
  return {
    emulator,
    provider,
    progress,
    args: (overrides = {}) => ({
      kubeconfig: emulator.kubeconfig,
      name: 'pool-a',
      count: 3,
      disks: [{ image: 'ubuntu-22.04-server-cloudimg', size: '20Gi' }],
      networks: [{ network: 'vm-net' }],
      timeouts: { create: '60s', update: '60s', delete: '60s' },
      ...overrides,
    }),
    list: (kind, pool, namespace = 'default') =>
      emulator.store.list(KINDS[kind], { namespace, labelSelector: pool ? `harvester-iac.io/resource-name=${pool}` : undefined }).items,
    get: (kind, name, namespace = 'default') => emulator.store.get(KINDS[kind], namespace, name),
    stop: () => emulator.stop(),
  };
}
