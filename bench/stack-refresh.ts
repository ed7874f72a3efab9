/**
 * Figures 4 and 6: `pulumi refresh` of a realistic stack — 50 machine pools × 10 VMs, 50 load balancers, 20 IP
 * pools, topology labels on 3 hosts — read with the engine's default parallelism (16) at 10 ms RTT.
 * - requests per resource, by kind, against a constant budget (a pool: its VM, VMI, volume and cloud-init Secret
 *   lists — the Secrets since read gives back userData/networkData for an exact refresh; a load
 *   balancer or an IP pool: one GET; topology labels: one host LIST), whatever the resource's size;
 * - wall time against the bound: requests / parallelism × RTT;
 * - the same refresh with no latency, to show how much of the wall time is CPU (emulator and provider share this
 *   machine's cores; on a real Harvester the API server's work runs on its own nodes).
 * The resource kinds are a table (KINDS): a new resource adds a row.
 */
import { startEmulator } from '../emulator';
import { HarvesterClient } from '../provider/client';
import { mapLimit } from '../provider/core/concurrency';
import { createIPPoolProvider } from '../provider/resources/ip-pool/handlers';
import { createLoadBalancerProvider } from '../provider/resources/load-balancer/handlers';
import { createMachinePoolProvider } from '../provider/resources/machine-pool/handlers';
import { createTopologyLabelsProvider } from '../provider/resources/topology-labels/handlers';
import { nowMs } from './measure';
import { RTT_MS } from './physical-bound';
import { fmt, type Reporter } from './report';

type Raw = Record<string, unknown>;
export const PARALLELISM = 16;
const POOLS = 50;
const VMS = 10;

export interface Made {
  kind: string;
  id: string;
  outs: Raw;
  read(id: string, outs: Raw): Promise<unknown>;
}

/** A kind of the stack: how many, how each is made, and its read budget in requests. */
export interface StackKind {
  kind: string;
  count: number;
  budget: number;
}

/**
 * Makes the stack on the cluster of `kubeconfig` through the providers' check and create, 8 at a time; the pools'
 * VMs on `network` (500 VMs need more addresses than a /24).
 */
export async function makeStack(kubeconfig: string, network: string): Promise<{ made: Made[]; kinds: StackKind[] }> {
  const connect = () => HarvesterClient.connect({ kubeconfig, retry: { maxAttempts: 4, initialDelayMs: 10, maxDelayMs: 50 } });
  const providers = {
    machinePool: createMachinePoolProvider({ connect }),
    ipPool: createIPPoolProvider({ connect }),
    loadBalancer: createLoadBalancerProvider({ connect }),
    topologyLabels: createTopologyLabelsProvider({ connect, onWarning: () => undefined }),
  };
  /** The stack, one row per resource kind: how many, how each is made, and its read budget in requests. */
  const KINDS: (StackKind & { kind: keyof typeof providers; args: (i: number) => Raw })[] = [
    { kind: 'topologyLabels', count: 1, budget: 1, args: () => ({ name: 'site', hosts: { 'harvester-node-0': { zone: 'za' }, 'harvester-node-1': { zone: 'zb' }, 'harvester-node-2': { zone: 'zc' } } }) },
    { kind: 'ipPool', count: 20, budget: 1, args: (i) => ({ name: `pool-${i}`, ranges: [{ subnet: `10.${100 + i}.0.0/24` }], selector: { priority: i + 1 } }) },
    { kind: 'machinePool', count: POOLS, budget: 4, args: (i) => ({ name: `pool-${i}`, count: VMS, disks: [{ image: 'ubuntu-22.04-server-cloudimg', size: '10Gi' }], networks: [{ network }], timeouts: { create: '120s', update: '120s', delete: '120s' } }) },
    { kind: 'loadBalancer', count: 50, budget: 1, args: (i) => ({ name: `lb-${i}`, ipPool: `pool-${i % 20}`, listeners: [{ name: 'http', port: 80, backendPort: 80 }], backendServerSelector: { 'harvester-iac.io/resource-name': [`pool-${i}`] } }) },
  ];
  const made: Made[] = [];
  for (const k of KINDS) {
    const p = providers[k.kind] as unknown as { check(o: Raw, n: Raw): Promise<{ inputs?: Raw; failures?: unknown[] }>; create(i: Raw): Promise<{ id: string; outs?: unknown }>; read(id: string, o: Raw): Promise<unknown> };
    await mapLimit([...Array(k.count).keys()], 8, async (i) => {
      const checked = await p.check({}, { kubeconfig, ...k.args(i) });
      if (checked.failures?.length) throw new Error(`${k.kind} ${i}: ${JSON.stringify(checked.failures)}`);
      const c = await p.create(checked.inputs!);
      made.push({ kind: k.kind, id: c.id, outs: c.outs as Raw, read: (id, outs) => p.read(id, outs) });
    });
  }
  return { made, kinds: KINDS };
}

