/**
 * Shared setup of the client integration tests: an emulator, a client whose retries record their delays
 * and wait at most a few milliseconds, and valid IPPool/LoadBalancer objects for the simulated controllers.
 */
import { Emulator, startEmulator, EmulatorOptions } from '../../emulator';
import { HarvesterClient } from '../../provider/client/harvester-client';
import { IPPool, LoadBalancer } from '../../provider/client/objects';
import { OwnerIdentity, stampOwnership } from '../../provider/client/ownership';

/** Log lines and retry delays of one client. */
export interface Recorded {
  client: HarvesterClient;
  sleeps: number[];
  logs: string[];
}

/** Start an emulator for one test file (call stop() in after()). */
export function emulator(options: EmulatorOptions = {}): Promise<Emulator> {
  return startEmulator({ bootDelayMs: 50, guestAgentDelayMs: 50, ...options });
}

/** A client on `emu`: retry delays are recorded in `sleeps` but waited for at most 5 ms. */
export async function connect(emu: Emulator, retry: { maxAttempts?: number } = {}): Promise<Recorded> {
  const sleeps: number[] = [];
  const logs: string[] = [];
  const client = await HarvesterClient.connect({
    kubeconfig: emu.kubeconfig,
    retry: { maxAttempts: retry.maxAttempts ?? 6 },
    sleep: (ms) => {
      sleeps.push(ms);
      return new Promise((r) => setTimeout(r, Math.min(ms, 5)));
    },
    logger: { debug: (m) => logs.push(m), info: (m) => logs.push(m), warn: (m) => logs.push(m), error: (m) => logs.push(m) },
  });
  return { client, sleeps, logs };
}

/** A global IP pool (every namespace, project and guest cluster). */
export function ipPool(name: string, third: number): IPPool {
  return {
    apiVersion: 'loadbalancer.harvesterhci.io/v1beta1',
    kind: 'IPPool',
    metadata: { name },
    spec: {
      ranges: [{ subnet: `192.168.${third}.0/24`, rangeStart: `192.168.${third}.10`, rangeEnd: `192.168.${third}.19`, gateway: `192.168.${third}.1` }],
      selector: { scope: [{ project: '*', namespace: '*', guestCluster: '*' }] },
    },
  };
}

/** A VM-type LoadBalancer taking its address from `pool`, stamped as owned by `owner`. */
export function loadBalancer(name: string, pool: string, owner: OwnerIdentity): LoadBalancer {
  return stampOwnership(
    {
      apiVersion: 'loadbalancer.harvesterhci.io/v1beta1',
      kind: 'LoadBalancer',
      metadata: { name, namespace: 'default' },
      spec: {
        ipam: 'pool',
        ipPool: pool,
        workloadType: 'vm',
        listeners: [{ name: 'http', port: 80, protocol: 'TCP', backendPort: 8080 }],
        backendServerSelector: { app: ['web'] },
      },
    },
    owner,
  );
}

/** Journal lines of `emu` for assertion messages. */
export function journal(emu: Emulator, since?: number): string {
  return emu.journal.format({ since });
}
