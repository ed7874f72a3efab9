/**
 * Shared setup of the machine-pool integration tests: a target (the emulator with short Harvester delays, or
 * a real cluster in acceptance mode), the provider handlers wired to it, reads through the client layer (what
 * a person sees), and clean-up of every pool the tests made. Out-of-band edits ("someone in the Harvester UI")
 * go through `client` too, never around the API.
 */
import type { KubeObject } from '../../provider/client/objects';
import { HarvesterClient } from '../../provider/client/harvester-client';
import type { ResourceClient } from '../../provider/client/resource-client';
import { createMachinePoolProvider, type MachinePoolProvider } from '../../provider/resources/machine-pool/handlers';
import { startTarget, type TestTarget } from '../support/target';
import { fastConnect } from '../support/fast-connect';

/** Kinds the tests read. */
export type PoolKind = 'virtualMachines' | 'virtualMachineInstances' | 'persistentVolumeClaims' | 'secrets';

/** A target and the provider talking to it. */
export interface PoolHarness {
  target: TestTarget;
  /** A plain client on the target: reads, and edits made out of band. */
  client: HarvesterClient;
  provider: MachinePoolProvider;
  /** Namespace of the pools (the fixture namespace). */
  namespace: string;
  /** `base` made unique to this run (pool names, guest cluster names). */
  name(base: string): string;
  /** The provider id of pool `pool`: `namespace/pool`. */
  id(pool: string): string;
  /** Inputs of a pool named `name` (remembered for clean-up) with the fixtures and the target's timeouts, plus `overrides`. */
  args(name: string, overrides?: Record<string, unknown>): Record<string, unknown>;
  /** Objects of a kind in the pool namespace, by name; only the pool's (by its ownership label) when `pool` is given. */
  list(kind: PoolKind, pool?: string): Promise<KubeObject[]>;
  get(kind: PoolKind, name: string): Promise<KubeObject | undefined>;
  /** Delete this VM (made without our labels) in stop(). */
  removeLater(vm: string): void;
  progress: string[];
  /** Remove every pool (VMs, volumes, Secrets) and VM the tests made, then stop the target. */
  stop(): Promise<void>;
}

/** startPoolHarness starts the target (emulator delays in ms) and the provider bound to it. */
export async function startPoolHarness(delays: { vmiSchedule?: number; vmiBoot?: number; guestAgent?: number } = {}): Promise<PoolHarness> {
  const target = await startTarget({
    harvester: { delays: { vmiSchedule: delays.vmiSchedule ?? 20, vmiBoot: delays.vmiBoot ?? 60, guestAgent: delays.guestAgent ?? 60, imageImport: 50 } },
  });
  const namespace = target.fixtures.namespace;
  const progress: string[] = [];
  const provider = createMachinePoolProvider({
    connect: fastConnect(4),
    onProgress: (line) => progress.push(line),
  });
  const client = await HarvesterClient.connect({ kubeconfig: target.kubeconfig });
  const pools = new Set<string>();
  const foreignVms = new Set<string>();
  const resource = (kind: PoolKind) => client[kind] as ResourceClient<KubeObject>;
  const list = async (kind: PoolKind, pool?: string) =>
    (await resource(kind).list({ namespace, labelSelector: pool ? `harvester-iac.io/resource-name=${pool}` : undefined })).items.sort((a, b) =>
      String(a.metadata.name).localeCompare(String(b.metadata.name)),
    );
  const timeouts = { create: target.timeouts.pool, update: target.timeouts.pool, delete: target.timeouts.pool };

  async function cleanUp(): Promise<void> {
    for (const pool of pools) {
      await provider.delete(`${namespace}/${pool}`, { kubeconfig: target.kubeconfig, name: pool, namespace, timeouts, volumeDeletion: 'delete' });
      // Volumes kept by volumeDeletion "retain" (they carry the pool's ownership labels).
      for (const pvc of await list('persistentVolumeClaims', pool)) await client.persistentVolumeClaims.delete(pvc.metadata.name!, { namespace });
    }
    for (const vm of foreignVms) await client.virtualMachines.delete(vm, { namespace });
  }

  return {
    target,
    client,
    provider,
    namespace,
    progress,
    name: (base) => target.name(base),
    id: (pool) => `${namespace}/${pool}`,
    args: (name, overrides = {}) => {
      pools.add(name);
      return {
        kubeconfig: target.kubeconfig,
        name,
        namespace,
        count: 3,
        disks: [{ image: target.fixtures.cloudImage, size: '20Gi' }],
        networks: [{ network: target.fixtures.network }],
        timeouts,
        ...overrides,
      };
    },
    list,
    get: (kind, name) => resource(kind).get(name, namespace),
    removeLater: (vm) => foreignVms.add(vm),
    async stop() {
      try {
        await cleanUp();
      } finally {
        await target.stop();
      }
    },
  };
}