/** Reads every resource of the stack, PARALLELISM at a time (the engine's default), as `pulumi refresh` does. */
export async function refreshStack(made: Made[]): Promise<number> {
  const start = nowMs();
  await mapLimit(made, PARALLELISM, (m) => m.read(m.id, m.outs));
  return nowMs() - start;
}

export async function benchStackRefresh(report: Reporter): Promise<void> {
  const emulator = await startEmulator({ host: '127.0.0.1', harvester: { delays: { vmiSchedule: 1, vmiBoot: 5, guestAgent: 5, imageImport: 5 } },
    // 500 VMs need more addresses than the seed's /24.
    seedData: { networks: [{ namespace: 'default', name: 'vm-net', vlan: 100, cidr: '172.16.0.0/20', gateway: '172.16.0.1' }] },
  });
  try {
    const { made, kinds: KINDS } = await makeStack(emulator.kubeconfig, 'vm-net');
    emulator.faults.add({ name: 'rtt', action: { type: 'latency', ms: RTT_MS } });
    const mark = emulator.journal.mark();
    const perKind = new Map<string, number[]>();
    const wall = await refreshStack(made);
    const requests = emulator.journal.entries({ since: mark }).length;
    // Requests per resource by kind: read each once more, alone, and count.
    for (const k of KINDS) {
      const one = made.find((m) => m.kind === k.kind)!;
      const m0 = emulator.journal.mark();
      const t0 = nowMs();
      await one.read(one.id, one.outs);
      report.info(`  one ${k.kind} read alone: ${fmt(nowMs() - t0, 'ms')}`);
      perKind.set(k.kind, [emulator.journal.entries({ since: m0 }).length, k.budget]);
    }
    for (const [kind, [n, budget]] of perKind) {
      report.add({ name: `refresh: requests per ${kind} read`, measured: `${n} requests`, baseline: `${budget} (constant budget, any size)`, ratio: n / budget, target: 1.0 });
    }
    // Figure 6: the same refresh with no latency shows how much of the wall time is CPU (the emulator and the
    // provider share this machine's cores; on a real Harvester the API server's work runs on its own nodes).
    emulator.faults.clear();
    const cpuOnly = await refreshStack(made);
    const bound = (requests / PARALLELISM) * RTT_MS;
    report.add({
      name: `refresh of ${made.length} resources (${POOLS}×${VMS} VMs), parallelism ${PARALLELISM}`,
      measured: fmt(wall, 'ms'),
      baseline: `${fmt(bound, 'ms')} = ${requests} requests / ${PARALLELISM} × ${RTT_MS} ms`,
      ratio: wall / bound,
      target: 2.0,
      note: `the same refresh with no latency takes ${fmt(cpuOnly, 'ms')}: CPU, not round trips, sets the time here; the emulator served ${fmt(requests / (wall / 1000))} req/s`,
    });
  } finally {
    await emulator.stop();
  }
}
